"""The wheel carries what the code reads, and the core runs every task (issue 52): build the wheel,
install it alone (no extra, not editable) into a fresh venv on every Python the machine has in
the range pyproject.toml declares, and run the offline command of every task but `gca` there;
on the running Python, show that the commands and the task whose extra is missing stop with the
extra's one line, and that a second venv with `[report]` writes the report from the same logs
(and, `[gca]` added, runs `gca`). Every non-Python file under `src/` is in the wheel.

The venvs are filled, and each Python's commands run, at once (threads; CI time). Their
dependencies are pinned to the versions of the running environment (what was tested; pip's
cache is the starting shell's, see conftest).
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from packaging.specifiers import SpecifierSet

import agentsense
from agentsense.engine.extras import EXTRAS
from agentsense.standin.stub import StubServer

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[1]
SOURCE = ROOT / "src" / "agentsense"
JUDGES = "judge=standin/persona/judge-a,standin/persona/judge-b,standin/persona/judge-c"
DEMO = ("-T", "dataset=demo", "--limit", "1")
AGENT = ("--model", "standin/persona/agent")
# The offline command of every task but gca, in two processes (one start-up each; CI time): a
# role a task does not use is ignored with a warning, and `-T dataset=demo` goes to every task
# that has the argument (judge_check's and construct's data are their bundled defaults).
CORE_RUNS: dict[str, tuple[str, ...]] = {
    "demo": (
        *("agentsense/full", "agentsense/goal", "agentsense/pairwise", "agentsense/sotopia"),
        *("agentsense/info", "agentsense/blind", "agentsense/script_prediction"),
        *("agentsense/labelling", *DEMO, *AGENT, "--model-role", JUDGES),
        *("--model-role", "labeller=standin/persona/labeller"),
    ),
    "bundled": (
        *("agentsense/judge_check", "agentsense/construct", "--limit", "2"),
        *("--model", "standin/persona/builder", "--model-role", JUDGES),
    ),
}
GCA = (
    *("agentsense/gca", *DEMO, "--model", "standin/gca/actor"),
    *(
        "--model-role",
        "next_speaker=standin/gca/nsp",
        "--model-role",
        "environment=standin/gca/env",
    ),
    *("--model-role", "critic=standin/gca/critic"),
)
# What the core must not hold: every module of every extra (numpy aside: Inspect's own), and
# what they pull in.
ABSENT = sorted({m for ms in EXTRAS.values() for m in ms} - {"numpy"} | {"nltk", "pyarrow"})


def supported_pythons() -> dict[str, str]:
    """Minor version -> interpreter: the running one, and every pyenv one that pyproject.toml's
    `requires-python` admits (one per minor version)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    allowed = SpecifierSet(project["requires-python"])
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    found = {running: sys.executable}
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    for folder in sorted(pyenv.glob("3.*"), key=lambda p: [int(x) for x in p.name.split(".")]):
        python = folder / "bin" / "python3"
        if re.fullmatch(r"\d+\.\d+\.\d+", folder.name) and python.exists():
            minor = folder.name.rsplit(".", 1)[0]
            if folder.name in allowed:
                found.setdefault(minor, str(python))
    return found


PYTHONS = supported_pythons()
RUNNING = f"{sys.version_info.major}.{sys.version_info.minor}"
NAMED = ("3.11", "3.12", "3.13")  # the Pythons the README says are tested


def test_every_python_the_readme_names_is_here_to_test() -> None:
    """No supported Python left out in silence: each one the README names is found."""
    missing = [minor for minor in NAMED if minor not in PYTHONS]
    assert not missing, f"no interpreter for {missing}: install with `pyenv install 3.X`"


