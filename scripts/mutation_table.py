"""The killed share per module of a mutmut run (scripts/mutation.sh), as docs/testing.md shows it.

    python scripts/mutation_table.py --snapshot PATTERN...   before a run: record in
                                                            mutants/measured.json the commit, the
                                                            mutated files' sha256 and the patterns
    python scripts/mutation_table.py --finish               after it: record when it ended
    python scripts/mutation_table.py                        print the table of the run
    python scripts/mutation_table.py --update-docs          ... and write it into docs/testing.md

Reads mutmut's results (mutants/**/*.meta) for the mutant names matching the run's patterns, and
the equivalent mutants listed in docs/testing.md under "Equivalent mutants" (each list item names
mutants in backticks: a full name, then `_N` for more of the same function). Timeouts count as
killed, as mutmut counts them; a mutant no test reaches counts as survived. Prints a Markdown
table, the survivors not listed as equivalent and the listed names this run does not confirm (no
such mutant, or killed: the numbering moves when a function changes); exits 1 when there are any.
After listing an equivalent mutant, `--update-docs` again rewrites the table without a new run.

The measured run's section of docs/testing.md records the sha256 of every file `[tool.mutmut]`
mutates; tests/test_mutation_record.py fails when a file differs from it (`stale_files`).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "testing.md"
PYPROJECT = ROOT / "pyproject.toml"
MEASURED = ROOT / "mutants" / "measured.json"
RERUN = "scripts/mutation.sh --update-docs"
BEGIN = f"<!-- Measured run: written by `{RERUN}` -->"
END = "<!-- /Measured run -->"

KILLED = {1, 3, 24, -24, 36, 152, 255}
SURVIVED = {0, 5, 33}
NAME = re.compile(r"`(agentsense\.[^`]+__mutmut_)(\d+)`|`_(\d+)`")
HASH_ROW = re.compile(r"^\| `([^`]+)` \| `([0-9a-f]{64})` \|$", re.MULTILINE)
COMMIT = re.compile(r"^Measured at commit `([0-9a-f]+)`", re.MULTILINE)


# --- the mutated files and their record ----------------------------------------------------------


def mutated_files() -> list[str]:
    """The files mutmut mutates (`[tool.mutmut] only_mutate`), relative to the repository."""
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    return list(config["tool"]["mutmut"]["only_mutate"])


def sha256_of(path: str) -> str:
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()


def section_of(text: str) -> str:
    """The measured run's section of docs/testing.md ("" when it has none)."""
    if BEGIN not in text or END not in text:
        return ""
    return text.split(BEGIN, 1)[1].split(END, 1)[0]


def recorded_hashes(text: str) -> dict[str, str]:
    return dict(HASH_ROW.findall(section_of(text)))


def stale_files(text: str) -> list[str]:
    """Why the measured run no longer describes the code: each mutated file whose content differs
    from the one measured, and the files added to or dropped from `only_mutate` since."""
    recorded = recorded_hashes(text)
    commit = COMMIT.search(section_of(text))
    measured = f"commit {commit.group(1)}" if commit else "no commit recorded"
    problems = []
    for path in mutated_files():
        if path not in recorded:
            problems.append(f"{path}: mutated but not in the measured run ({measured})")
        elif sha256_of(path) != recorded[path]:
            problems.append(f"{path}: changed since the measured run ({measured})")
    problems += [
        f"{path}: in the measured run ({measured}) but no longer mutated"
        for path in recorded
        if path not in mutated_files()
    ]
    return problems


def snapshot(patterns: list[str]) -> dict[str, object]:
    """What a run is about to measure: the commit, the files and functions it mutates and when
    it started."""
    files = mutated_files()
    commit = git("rev-parse", "--short", "HEAD")
    changed = git("status", "--porcelain", "--", *files).splitlines()
    return {
        "commit": commit,
        "uncommitted": [line[3:] for line in changed],
        "sha256": {path: sha256_of(path) for path in files},
        "patterns": patterns,
        "jobs": os.environ.get("JOBS", "2"),
        "cores": os.cpu_count(),
        "started": time.time(),
    }


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


# --- the results of a run ------------------------------------------------------------------------


def equivalent_names(text: str) -> set[str]:
    """Every mutant the "Equivalent mutants" section names (`_N` continues the last full name)."""
    section = re.split(r"\n#", text.partition("### Equivalent mutants")[2], maxsplit=1)[0]
    names: set[str] = set()
    for item in section.split("\n- ")[1:]:
        base = ""
        for full, number, short in NAME.findall(item):
            base = full or base
            names.add(f"{base}{number or short}")
    return names


