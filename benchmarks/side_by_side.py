"""The official AgentSense code and agentsense side by side, and what each Inspect option costs.

    python benchmarks/side_by_side.py --official GITDIR --scenes 24 --latency 1.0 0.2 --runs 3
    python benchmarks/side_by_side.py --official GITDIR --scenes 24 --latency 0.2 --processes 2
    python benchmarks/side_by_side.py --official GITDIR --scenes 96 --latency 1.0 --processes 2 \
        --variant "large-run recipe" --max-samples 96
    python benchmarks/side_by_side.py --options --scenes 24 --runs 3 [--baseline-src DIR]

SIDE BY SIDE (`--official GITDIR`, a git directory of github.com/ljcleo/agent_sense): the
official code's `SENSE/` folder at the directory's HEAD is copied into a temporary folder
unmodified (never into this repository) and run with `run_eval.py --task_workers C` by a Python
that has AutoGen 0.2.40 (`--official-python`; `../shared/tools/side-by-side` builds one in
~/.cache/side-by-side/venv, the default). agentsense runs as a user runs it:
`inspect eval agentsense/full --model vllm/agent --model-role judge=vllm/judge-a,...,judge-c
--max-connections C`, or with `--processes N` as `agentsense eval-parts agentsense/full
--processes N ...` (N parts sharing the C connections; CPU then sums the parts, which
eval-parts waits for; peak RSS is the largest process's). Both talk to the project's stub
server (`python -m agentsense.standin.stub --latency L`: persona replies; its own process, so
its CPU is charged to neither), on the same scenes (the demo set, or N/24 copies of it with
distinct `sample_idx`), 3 judges. `--variant NAME` (a variant of
`benchmarks/inspect_options.json`, such as "large-run recipe") and `--max-samples N` give the
agentsense side a configuration other than Inspect's defaults. Runs alternate official /
agentsense, `--runs` pairs per latency; the table holds medians and the ratios agentsense /
official.

OPTIONS (`--options`): agentsense alone at L = `--options-latency` (default 0: the client's CPU
is then all there is to measure), once per variant of `benchmarks/inspect_options.json` per
round, rounds interleaved; CPU per call and its change against the defaults.
`--baseline-src DIR` adds a variant that runs another agentsense tree (`PYTHONPATH=DIR`), for
before / after comparisons of the plugin itself.

MEASURES. wall: process start to exit; CPU: user + sys seconds of the evaluating process
(os.wait4; the official code's worker threads included); calls: requests the stub answered;
peak RSS of the evaluating process. `load` is the 1-minute load average when the run starts:
the machine is shared, so quote ratios and CPU, not wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from processes import ChildUsage, isolated_env, stub_server, stub_stats, timed_child

HERE = Path(__file__).parent
OPTIONS_FILE = HERE / "inspect_options.json"
DEFAULT_OFFICIAL_PYTHON = Path.home() / ".cache/side-by-side/venv/bin/python"
JUDGES = ("judge-a", "judge-b", "judge-c")


@dataclass
class Run:
    who: str  # "official", "agentsense" or an option variant's name
    latency: float
    scenes: int
    wall: float
    cpu: float
    rss_mb: float
    calls: int
    load: float

    @property
    def cpu_ms_per_call(self) -> float:
        return 1000 * self.cpu / self.calls if self.calls else float("nan")


@dataclass(frozen=True)
class Variant:
    name: str
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()


def load_variants(path: Path = OPTIONS_FILE) -> list[Variant]:
    return [
        Variant(row["name"], tuple(row.get("args", ())), tuple(row.get("env", {}).items()))
        for row in json.loads(path.read_text())
    ]


def scenes_file(work: Path, scenes: int) -> Path:
    """The demo scenes, `scenes / 24` copies with distinct `sample_idx`, as JSONL."""
    demo = resources.files("agentsense.sense.dataset") / "data" / "demo.jsonl"
    rows = [json.loads(line) for line in demo.read_text().splitlines() if line.strip()]
    if scenes % len(rows) and scenes > len(rows):
        raise SystemExit(f"--scenes {scenes}: use at most {len(rows)} or a multiple of it")
    copies = max(1, scenes // len(rows))
    out = [
        dict(row, sample_idx=int(row["sample_idx"]) * 10 + k) for k in range(copies) for row in rows
    ][:scenes]
    path = work / f"scenes-{scenes}.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in out))
    return path


def official_tree(gitdir: Path, work: Path) -> Path:
    """The official `SENSE/` folder at HEAD, copied out unmodified; its data files are not
    needed (and a mirror may hold them as absent large blobs)."""

    def git(*command: str) -> bytes:
        return subprocess.run(
            ["git", f"--git-dir={gitdir}", *command], check=True, capture_output=True
        ).stdout

    for name in git("ls-tree", "-r", "--name-only", "HEAD", "SENSE").decode().splitlines():
        if not name.startswith("SENSE/data/"):
            (work / name).parent.mkdir(parents=True, exist_ok=True)
            (work / name).write_bytes(git("show", f"HEAD:{name}"))
    if not (work / "SENSE" / "run_eval.py").exists():
        raise SystemExit(f"--official {gitdir}: no SENSE/run_eval.py at HEAD")
    return work / "SENSE"


def official_command(args: argparse.Namespace, data: Path, run: Path, base_url: str) -> list[str]:
    judges = [
        {
            "judge_model": model,
            "judge_base_url": base_url,
            "judge_api_key": "x",
            "judge_api_type": "openai",
            "judge_temperature": 0,
            "judge_max_tokens": 128,
        }
        for model in JUDGES
    ]
    (run / "judges.json").write_text(json.dumps(judges))
    return [
        str(args.official_python),
        *("run_eval.py", "--input_path", str(data), "--config_dir", f"{run}/cfg/"),
        *("--output_dir", f"{run}/out/", "--prompt_template_path", "configs/prompt_template.json"),
        *("--max_round", "15", "--model", "agent", "--base_url", base_url, "--api_key", "x"),
        *("--temperature", "1", "--max_tokens", "128", "--judge_config", f"{run}/judges.json"),
        *("--task_workers", str(args.connections)),
    ]


def agentsense_command(
    args: argparse.Namespace, data: Path, run: Path, variant: Variant
) -> list[str]:
    judges = ",".join(f"vllm/{model}" for model in JUDGES)
    if args.processes > 1:  # `agentsense eval-parts`: N parts sharing the same connections
        runner = [str(Path(sys.executable).with_name("agentsense")), "eval-parts"]
        runner += ["agentsense/full", "--processes", str(args.processes)]
    else:
        runner = [str(Path(sys.executable).with_name("inspect")), "eval", "agentsense/full"]
    return [
        *runner,
        *("-T", f"dataset={data}", "--model", "vllm/agent"),
        *("--model-role", f"judge={judges}", "--max-connections", str(args.connections)),
        *("--log-dir", str(run / "logs"), "--display", "none", *variant.args),
    ]


def run_once(
    args: argparse.Namespace,
    who: str,
    latency: float,
    data: Path,
    work: Path,
    variant: Variant = Variant("agentsense"),
) -> Run:
    run = Path(tempfile.mkdtemp(dir=work, prefix=f"{who}-"))
    load = os.getloadavg()[0]
    with stub_server(latency) as (base_url, stub):
        if who == "official":
            command = official_command(args, data, run, base_url)
            env = dict(os.environ)
            usage = timed_child(command, env, run / "run.out", cwd=args.official_tree)
        else:
            env = {**isolated_env(run, base_url), **dict(variant.env)}
            usage = timed_child(agentsense_command(args, data, run, variant), env, run / "run.out")
        calls, _ = stub_stats(stub)
    return measured(who, latency, data, usage, calls, load)


def measured(
    who: str, latency: float, data: Path, usage: ChildUsage, calls: int, load: float
) -> Run:
    scenes = sum(1 for line in data.read_text().splitlines() if line.strip())
    wall = (usage.ended - usage.started).total_seconds()
    return Run(who, latency, scenes, wall, usage.cpu, usage.peak_rss_mb, calls, load)


def median(runs: Sequence[Run], field: str) -> float:
    return statistics.median(getattr(run, field) for run in runs)


def print_run(run: Run) -> None:
    print(
        f"{run.who:<28} L={run.latency:<4} scenes={run.scenes:<3} wall {run.wall:6.1f} s  "
        f"CPU {run.cpu:6.1f} s  {run.cpu_ms_per_call:5.1f} ms/call  RSS {run.rss_mb:4.0f} MB  "
        f"calls {run.calls:5d}  load {run.load:.2f}",
        flush=True,
    )


def side_by_side(args: argparse.Namespace, work: Path) -> list[dict[str, Any]]:
    args.official_tree = official_tree(args.official, work)
    variant = chosen_variant(args)
    rows = []
    for scenes in args.scenes:
        data = scenes_file(work, scenes)
        for latency in args.latency:
            runs: dict[str, list[Run]] = {"official": [], "agentsense": []}
            for _ in range(args.runs):
                for who in runs:
                    runs[who].append(run_once(args, who, latency, data, work, variant))
                    print_run(runs[who][-1])
            rows.append(summary_row(scenes, latency, runs))
    print_side_by_side(rows)
    return rows


def chosen_variant(args: argparse.Namespace) -> Variant:
    """agentsense's configuration for the side-by-side runs: a variant of inspect_options.json
    (`--variant`), plus `--max-samples`."""
    by_name = {variant.name: variant for variant in load_variants()}
    chosen = by_name[args.variant]
    extra = ("--max-samples", str(args.max_samples)) if args.max_samples else ()
    return Variant("agentsense", chosen.args + extra, chosen.env)


def summary_row(scenes: int, latency: float, runs: dict[str, list[Run]]) -> dict[str, Any]:
    row: dict[str, Any] = {"scenes": scenes, "latency": latency}
    for who, done in runs.items():
        for field in ("wall", "cpu", "rss_mb", "calls", "cpu_ms_per_call"):
            row[f"{who}_{field}"] = median(done, field)
        row[f"{who}_load"] = [run.load for run in done]
    for field in ("wall", "cpu", "cpu_ms_per_call", "rss_mb"):
        row[f"ratio_{field}"] = row[f"agentsense_{field}"] / row[f"official_{field}"]
    return row


def print_side_by_side(rows: list[dict[str, Any]]) -> None:
    print(
        "\n| scenes | L | official wall / CPU | agentsense wall / CPU | agentsense / official "
        "| CPU per call (official, agentsense) | load during runs |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        loads = r["official_load"] + r["agentsense_load"]
        print(
            f"| {r['scenes']} | {r['latency']:g} s "
            f"| {r['official_wall']:.1f} s / {r['official_cpu']:.1f} s "
            f"| {r['agentsense_wall']:.1f} s / {r['agentsense_cpu']:.1f} s "
            f"| wall {r['ratio_wall']:.2f}, CPU {r['ratio_cpu']:.2f} "
            f"| {r['official_cpu_ms_per_call']:.1f}, {r['agentsense_cpu_ms_per_call']:.1f} ms "
            f"| {min(loads):.1f}-{max(loads):.1f} |"
        )


def option_costs(args: argparse.Namespace, work: Path) -> list[dict[str, Any]]:
    variants = load_variants()
    if args.baseline_src:
        baseline = ("PYTHONPATH", str(Path(args.baseline_src).resolve()))
        variants.insert(
            1, Variant(f"baseline tree ({Path(args.baseline_src).name})", (), (baseline,))
        )
    data = scenes_file(work, args.scenes[0])
    runs: dict[str, list[Run]] = {variant.name: [] for variant in variants}
    for _ in range(args.runs):
        for variant in variants:
            done = run_once(args, variant.name, args.options_latency, data, work, variant)
            runs[variant.name].append(done)
            print_run(done)
    base = median(runs[variants[0].name], "cpu_ms_per_call")
    rows = []
    print("\n| variant | CPU per call (range) | change | wall | peak RSS | load |")
    print("|---|---|---|---|---|---|")
    for variant in variants:
        done = runs[variant.name]
        per_call = [run.cpu_ms_per_call for run in done]
        row = {
            "variant": variant.name,
            "args": list(variant.args),
            "env": dict(variant.env),
            "cpu_ms_per_call": statistics.median(per_call),
            "range": [min(per_call), max(per_call)],
            "wall": median(done, "wall"),
            "rss_mb": median(done, "rss_mb"),
            "load": [run.load for run in done],
        }
        rows.append(row)
        change = row["cpu_ms_per_call"] / base - 1
        print(
            f"| {variant.name} | {row['cpu_ms_per_call']:.1f} ms ({min(per_call):.1f}-"
            f"{max(per_call):.1f}) | {change:+.0%} | {row['wall']:.1f} s | {row['rss_mb']:.0f} MB "
            f"| {min(row['load']):.1f}-{max(row['load']):.1f} |"
        )
    return rows


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--official", type=Path, help="git directory of ljcleo/agent_sense")
    parser.add_argument("--official-python", type=Path, default=DEFAULT_OFFICIAL_PYTHON)
    parser.add_argument("--options", action="store_true", help="measure the Inspect options")
    parser.add_argument("--baseline-src", help="with --options: another agentsense src/ tree")
    parser.add_argument("--options-latency", type=float, default=0.0)
    parser.add_argument("--scenes", type=int, nargs="+", default=[24])
    parser.add_argument("--latency", type=float, nargs="+", default=[1.0, 0.2])
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3, help="interleaved runs per setting")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="run agentsense as `agentsense eval-parts --processes N` (the same total connections)",
    )
    parser.add_argument(
        "--variant",
        default="defaults",
        choices=[variant.name for variant in load_variants()],
        help="side by side: agentsense with this variant of inspect_options.json",
    )
    parser.add_argument(
        "--max-samples", type=int, help="side by side: agentsense's --max-samples (the total)"
    )
    parser.add_argument("--json", type=Path, help="write every run's summary here")
    args = parser.parse_args(argv)
    if not args.official and not args.options:
        parser.error("give --official GITDIR (side by side) and/or --options")
    if args.official and not args.official_python.exists():
        parser.error(
            f"--official-python {args.official_python} does not exist: make a venv with "
            "`pip install autogen-agentchat==0.2.40 numpy tqdm pyyaml` and pass its python"
        )
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    report: dict[str, Any] = {
        "load_at_start": os.getloadavg(),
        "processes": args.processes,
        "variant": args.variant,
        "max_samples": args.max_samples,
    }
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.official:
            report["side_by_side"] = side_by_side(args, work)
        if args.options:
            report["options"] = option_costs(args, work)
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
