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
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).parent.parent / "src" / "agentsense"

# Layer of each top-level module or subpackage, bottom (0) to top. A module may import its own
# layer and the layers below it; docs/architecture.md says what each layer holds.
LAYERS: dict[str, int] = {
    # what every benchmark here runs on: scene loop, views, speakers, judges, roles, errors
    "engine": 0,
    # AgentSense: tasks, prompts, dataset, scorers, PSI, leakage tests, the paper's numbers
    "sense": 1,
    # the benchmarks built on AgentSense's scenes: CoSER GCA (and its critics on AgentSense
    # scenes), and the construction of AgentSense scenarios from screenplays; the task table,
    # which names every benchmark's entry as a string and imports none of them
    "coser": 2,
    "construction": 2,
    # Sotopia's episodes and SOTOPIA-EVAL on the engine (docs/sotopia.md)
    "sotopia": 2,
    "tasks": 2,
    # reading logs back and computing the paper's numbers
    "analysis": 3,
    # transcript scanners on Inspect Scout over the logs (docs/scanners.md; never imported by a run)
    "scanners": 3,
    "report": 4,
    # model providers: imported only when their model is asked for
    "smollm": 5,
    "standin": 5,
    # entry points
    "arguments": 6,
    "parts": 6,
    "logged_metrics": 6,
    "lazy": 6,
    "cli": 7,
    "_registry": 7,
    "__init__": 7,
}
BENCHMARKS = ("sense", "coser", "construction", "sotopia")
PROVIDERS = ("standin", "smollm")


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


def registrations(tree: ast.AST) -> set[int]:
    """The imports inside the functions of a package's `__init__`: a scorer or metric registered
    by name, whose body imports its implementation when it is made (`agentsense.sense`)."""
    return {
        id(node)
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef)
        for node in ast.walk(function)
        if isinstance(node, ast.Import | ast.ImportFrom)
    }


