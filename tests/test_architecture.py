"""The package's import graph follows the layers of docs/architecture.md.

Every `import` in every module counts, wherever it stands (a late import inside a function is
still an edge, and is how circles used to hide). The test fails on an import circle, on an edge
from a lower layer to a higher one, on a scorer importing a solver, on a tasks/ module defining
anything but tasks and their arguments, and on two source files sharing a name.
"""

from __future__ import annotations

import ast
import functools
import importlib
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).parent.parent / "src" / "agentsense"

# Layer of each top-level module or subpackage, bottom (0) to top. A module may import its own
# layer and the layers below it; docs/architecture.md says what each layer holds.
LAYERS: dict[str, int] = {
    # base: shared by every layer
    "errors": 0,
    "protocol": 0,
    "prompts": 0,
    "seeding": 0,
    "cache": 0,
    "version": 0,
    "transcript": 0,
    "request_format": 0,
    "metrics": 0,
    "score_keys": 0,
    "reply_json": 0,
    "roles": 0,
    "console": 0,
    "sheets": 0,
    # scenes and the datasets built from screenplays
    "dataset": 1,
    "construction": 2,
    "models": 3,
    "stub": 3,
    # one scenario's conversation, personas and interviews
    "scenario": 4,
    # simulation
    "solvers": 5,
    # scoring, and the benchmarks built on the same engine
    "scorers": 6,
    "leakage": 6,
    "gca": 6,
    # reading logs back and computing the paper's numbers
    "analysis": 7,
    "reference": 7,  # the paper's published numbers and model names, read by the report
    "report": 8,
    # entry points
    "tasks": 9,
    "cli": 10,
    "_registry": 10,
    "__init__": 10,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The agentsense module `name` is, or the nearest package that holds it."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [_resolve(alias.name, known) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from pkg import mod` imports the module pkg.mod where there is one, else pkg
            targets = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else _resolve(base, known)
                for a in node.names
            ]
        else:
            continue
        yield from (t for t in targets if t and t.startswith("agentsense") and t != name)


@functools.cache
def graph() -> nx.DiGraph:
    known = modules()
    g: nx.DiGraph = nx.DiGraph()
    g.add_nodes_from(known)
    for name, path in known.items():
        g.add_edges_from((name, target) for target in imports(name, path, known))
    return g


def layer(name: str) -> int:
    parts = name.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    if top not in LAYERS:
        raise AssertionError(
            f"{name}: no layer for '{top}'; add it to LAYERS and docs/architecture.md"
        )
    return LAYERS[top]


def test_every_module_has_a_layer() -> None:
    for name in modules():
        layer(name)


@pytest.mark.parametrize("name", sorted(modules()))
def test_every_module_imports(name: str) -> None:
    """mypy lets a missing submodule through (`ignore_missing_imports`); an import does not."""
    importlib.import_module(name)


def test_no_import_circle() -> None:
    circles = [sorted(c) for c in nx.strongly_connected_components(graph()) if len(c) > 1]
    assert not circles, f"import circles: {circles}"


def test_no_import_against_the_layers() -> None:
    upward = [
        f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
        for a, b in graph().edges
        if layer(b) > layer(a)
    ]
    assert not upward, "imports against the layers:\n" + "\n".join(sorted(upward))


def test_scorers_import_no_solver() -> None:
    edges = [
        (a, b)
        for a, b in graph().edges
        if a.startswith("agentsense.scorers") and b.startswith("agentsense.solvers")
    ]
    assert not edges, f"scorers importing solvers: {edges}"


TASK_DECORATORS = {"solver", "scorer", "metric"}


@pytest.mark.parametrize("path", sorted((PACKAGE / "tasks").glob("*.py")), ids=lambda p: p.name)
def test_tasks_hold_only_tasks(path: Path) -> None:
    """A solver, scorer, metric or store model belongs in the module of its concept."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if isinstance(target, ast.Name) and target.id in TASK_DECORATORS:
                    found.append(f"@{target.id} {node.name}")
        if isinstance(node, ast.ClassDef):
            bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
            if "StoreModel" in bases:
                found.append(f"store {node.name}")
    assert not found, f"{path.name} defines {found}"


def test_file_names_are_unique() -> None:
    """Two modules of one name make a reader guess which concept a file serves."""
    names = Counter(
        p.name
        for p in PACKAGE.rglob("*.py")
        if p.name not in {"__init__.py", "__main__.py"} and p.parent.name != "tasks"
    )
    assert not [n for n, k in names.items() if k > 1], [n for n, k in names.items() if k > 1]


def test_no_source_file_is_a_big_room() -> None:
    big = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 520
    }
    assert not big, f"files over 520 lines: {big}"
