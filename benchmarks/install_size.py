"""What `pip install agentsense` costs above `pip install inspect-ai openai` alone.

    python benchmarks/install_size.py [--python python3.11] [--extras report gca] [--json OUT]

Builds the project's wheel (`pip wheel --no-deps`), then fills fresh virtual environments one
after the other (never two at once: the seconds would share the cores):

- `inspect-ai openai`: the two requirements as pyproject.toml states them, nothing else;
- `agentsense`: the wheel alone (the core);
- `agentsense[EXTRA]` for each `--extras` name.

Per environment it prints the packages installed (distributions in site-packages, pip and
setuptools left out: a fresh venv has them before anything is installed), the size of
site-packages on disk (MB = 10^6 bytes, allocated blocks, byte-compiled files included, as
`pip install` leaves them) and the seconds `pip install` took. Then the core's excess over the
first row, against the target of issue 52 (at most 15 MB and 3 packages).

pip's cache is the caller's: run it once to warm the cache, then again for seconds that measure
the install rather than the downloads. No model, no network beyond the package index.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A fresh venv holds these before anything is installed.
BOOTSTRAP = {"pip", "setuptools"}
TARGET_MB, TARGET_PACKAGES = 15.0, 3


@dataclass
class Environment:
    name: str
    packages: int
    mb: float
    seconds: float
    names: list[str]


def base_requirements() -> list[str]:
    """inspect-ai's and openai's lines of pyproject.toml, as the core states them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [r for r in project["dependencies"] if re.match(r"(inspect-ai|openai)\b", r)]
    assert len(wanted) == 2, wanted
    return wanted


def build_wheel(out: Path) -> Path:
    """The project's wheel, built from a copy (building in place writes into the checkout)."""
    tree = out / "tree"
    tree.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    shutil.copytree(ROOT / "src", tree / "src", ignore=shutil.ignore_patterns("__pycache__"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", out / "dist", tree], check=True)
    (wheel,) = (out / "dist").glob("agentsense-*.whl")
    return wheel


def site_packages(venv: Path) -> Path:
    (folder,) = venv.glob("lib/python3*/site-packages")
    return folder


def disk_bytes(folder: Path) -> int:
    """Allocated bytes of every file under `folder` (as `du`), hard links counted once."""
    seen: set[int] = set()
    total = 0
    for path in folder.rglob("*"):
        stat = path.lstat()
        if stat.st_ino not in seen:
            seen.add(stat.st_ino)
            total += stat.st_blocks * 512
    return total


def distributions(folder: Path) -> list[str]:
    names = []
    for info in folder.glob("*.dist-info"):
        name = re.sub(r"[-_.]+", "-", info.name.removesuffix(".dist-info").rsplit("-", 1)[0])
        name = name.lower()
        if name not in BOOTSTRAP:
            names.append(name)
    return sorted(names)


def measure(python: str, name: str, requirements: list[str], work: Path) -> Environment:
    venv = work / re.sub(r"\W+", "-", name)
    subprocess.run([python, "-m", "venv", venv], check=True)
    install = [venv / "bin" / "python", "-m", "pip", "--disable-pip-version-check", "-q"]
    started = time.monotonic()
    done = subprocess.run([*install, "install", *requirements], capture_output=True, text=True)
    if done.returncode:  # pip's output only then: it warns about every index folder it skips
        sys.exit(f"pip install {' '.join(requirements)} failed:\n{done.stderr[-3000:]}")
    seconds = time.monotonic() - started
    folder = site_packages(venv)
    names = distributions(folder)
    environment = Environment(name, len(names), disk_bytes(folder) / 1e6, seconds, names)
    shutil.rmtree(venv)
    return environment


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the venvs' Python")
    parser.add_argument("--extras", nargs="*", default=[], help="also agentsense[EXTRA] each")
    parser.add_argument("--json", type=Path, help="write every environment, names included")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="install-size-") as tmp:
        work = Path(tmp)
        wheel = str(build_wheel(work))
        plan = [("inspect-ai openai", base_requirements()), ("agentsense", [wheel])]
        plan += [(f"agentsense[{extra}]", [f"{wheel}[{extra}]"]) for extra in args.extras]
        version = subprocess.run(
            [args.python, "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        print(f"Python {version}; fresh venvs, one after the other, pip's cache as it is.\n")
        print(f"{'install':<26} {'packages':>8} {'MB':>8} {'pip s':>7}")
        rows = []
        for name, requirements in plan:
            row = measure(args.python, name, requirements, work)
            rows.append(row)
            print(f"{row.name:<26} {row.packages:>8} {row.mb:>8.1f} {row.seconds:>7.1f}")
    base, core = rows[0], rows[1]
    extra_mb, extra_packages = core.mb - base.mb, core.packages - base.packages
    within = extra_mb <= TARGET_MB and extra_packages <= TARGET_PACKAGES
    added = sorted(set(core.names) - set(base.names))
    print(
        f"\nThe core above inspect-ai openai: {extra_packages:+d} packages ({', '.join(added)}), "
        f"{extra_mb:+.1f} MB; target at most {TARGET_PACKAGES} packages and {TARGET_MB:g} MB: "
        f"{'within' if within else 'NOT within'}."
    )
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
