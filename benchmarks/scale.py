"""The benchmark's real size on the stub: `agentsense/full` at N scenes, its memory, log and report.

    nice -n 10 python benchmarks/scale.py --scenes 100 400 1225 --json scale.json

THE DATA. The 24 demo scenes repeated with distinct ids (`<sample_idx>-r<k>`, k = 0, 1, ...) up to
the largest N, written once as a JSONL file in the dataset format (`-T dataset=PATH`); a run at N
scenes takes its first N with `--limit N`, so every run reads the same file.

THE RUNS. For each N, one stub (`python -m agentsense.standin.stub --latency L`, 0.05 s) and

    inspect eval agentsense/full -T dataset=PATH --limit N --display none \
        --model vllm/agent --model-role judge=vllm/judge-a,vllm/judge-b,vllm/judge-c \
        --max-connections C [--inspect-arg ...]

then `agentsense report LOG --out DIR` on its log.

MEASURES.
- wall: the eval process's start to its exit (start-up and log finalisation included).
- peak RSS: ru_maxrss of the eval process (os.wait4); `rss at 25/50/75%` are psutil readings of
  its resident set taken every 2 s, at the first reading past that share of the run's wall, to
  show whether it grows with the scenes done (the whole trace: `rss-N.csv` in the work folder).
- log: the `.eval` file's size, in MB and in KB per scene.
- report: wall and ru_maxrss of `agentsense report` on that log.

WITHOUT THE EVAL (`--report-only N --from LOG`): a log of N scenes built from a smaller run's log
by repeating its samples with distinct ids (`<id>-x<k>`), then only the report's figures: the
report's memory and time at a size the machine could not run in the time at hand.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from processes import isolated_env, stub_server, stub_stats, timed_child
from throughput_runs import INSPECT, JUDGES

DEMO = Path(__file__).parents[1] / "src/agentsense/sense/dataset/data/demo.jsonl"
AGENTSENSE = str(Path(sys.executable).with_name("agentsense"))
POLL_S = 2.0


def write_dataset(scenes: int, path: Path) -> Path:
    """The demo scenes repeated with distinct ids up to `scenes` records."""
    demo = [json.loads(line) for line in DEMO.read_text().splitlines() if line.strip()]
    with path.open("w") as out:
        for n in range(scenes):
            record = dict(demo[n % len(demo)])
            record["sample_idx"] = f"{record['sample_idx']}-r{n // len(demo)}"
            out.write(json.dumps(record) + "\n")
    return path


class RssPoller:
    """Readings of a process tree's resident set (MB) every POLL_S, in a thread."""

    def __init__(self) -> None:
        self.readings: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def watch(self, pid: int) -> None:
        import psutil  # a dependency of Inspect

        started = time.monotonic()
        try:
            process = psutil.Process(pid)
            while not self.stop.wait(POLL_S):
                tree = [process, *process.children(recursive=True)]
                rss = sum(p.memory_info().rss for p in tree if p.is_running())
                self.readings.append((time.monotonic() - started, rss / 2**20))
        except psutil.Error:  # the process ended between readings
            return

    def at(self, share: float) -> float | None:
        if not self.readings:
            return None
        end = self.readings[-1][0]
        return next(rss for t, rss in self.readings if t >= share * end)


def watched_child(command: list[str], env: dict[str, str], log: Path) -> tuple[Any, RssPoller]:
    """`timed_child` with an RSS poller on the child (found as the newest child of this process)."""
    import psutil

    poller = RssPoller()
    me = psutil.Process()
    known = {p.pid for p in me.children()}

    def find_and_watch() -> None:
        while not poller.stop.is_set():
            new = [p.pid for p in me.children() if p.pid not in known]
            if new:
                poller.watch(new[0])
                return
            time.sleep(0.05)

    thread = threading.Thread(target=find_and_watch, daemon=True)
    thread.start()
    try:
        usage = timed_child(command, env, log)
    finally:
        poller.stop.set()
        thread.join()
    return usage, poller


def eval_command(dataset: Path, scenes: int, log_dir: Path, args: argparse.Namespace) -> list[str]:
    return [
        INSPECT,
        "eval",
        "agentsense/full",
        "-T",
        f"dataset={dataset}",
        "--limit",
        str(scenes),
        "--model",
        "vllm/agent",
        "--model-role",
        f"judge={JUDGES}",
        "--max-connections",
        str(args.connections),
        "--log-dir",
        str(log_dir),
        "--display",
        "none",
        *args.inspect_arg,
    ]