def results(patterns: list[str]) -> dict[str, int | None]:
    found: dict[str, int | None] = {}
    for meta in sorted((ROOT / "mutants").glob("**/*.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        found |= {k: v for k, v in codes.items() if matches(k, patterns)}
    return found


def matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def module_of(name: str) -> str:
    return name.partition("__mutmut_")[0].rpartition(".")[0]


def tally(
    codes: dict[str, int | None], equivalent: set[str]
) -> tuple[dict[str, Counter[str]], list[str]]:
    """Per module: mutants, killed, survived, equivalent, unchecked; and the survivors."""
    counts: dict[str, Counter[str]] = {}
    survivors = []
    for name, code in sorted(codes.items()):
        count = counts.setdefault(module_of(name), Counter())
        count["mutants"] += 1
        if code in KILLED:  # killed first: a killed mutant is never equivalent
            count["killed"] += 1
        elif name in equivalent:
            count["equivalent"] += 1
        elif code in SURVIVED:
            count["survived"] += 1
            survivors.append(name)
        else:
            count["unchecked"] += 1
            survivors.append(f"{name} (exit code {code})")
    return counts, survivors


def table(counts: dict[str, Counter[str]]) -> str:
    rows = [
        "| module | mutants | killed | survived | equivalent | killed share |",
        "|---" * 6 + "|",
    ]
    total: Counter[str] = Counter()
    for module, count in [*sorted(counts.items()), ("**all**", None)]:
        if count is None:
            count = total
        else:
            total.update(count)
        judged = count["mutants"] - count["equivalent"]
        share = f"{100 * count['killed'] / judged:.1f}%" if judged else "-"
        unchecked = f" (+{count['unchecked']} unchecked)" if count["unchecked"] else ""
        rows.append(
            f"| {module} | {count['mutants']} | {count['killed']} | {count['survived']}"
            f"{unchecked} | {count['equivalent']} | {share} |"
        )
    return "\n".join(rows)


def unconfirmed(
    codes: dict[str, int | None], equivalent: set[str], patterns: list[str]
) -> list[str]:
    """The listed equivalent mutants of this run's functions that it does not confirm."""
    wrong = []
    for name in sorted(n for n in equivalent if matches(n, patterns)):
        if name not in codes:
            wrong.append(f"{name}: no such mutant in this run (renamed? see `mutmut results`)")
        elif codes[name] in KILLED:
            wrong.append(f"{name}: killed, so not equivalent")
    return wrong


# --- the measured run's section of docs/testing.md -----------------------------------------------


def section(taken: dict[str, object], counts: dict[str, Counter[str]], survivors: list[str]) -> str:
    """The measured run's section: commit, time, the table, survivors and the files' sha256."""
    commit = f"Measured at commit `{taken['commit']}`"
    uncommitted = taken["uncommitted"]
    if isinstance(uncommitted, list) and uncommitted:
        commit += f" with uncommitted changes to {', '.join(uncommitted)}"
    started = float(str(taken["started"]))
    minutes = (float(str(taken["finished"])) - started) / 60
    day = time.strftime("%Y-%m-%d", time.gmtime(started))
    mutants = sum(count["mutants"] for count in counts.values())
    hashes = taken["sha256"]
    assert isinstance(hashes, dict)
    return "\n".join(
        [
            BEGIN,
            f"{commit} on {day}: {mutants} mutants in {minutes:.1f} minutes on",
            f"{taken['cores']} cores, {taken['jobs']} mutants at a time under `nice`.",
            "",
            table(counts),
            "",
            f"Survivors not listed as equivalent: {len(survivors) or 'none'}.",
            *(f"- `{name}`" for name in survivors),
            "",
            "The files mutated, as measured (tests/test_mutation_record.py fails when one of",
            f"them differs: rerun `{RERUN}`):",
            "",
            "| file | sha256 |",
            "|---|---|",
            *(f"| `{path}` | `{digest}` |" for path, digest in sorted(hashes.items())),
            END,
        ]
    )


def update_docs(text: str, new_section: str) -> str:
    start, stop = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + new_section + text[stop:]


def main(args: list[str]) -> int:
    if args[:1] == ["--snapshot"]:
        MEASURED.parent.mkdir(exist_ok=True)
        MEASURED.write_text(json.dumps(snapshot(args[1:]), indent=1))
        return 0
    taken = json.loads(MEASURED.read_text()) if MEASURED.exists() else None
    if args[:1] == ["--finish"]:
        assert taken is not None, f"no {MEASURED}: start the run with --snapshot"
        MEASURED.write_text(json.dumps(taken | {"finished": time.time()}, indent=1))
        return 0
    update = args[:1] == ["--update-docs"]
    given = args[1:] if update else args
    patterns = given or (taken or {}).get("patterns") or ["agentsense.*"]
    codes = results(patterns)
    text = DOCS.read_text(encoding="utf-8")
    equivalent = equivalent_names(text)
    counts, survivors = tally(codes, equivalent)
    print(table(counts))
    print(f"\n{len(survivors)} survivor(s) not listed as equivalent:")
    print("\n".join(survivors))
    wrong = unconfirmed(codes, equivalent, patterns)
    if wrong:
        print(f"\n{len(wrong)} listed equivalent mutant(s) not confirmed by this run:")
        print("\n".join(wrong))
    if update:
        problem = cannot_record(taken)
        if problem:
            print(f"\nnot writing {DOCS.relative_to(ROOT)}: {problem}")
            return 1
        assert taken is not None
        DOCS.write_text(update_docs(text, section(taken, counts, survivors)), encoding="utf-8")
        print(f"\nwrote the measured run into {DOCS.relative_to(ROOT)}")
    if survivors or wrong:
        print(
            "\nTo do: kill each survivor with a test of the behaviour it changes, or list it "
            f"under 'Equivalent mutants' in {DOCS.relative_to(ROOT)} with why (`mutmut show "
            "NAME`); fix the names not confirmed; then `python scripts/mutation_table.py "
            "--update-docs`."
        )
        return 1
    return 0


def cannot_record(taken: dict[str, object] | None) -> str | None:
    """Why this run cannot be recorded as the measured one (None when it can)."""
    if taken is None or "finished" not in taken:
        return f"no finished run recorded in {MEASURED.relative_to(ROOT)} (run {RERUN})"
    hashes = taken["sha256"]
    assert isinstance(hashes, dict)
    if set(hashes) != set(mutated_files()):
        return "[tool.mutmut] only_mutate changed since the run: rerun it"
    changed = [path for path, digest in hashes.items() if sha256_of(path) != digest]
    if changed:
        return f"changed since the run started: {', '.join(changed)}; rerun it"
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
