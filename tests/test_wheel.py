"""The wheel carries what the code reads: build it, install it (not editable) into a fresh venv,
and run the README's offline command of every task from there; and every non-Python file under
`src/` is in the wheel.

One venv for the module (CI time). Its dependencies are pinned to the versions of the running
environment (what was tested; pip's cache is the starting shell's, see conftest). The exported
scenarios are validated by `agentsense scenarios`; `agentsense/full` runs on the demo set.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[1]
SOURCE = ROOT / "src" / "agentsense"
JUDGES = "judge=standin/persona/judge-a,standin/persona/judge-b,standin/persona/judge-c"


class Installed:
    def __init__(self, root: Path, wheel: Path) -> None:
        self.root, self.wheel = root, wheel
        self.bin = root / "venv" / "bin"
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        self.env["PATH"] = f"{self.bin}{os.pathsep}{self.env.get('PATH', '')}"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.bin / args[0]), *args[1:]],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.root,
            timeout=900,
        )
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-3000:])
        return done

    def eval(self, log_dir: str, *args: str) -> None:
        self.run("inspect", "eval", *args, "--log-dir", log_dir, "--display", "none")
        (log,) = sorted((self.root / log_dir).glob("*.eval"))
        assert read_eval_log(str(log), header_only=True).status == "success", args


def _constraints(path: Path) -> Path:
    """The running environment's versions, so the fresh venv resolves to what was tested."""
    pins = sorted(
        f"{d.metadata['Name']}=={d.version}"
        for d in importlib.metadata.distributions()
        if d.metadata["Name"] and d.metadata["Name"].lower() != "agentsense"
    )
    path.write_text("\n".join(dict.fromkeys(pins)) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("wheel")
    tree = root / "tree"  # a copy: building in place would write into the checkout
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", root / "dist", tree], check=True, timeout=600)
    (wheel,) = (root / "dist").glob("agentsense-*.whl")
    subprocess.run([sys.executable, "-m", "venv", root / "venv"], check=True, timeout=300)
    python = root / "venv" / "bin" / "python"
    # No byte-compiling of ~120 packages up front: the first command compiles what it imports.
    install = [python, "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-compile"]
    constraints = _constraints(root / "constraints.txt")
    subprocess.run([*install, "-c", constraints, wheel], check=True, timeout=1800)
    return Installed(root, wheel)


def test_the_installed_package_is_the_wheel_not_the_checkout(installed: Installed) -> None:
    where = installed.run("python", "-c", "import agentsense; print(agentsense.__file__)")
    assert str(installed.root / "venv") in where.stdout, where.stdout


def test_every_non_python_file_under_src_is_in_the_wheel(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
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


def test_readme_offline_commands_of_every_task_run_from_the_wheel(installed: Installed) -> None:
    installed.eval("logs/build", "agentsense/construct", "--model", "standin/persona/builder")
    exported = installed.run("agentsense", "scenarios", "logs/build", "--out", "scenarios.jsonl")
    assert "Wrote 20 scenarios to scenarios.jsonl (validated)." in exported.stdout
    assert "closing-time.txt" in exported.stdout and "lines: " in exported.stdout
    demo = ["-T", "dataset=demo", "--limit", "1"]
    full = ["agentsense/full", *demo, "--model", "standin/persona/agent", "--model-role", JUDGES]
    installed.eval("logs/full", *full)
    installed.eval(
        "logs/judge_check",
        "agentsense/judge_check",
        "--model",
        "none",
        "--model-role",
        JUDGES,
        "--limit",
        "2",
    )
    gca = ["agentsense/gca", *demo, "--model", "standin/gca/actor"]
    roles = [
        "next_speaker=standin/gca/nsp",
        "environment=standin/gca/env",
        "critic=standin/gca/critic",
    ]
    installed.eval("logs/gca", *gca, *[x for role in roles for x in ("--model-role", role)])