class Installed:
    def __init__(self, root: Path, python: str, wheel: Path, constraints: Path) -> None:
        self.root, self.wheel, self.constraints = root, wheel, constraints
        self.root.mkdir(parents=True)
        self.bin = root / "venv" / "bin"
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        self.env["PATH"] = f"{self.bin}{os.pathsep}{self.env.get('PATH', '')}"
        subprocess.run([python, "-m", "venv", root / "venv"], check=True, timeout=300)

    def install(self, extras: str = "") -> None:
        # No byte-compiling up front: the first command compiles what it imports.
        pip = [self.bin / "python", "-m", "pip", "--disable-pip-version-check", "-q"]
        target = f"{self.wheel}[{extras}]" if extras else str(self.wheel)
        command = [*pip, "install", "--no-compile", "-c", self.constraints, target]
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        assert done.returncode == 0, done.stderr[-3000:]

    def attempt(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.root,
            timeout=900,
        )

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = self.attempt(*args)
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-3000:])
        return done

    def eval(self, log_dir: str, *args: str) -> list[str]:
        """The tasks of `args`, run into `log_dir`: the names of their logs' tasks."""
        self.run("inspect", "eval", *args, "--log-dir", log_dir, "--display", "none")
        headers = [
            read_eval_log(log, header_only=True) for log in list_eval_logs(str(self.root / log_dir))
        ]
        assert [h.status for h in headers] == ["success"] * len(headers), args
        return sorted(h.eval.task for h in headers)


def _constraints(path: Path) -> Path:
    """The running environment's versions, so the fresh venv resolves to what was tested."""
    pins = sorted(
        f"{d.metadata['Name']}=={d.version}"
        for d in importlib.metadata.distributions()
        if d.metadata["Name"] and d.metadata["Name"].lower() != "agentsense"
    )
    path.write_text("\n".join(dict.fromkeys(pins)) + "\n", encoding="utf-8")
    return path


def core_runs(installed: Installed) -> list[str]:
    """Every task but gca on the core, then the construct log exported: the tasks that ran."""
    ran = [
        task for name, args in CORE_RUNS.items() for task in installed.eval(f"logs/{name}", *args)
    ]
    exported = installed.run("agentsense", "scenarios", "logs/bundled", "--out", "scenarios.jsonl")
    assert "Wrote 20 scenarios to scenarios.jsonl (validated)." in exported.stdout
    assert "closing-time.txt" in exported.stdout and "lines: " in exported.stdout
    return sorted(ran)


class Venvs:
    """`core-3.X`: the wheel alone on each supported Python, with its core runs (task names);
    `report`: the wheel with `[report]` on the running Python."""

    def __init__(self, root: Path, wheel: Path, constraints: Path) -> None:
        def core(minor: str) -> Callable[[], tuple[Installed, list[str]]]:
            def build() -> tuple[Installed, list[str]]:
                installed = Installed(root / f"core-{minor}", PYTHONS[minor], wheel, constraints)
                installed.install()
                return installed, core_runs(installed)

            return build

        def report() -> tuple[Installed, list[str]]:
            installed = Installed(root / "report", sys.executable, wheel, constraints)
            installed.install("report")
            return installed, []

        jobs: dict[str, Callable[[], tuple[Installed, list[str]]]] = {
            f"core-{minor}": core(minor) for minor in PYTHONS
        }
        jobs["report"] = report
        with ThreadPoolExecutor(len(jobs)) as pool:
            futures = {name: pool.submit(job) for name, job in jobs.items()}
            self.done: dict[str, tuple[Installed, list[str]]] = {
                name: future.result() for name, future in futures.items()
            }

    def __getitem__(self, name: str) -> Installed:
        return self.done[name][0]

    def ran(self, name: str) -> list[str]:
        return self.done[name][1]


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> Venvs:
    root = tmp_path_factory.mktemp("wheel")
    tree = root / "tree"  # a copy: building in place would write into the checkout
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", root / "dist", tree], check=True, timeout=600)
    (wheel,) = (root / "dist").glob("agentsense-*.whl")
    return Venvs(root, wheel, _constraints(root / "constraints.txt"))


@pytest.fixture(scope="module")
def core(venvs: Venvs) -> Installed:
    return venvs[f"core-{RUNNING}"]


def test_the_installed_package_is_the_wheel_not_the_checkout(core: Installed) -> None:
    where = core.run("python", "-c", "import agentsense; print(agentsense.__file__)")
    assert str(core.root / "venv") in where.stdout, where.stdout