def run_scale(dataset: Path, scenes: int, work: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One eval at `scenes` scenes against its own stub, then the report on its log."""
    log_dir = work / f"logs-{scenes}"
    with stub_server(args.latency) as (base_url, stub):
        env = isolated_env(work / f"env-{scenes}", base_url)
        command = eval_command(dataset, scenes, log_dir, args)
        usage, poller = watched_child(command, env, work / f"eval-{scenes}.out")
        answered, _ = stub_stats(stub)
    # The whole RSS trace (seconds, MB), to see where in the run the memory grows.
    trace = "".join(f"{t:.0f},{rss:.1f}\n" for t, rss in poller.readings)
    (work / f"rss-{scenes}.csv").write_text("seconds,rss_mb\n" + trace)
    (log,) = sorted(log_dir.glob("*.eval"))
    report_cmd = [AGENTSENSE, "report", str(log), "--out", str(work / f"report-{scenes}")]
    report = timed_child(report_cmd, env, work / f"report-{scenes}.out")
    size = log.stat().st_size
    return {
        "scenes": scenes,
        "calls": answered,
        "wall_s": (usage.ended - usage.started).total_seconds(),
        "cpu_s": usage.cpu,
        "peak_rss_mb": usage.peak_rss_mb,
        "rss_mb_at": {f"{p}%": poller.at(p / 100) for p in (25, 50, 75)},
        "log_mb": size / 1e6,
        "log_kb_per_scene": size / 1e3 / scenes,
        "report_s": (report.ended - report.started).total_seconds(),
        "report_peak_rss_mb": report.peak_rss_mb,
    }


def repeat_log(source: Path, scenes: int, out: Path) -> Path:
    """A log of `scenes` samples: `source`'s samples repeated with distinct ids (shallow copies,
    so building it costs one read of `source`)."""
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(str(source))
    given = log.samples or []
    log.samples = [
        given[k % len(given)].model_copy(update={"id": f"{given[k % len(given)].id}-x{k}"})
        for k in range(scenes)
    ]
    log.eval.dataset.samples = scenes
    log.eval.dataset.sample_ids = [sample.id for sample in log.samples]
    write_eval_log(log, str(out))
    return out


def report_only(scenes: int, source: Path, work: Path) -> dict[str, Any]:
    """The report's wall and peak RSS on a repeated log of `scenes` samples."""
    log = repeat_log(source, scenes, work / f"repeated-{scenes}.eval")
    report_cmd = [AGENTSENSE, "report", str(log), "--out", str(work / f"report-{scenes}")]
    report = timed_child(report_cmd, dict(os.environ), work / f"report-{scenes}.out")
    size = log.stat().st_size
    return {
        "scenes": scenes,
        "log_mb": size / 1e6,
        "log_kb_per_scene": size / 1e3 / scenes,
        "report_s": (report.ended - report.started).total_seconds(),
        "report_peak_rss_mb": report.peak_rss_mb,
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    print(
        f"{'scenes':>6} {'calls':>7} {'wall s':>8} {'cpu s':>8} {'peak RSS MB':>11} "
        f"{'RSS 25/50/75% MB':>18} {'log MB':>7} {'KB/scene':>8} {'report s':>8} "
        f"{'report RSS MB':>13}"
    )
    for r in rows:
        at = "/".join(f"{v:.0f}" if v else "-" for v in r["rss_mb_at"].values())
        print(
            f"{r['scenes']:>6} {r['calls']:>7} {r['wall_s']:>8.1f} {r['cpu_s']:>8.1f} "
            f"{r['peak_rss_mb']:>11.0f} {at:>18} {r['log_mb']:>7.1f} "
            f"{r['log_kb_per_scene']:>8.1f} {r['report_s']:>8.1f} {r['report_peak_rss_mb']:>13.0f}"
        )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, nargs="+", default=[100, 400, 1225])
    parser.add_argument("--latency", type=float, default=0.05, help="stub latency, s (0.05)")
    parser.add_argument("--connections", type=int, default=64, help="--max-connections (64)")
    parser.add_argument(
        "--inspect-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="pass ARG on to `inspect eval` (repeatable), e.g. --log-buffer=10",
    )
    parser.add_argument(
        "--report-only",
        type=int,
        nargs="+",
        metavar="N",
        help="no eval: time the report on logs of N scenes repeated from --from LOG",
    )
    parser.add_argument("--from", dest="source", type=Path, metavar="LOG", help="see --report-only")
    parser.add_argument("--keep", type=Path, help="keep the logs and reports in this folder")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentsense-scale-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        rows = []
        if args.report_only:
            if args.source is None:
                raise SystemExit("--report-only needs --from LOG (a log of a smaller run)")
            for scenes in args.report_only:
                rows.append(report_only(scenes, args.source, work))
                print(json.dumps(rows[-1]), flush=True)
        else:
            dataset = write_dataset(max(args.scenes), work / "scale.jsonl")
            for scenes in args.scenes:
                rows.append(run_scale(dataset, scenes, work, args))
                print(json.dumps(rows[-1]), flush=True)
            print_table(rows)
    if args.json:
        load = os.getloadavg()
        args.json.write_text(json.dumps({"load_average": load, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
