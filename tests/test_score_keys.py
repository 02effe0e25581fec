"""The score keys are declared once (`agentsense.sense.score_keys`) and spelled nowhere else.

The walk reads every module of the package except `score_keys.py` and fails on a string literal
(docstrings and `__all__` aside) that is a declared score key, a distinctive score-metadata key,
the question kind `others`, the per-judge key prefix, or builds a per-judge key or an `other:`
asker by hand. The common words among the metadata keys (`judges`, `cast`, `roles`, `protocol`)
are flagged only where they index a score's metadata (`metadata[...]`, `metadata.get(...)`, a
`metadata` dict). Dataset field names that share a spelling with a score key are allowed where
listed below, each with its reason.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from agentsense.sense import score_keys
from agentsense.sense.scorers import goal

PACKAGE = Path(score_keys.__file__).parent.parent
DECLARATION = Path(score_keys.__file__)

FLAGGED = {
    *score_keys.SCORE_KEYS,
    *score_keys.METADATA_KEYS,
    score_keys.OTHERS_QUESTION,
    score_keys.JUDGE_KEY_GLOB,
    score_keys.OTHER_ASKER_PREFIX,
    score_keys.JUDGE_PREFIX,
}
COMMON = set(score_keys.COMMON_METADATA_KEYS)
PREFIXES = (score_keys.JUDGE_PREFIX, score_keys.OTHER_ASKER_PREFIX)

# (module under src/agentsense, literal) -> why the literal is not a score key there.
ALLOWED: dict[tuple[str, str], str] = {
    (
        "sense/dataset/schema.py",
        "self",
    ): "the record field `eval_questions.self` (official JSON key)",
    ("sense/dataset/validation.py", "self"): "names the record field `eval_questions.self`",
    ("sense/dataset/validation.py", "others"): "names the record field `eval_questions.others`",
    ("construction/characters.py", "self"): "writes the record field `eval_questions.self`",
    ("construction/characters.py", "others"): "writes the record field `eval_questions.others`",
    ("engine/request_format.py", "protocol"): "the eval's metadata (`tasks.common.task_metadata`)",
    ("analysis/log_reader.py", "protocol"): "the eval's metadata (`tasks.common.task_metadata`)",
    ("sotopia/evaluation.py", "judge_"): "a Sotopia panel judge's key (`judge_1`, ...)",
    ("sotopia/evaluation.py", "judges"): "SOTOPIA-EVAL's score metadata: each judge's evaluation",
}


def _exempt(tree: ast.AST) -> set[int]:
    """Docstrings, and the names in `__all__` (a scorer may be named after its key)."""
    exempt = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            exempt.update(id(name) for name in ast.walk(node.value))
    return exempt


def _named_metadata(node: ast.AST) -> bool:
    """`metadata`, `x.metadata`, `score_metadata`, `(x.metadata or {})`, ... (by its name)."""
    if isinstance(node, ast.Call):
        return _named_metadata(node.func)
    if isinstance(node, ast.BoolOp):
        return any(_named_metadata(value) for value in node.values)
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return str(name).endswith("metadata")


def _metadata_keys(tree: ast.AST) -> set[int]:
    """The literals that index or build something named `...metadata`."""
    keys: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _named_metadata(node.value):
            keys.add(id(node.slice))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("get", "pop", "setdefault")
            and _named_metadata(node.func.value)
            and node.args
        ):
            keys.add(id(node.args[0]))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_named_metadata(t) for t in targets) and isinstance(node.value, ast.Dict):
                keys.update(id(key) for key in node.value.keys if key is not None)
        elif (
            isinstance(node, ast.keyword)
            and node.arg == "metadata"
            and isinstance(node.value, ast.Dict)
        ):
            keys.update(id(key) for key in node.value.keys if key is not None)
    return keys


def literal_keys(source: str, module: str) -> list[str]:
    """`module:line: 'literal'` for every score or metadata key spelled in `source`."""
    tree = ast.parse(source)
    exempt, metadata = _exempt(tree), _metadata_keys(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and node.values:
            exempt.update(id(part) for part in node.values)  # judged here, as one string
            first = node.values[0]
            if (
                isinstance(first, ast.Constant)
                and first.value in PREFIXES
                and (module, first.value) not in ALLOWED
            ):
                found.append(f"{module}:{node.lineno}: f{first.value!r}...")
            continue
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str):
            continue
        if id(node) in exempt or (module, node.value) in ALLOWED:
            continue
        if node.value in FLAGGED or (node.value in COMMON and id(node) in metadata):
            found.append(f"{module}:{node.lineno}: {node.value!r}")
    return found


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if path != DECLARATION)


def test_no_score_key_is_spelled_outside_its_declaration() -> None:
    found = [
        hit
        for path in modules()
        for hit in literal_keys(
            path.read_text(encoding="utf-8"), path.relative_to(PACKAGE).as_posix()
        )
    ]
    assert not found, "use the constants of agentsense.sense.score_keys:\n" + "\n".join(found)


def test_every_allowed_literal_still_occurs() -> None:
    """A stale allow-list entry would hide a key spelled there later."""
    for module, literal in ALLOWED:
        tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
        assert any(
            isinstance(node, ast.Constant) and node.value == literal for node in ast.walk(tree)
        ), (module, literal)


def test_the_walk_flags_each_kind_of_spelling() -> None:
    """The checker itself: each way of spelling a key by hand is caught, and unrelated words are
    not (so a passing walk means something)."""
    source = (
        '"""judge_majority in a docstring is fine."""\n'
        'a = scores["judge_majority"]\n'
        'b = row["mcq_answers"]\n'
        'c = f"judge_{1}"\n'
        'd = asker.startswith("other:")\n'
        'e = (score.metadata or {}).get("judges")\n'
        'f = run["judges"]\n'
        'metadata = {"cast": {}}\n'
        'g = "judge"\n'
        'h = {"self": 1}\n'
        '__all__ = ["mcq_accuracy"]\n'
    )
    lines = sorted(int(hit.split(":")[1]) for hit in literal_keys(source, "probe.py"))
    assert lines == [2, 3, 4, 5, 6, 8, 10]
    assert literal_keys('x = {"self": 1}\n', "sense/dataset/schema.py") == []


def test_every_declared_key_has_a_report_header() -> None:
    assert set(score_keys.SCORE_KEYS) <= set(score_keys.HEADERS)


def test_judge_aggregations_are_computed_for_every_declared_key() -> None:
    """Adding an aggregation: its key in `score_keys.JUDGE_AGGREGATIONS`, its computation in
    `scorers.goal.JUDGE_AGGREGATORS`; the two must name the same keys, in the same order."""
    assert list(goal.JUDGE_AGGREGATORS) == list(score_keys.JUDGE_AGGREGATIONS)
    for official in (True, False):
        for aggregate in goal.JUDGE_AGGREGATORS.values():
            assert math.isnan(aggregate([], official))


@pytest.mark.parametrize(
    ("kind", "interviewee", "character"),
    [("self", "Ann", "Ann"), ("others", "Bob", "Ann"), ("judge", "judge_2", "Ann")],
)
def test_askers_round_trip(kind: str, interviewee: str, character: str) -> None:
    asker = score_keys.asker_of(kind, interviewee)
    frame_kind, who = score_keys.answer_kind(asker, character)
    assert who == interviewee
    if kind != score_keys.JUDGE_QUESTION:
        assert frame_kind == score_keys.score_of_kind(kind)