def test_every_non_python_file_under_src_is_in_the_wheel(core: Installed) -> None:
    names = set(zipfile.ZipFile(core.wheel).namelist())
    data = [
        p.relative_to(SOURCE.parent).as_posix()
        for p in SOURCE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    ]
    assert data and sorted(set(data) - names) == []
    # ... and every file the code opens through importlib.resources is one of them.
    opened = []
    for module in SOURCE.rglob("*.py"):
        text = module.read_text(encoding="utf-8")
        for package, parts in re.findall(
            r'resources\.files\("([\w.]+)"\)((?:\s*/\s*"[^"]+")+)', text
        ):
            path = "/".join([*package.split("."), *re.findall(r'"([^"]+)"', parts)])
            opened.append(path)
    assert len(opened) >= 5 and sorted(set(opened) - names) == []


def test_the_core_holds_no_module_of_an_extra(core: Installed) -> None:
    probe = f"from importlib.util import find_spec; print([m for m in {ABSENT!r} if find_spec(m)])"
    assert core.run("python", "-c", probe).stdout.strip() == "[]"


@pytest.mark.parametrize("minor", sorted(PYTHONS))
def test_every_task_but_gca_runs_on_the_core_on_every_supported_python(
    venvs: Venvs, minor: str
) -> None:
    tasks = sorted(f"agentsense/{name}" for name in agentsense.__all__ if name != "gca")
    assert venvs.ran(f"core-{minor}") == tasks


def test_the_report_without_its_extra_stops_with_the_extras_line(core: Installed) -> None:
    """The other commands of `cli.EXTRA_OF` stop the same way (tests/test_extras.py)."""
    done = core.attempt("agentsense", "report", "logs", "--out", "report")
    assert (done.returncode, done.stdout) == (2, ""), done.stderr
    assert done.stderr == (
        "agentsense report: error: this command needs the report extra: "
        "pip install 'agentsense[report]'\n"
    )
    assert not (core.root / "report").exists()


def test_gca_without_its_extra_stops_with_the_extras_line(core: Installed) -> None:
    done = core.attempt("inspect", "eval", *GCA, "--log-dir", "logs/gca")  # the default display
    assert done.returncode != 0
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert lines == ["agentsense/gca needs the gca extra: pip install 'agentsense[gca]'"]
    assert not (core.root / "logs" / "gca").exists()


def test_with_report_the_report_is_written_from_the_cores_logs(
    venvs: Venvs, core: Installed
) -> None:
    report = venvs["report"]
    done = report.run("agentsense", "report", str(core.root / "logs"), "--out", "report")
    assert "Wrote report/report.md:" in done.stdout, done.stdout
    assert (report.root / "report" / "report.md").stat().st_size > 0


def test_with_gca_added_the_gca_task_runs(venvs: Venvs) -> None:
    report = venvs["report"]
    report.install("report,gca")
    assert report.eval("logs/gca", *GCA) == ["agentsense/gca"]


@pytest.mark.parametrize("provider", ["vllm", "openai-api/vllm"])
def test_the_core_runs_a_task_against_a_server(
    core: Installed, stub: StubServer, provider: str
) -> None:
    """The README's server routes on the core alone: Inspect's `vllm/` provider and the parity
    path `openai-api/vllm/`, both to the stub (openai is a core dependency; no vllm package)."""
    core.env.update({"VLLM_BASE_URL": stub.base_url, "VLLM_API_KEY": "local"})
    args = ["agentsense/goal", "-T", "dataset=demo", "--limit", "1", "--model", f"{provider}/agent"]
    judges = [f"{provider}/judge-{x}" for x in "abc"]
    log_dir = f"server-logs/{provider.replace('/', '-')}"  # apart from the report's `logs`
    ran = core.eval(log_dir, *args, "--model-role", "judge=" + ",".join(judges))
    assert ran == ["agentsense/goal"]
    assert {r.model for r in stub.chat_records()} == {"agent", "judge-a", "judge-b", "judge-c"}