def imports(name: str, path: Path, known: dict[str, Path], deferred: bool = True) -> Iterator[str]:
    """The agentsense modules `name` imports; `deferred=False` leaves out registrations."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = registrations(tree) if path.name == "__init__.py" and not deferred else set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
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
def graph(deferred: bool = True) -> nx.DiGraph:
    known = modules()
    g: nx.DiGraph = nx.DiGraph()
    g.add_nodes_from(known)
    for name, path in known.items():
        g.add_edges_from((name, target) for target in imports(name, path, known, deferred))
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
    """A package's registrations import its implementation when a scorer is made, and the
    implementation imports the package's constants: the one deferred edge left out here (it is
    still held to the layers below)."""
    loops = nx.strongly_connected_components(graph(deferred=False))
    circles = [sorted(c) for c in loops if len(c) > 1]
    assert not circles, f"import circles: {circles}"


def test_no_import_against_the_layers() -> None:
    upward = [
        f"{a} (layer {layer(a)}) imports {b} (layer {layer(b)})"
        for a, b in graph().edges
        if layer(b) > layer(a)
    ]
    assert not upward, "imports against the layers:\n" + "\n".join(sorted(upward))


def test_scorers_import_no_solver() -> None:
    solvers = ("agentsense.sense.simulation", "agentsense.engine.scene_loop")
    edges = [
        (a, b)
        for a, b in graph().edges
        if a.startswith("agentsense.sense.scorers") and b.startswith(solvers)
    ]
    assert not edges, f"scorers importing solvers: {edges}"


def top(name: str) -> str:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_no_benchmark_imports_a_provider() -> None:
    """The stand-in and SmolLM are models a run may ask for, never code a benchmark needs."""
    edges = [(a, b) for a, b in graph().edges if top(a) in BENCHMARKS and top(b) in PROVIDERS]
    assert not edges, f"benchmark code importing a provider: {edges}"


def test_coser_and_construction_do_not_import_each_other() -> None:
    pair = {"coser", "construction"}
    edges = [(a, b) for a, b in graph().edges if {top(a), top(b)} == pair]
    assert not edges, f"coser and construction importing each other: {edges}"


def test_sotopia_imports_only_the_engine() -> None:
    """Sotopia is a benchmark of its own: no AgentSense, CoSER or construction code in it."""
    edges = [
        (a, b)
        for a, b in graph().edges
        if top(a) == "sotopia" and top(b) not in ("engine", "sotopia")
    ]
    assert not edges, f"sotopia importing another benchmark: {edges}"


TASK_DECORATORS = {"solver", "scorer", "metric"}


# Every module that builds tasks; a missing one fails here rather than leaving the test empty.
TASK_MODULES = [
    "tasks.py",
    "sense/tasks.py",
    "coser/task.py",
    "construction/construct_task.py",
    "construction/labelling_task.py",
]


@pytest.mark.parametrize("path", [PACKAGE / name for name in TASK_MODULES], ids=TASK_MODULES)
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
    """Two modules of one name in one folder tree make a reader guess which concept a file
    serves; across benchmark folders the same name is the same part (`prompts.py`)."""
    names = Counter(
        (p.relative_to(PACKAGE).parts[0], p.name)
        for p in PACKAGE.rglob("*.py")
        if p.name not in {"__init__.py", "__main__.py"}
    )
    assert not [n for n, k in names.items() if k > 1], [n for n, k in names.items() if k > 1]


def test_no_source_file_is_a_big_room() -> None:
    big = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 520
    }
    assert not big, f"files over 520 lines: {big}"


# --- what a run loads --------------------------------------------------------------------------

LOADED = """
import sys
{setup}
names = sorted(m for m in sys.modules if m == "agentsense" or m.startswith("agentsense."))
print("\\n".join(names))
"""


def loaded(setup: str) -> list[str]:
    """The agentsense modules a fresh interpreter holds after `setup`."""
    run = subprocess.run(
        [sys.executable, "-c", LOADED.format(setup=setup)],
        capture_output=True,
        text=True,
        check=True,
    )
    return run.stdout.split()


def test_the_registry_loads_at_most_15_modules() -> None:
    """What Inspect imports for any `agentsense/...` name, and when it lists tasks."""
    names = loaded("import agentsense._registry")
    assert len(names) <= 15, names


def test_a_full_run_loads_no_other_benchmark_or_provider_code() -> None:
    """A `full` run on a served model: the registry, the task, its dataset, solver and scorer.
    The CoSER, construction and Sotopia packages are loaded for their registrations alone (their
    `__init__`, which names their scorers and metrics for `inspect score`)."""
    names = loaded(
        "import agentsense._registry\nfrom agentsense.tasks import full\nfull(dataset='demo')"
    )
    others = [n for n in names if top(n) in ("coser", "construction", "sotopia", *PROVIDERS)]
    assert others == ["agentsense.construction", "agentsense.coser", "agentsense.sotopia"], others
    assert len(names) <= 36, (len(names), names)  # 36th: engine.data_file, the file's hash


# --- no side doors ---------------------------------------------------------------------------

# The one place each is allowed, and why.
ARGV_READERS = {
    "agentsense.cli": "the `agentsense` command's own arguments",
    # Inspect's CLI drops an empty entry of a role list (`judge=a,b,`) before any API shows the
    # roles, so only the command line can tell that three judges were meant.
    "agentsense.engine.strict": "inspect_command_line",
}
ENVIRONMENT_WRITERS = {
    # torch's OpenMP reads OMP_WAIT_POLICY once, when torch is loaded: no API sets it; spinning
    # threads made SmolLM 10-30x slower on a shared 2-core machine (docs/smollm.md).
    "agentsense.smollm.provider": "OMP_WAIT_POLICY",
}
PRIVATE_INSPECT = {
    # Inspect prints a PrerequisiteError without a traceback and exports no public one.
    "agentsense.engine.errors": "inspect_ai._util.error",
}


def side_doors(name: str, path: Path) -> Iterator[str]:
    """`sys.argv`, writes to `os.environ` and private `inspect_ai` imports in one module."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and ast.unparse(node) == "sys.argv":
            yield "sys.argv"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
            writes = {"setdefault", "update", "pop", "clear", "__setitem__"}
            if node.func.attr in writes and ast.unparse(target) == "os.environ":
                yield "os.environ"
            if node.func.attr in ("putenv", "unsetenv") and ast.unparse(target) == "os":
                yield "os.environ"
        if isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "os.environ":
                    yield "os.environ"
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("inspect_ai._"):
            yield node.module or ""


def test_no_side_doors_beyond_the_documented_ones() -> None:
    """Settings are passed explicitly: the command line is read by the CLI, the environment is
    read and never written, and only public `inspect_ai` APIs are imported; each exception is
    listed above with its reason."""
    allowed = {
        "sys.argv": set(ARGV_READERS),
        "os.environ": set(ENVIRONMENT_WRITERS),
        **{module: {name} for name, module in PRIVATE_INSPECT.items()},
    }
    found = sorted(
        f"{name}: {door}"
        for name, path in modules().items()
        for door in side_doors(name, path)
        if name not in allowed.get(door, set())
    )
    assert not found, "side doors:\n" + "\n".join(found)
