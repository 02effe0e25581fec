"""The killed share per module of a mutmut run (scripts/mutation.sh), as docs/testing.md shows it.

Reads mutmut's results (mutants/**/*.meta) for the mutant names matching the patterns given as
arguments, and the equivalent mutants listed in docs/testing.md under "Equivalent mutants" (each
list item names mutants in backticks: a full name, then `_N` for more of the same function, and
`(before: ...)` for names in an older measurement). Timeouts count as killed, as mutmut counts them;
a mutant no test reaches counts as survived. Prints a Markdown table and the survivors.
"""

from __future__ import annotations

import fnmatch
import json
import re
import sys
from collections import Counter
from pathlib import Path

KILLED = {1, 3, 24, -24, 36, 152, 255}
SURVIVED = {0, 5, 33}
DOCS = Path("docs/testing.md")
NAME = re.compile(r"`(agentsense\.[^`]+__mutmut_)(\d+)`|`_(\d+)`")


def equivalent_names(text: str) -> set[str]:
    """Every mutant the "Equivalent mutants" section names (`_N` continues the last full name)."""
    section = text.partition("### Equivalent mutants")[2].partition("\n## ")[0]
    names: set[str] = set()
    for item in section.split("\n- ")[1:]:
        base = ""
        for full, number, short in NAME.findall(item):
            base = full or base
            names.add(f"{base}{number or short}")
    return names


def results(patterns: list[str]) -> dict[str, int | None]:
    found: dict[str, int | None] = {}
    for meta in sorted(Path("mutants").glob("**/*.meta")):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        found |= {k: v for k, v in codes.items() if any(fnmatch.fnmatch(k, p) for p in patterns)}
    return found


def module_of(name: str) -> str:
    return name.partition("__mutmut_")[0].rpartition(".")[0]


def main(patterns: list[str]) -> int:
    codes = results(patterns)
    equivalent = equivalent_names(DOCS.read_text() if DOCS.exists() else "")
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
    header = "| module | mutants | killed | survived | equivalent | killed share |"
    rows = [header, "|---" * 6 + "|"]
    total: Counter[str] = Counter()
    for module, count in [*sorted(counts.items()), ("all", None)]:
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
    print("\n".join(rows))
    print(f"\n{len(survivors)} survivor(s) not listed as equivalent:")
    print("\n".join(survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["agentsense.*"]))
