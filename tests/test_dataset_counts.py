"""`agentsense stats DATASET`: the counts of Table 3 / Figure 4a, checked against the demo file
counted here independently (plain JSON, no project code)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import matplotlib.image
import pandas as pd
import pytest

from agentsense.cli import main
from agentsense.sense.dataset.samples import demo_path

# App. B.3 Table 5: the eight goal categories under their ERG needs, in the paper's order.
NEEDS = {
    "existence": ["Information Acquisition", "Information Provision"],
    "relatedness": ["Relationship Building", "Relationship Maintenance", "Identity Recognition"],
    "growth": ["Cooperation", "Competition", "Conflict Resolution"],
}
CATEGORIES = [category for categories in NEEDS.values() for category in categories]


def demo_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in demo_path().read_text().splitlines() if line.strip()]


def count_by_hand(records: list[dict[str, Any]]) -> dict[str, int]:
    characters = [c for r in records for c in r["characters"]]
    goals = [g for c in characters for g in c["goals"]]
    types = Counter(r.get("scenario_type") for r in records)
    return {
        "templates": len({r["template_idx"] for r in records}),
        "scenarios": len(records),
        "characters": len(characters),
        "distinct_characters": len({(c["name"], str(c["profile"])) for c in characters}),
        "goals": len(goals),
        "judge_questions": sum(len(g["eval_questions"].get("judge", [])) for g in goals),
        "personal domain": types["personal domain"],
        "small society": types["small society"],
        "large society": types["large society"],
        "scenarios_with_private_info": sum(
            any(c.get("private_info") for c in r["characters"]) for r in records
        ),
        "characters_with_private_info": sum(bool(c.get("private_info")) for c in characters),
        "mcqs": sum(len(c.get("info_reason_questions", [])) for c in characters),
        "scenarios_with_mcqs": sum(
            any(c.get("info_reason_questions") for c in r["characters"]) for r in records
        ),
    }


def categories_by_hand(records: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """category -> (goals, scenarios with such a goal)."""
    result = {}
    for category in CATEGORIES:
        goals = [
            g
            for r in records
            for c in r["characters"]
            for g in c["goals"]
            if g.get("category") == category
        ]
        scenes = sum(
            any(g.get("category") == category for c in r["characters"] for g in c["goals"])
            for r in records
        )
        result[category] = (len(goals), scenes)
    return result


def test_demo_counts_match_the_file_counted_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", "demo", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    counts = pd.read_csv(tmp_path / "counts.csv")
    assert list(counts["source"]) == ["demo"]  # no record carries a source: one row
    expected = count_by_hand(demo_records())
    got = counts.iloc[0]
    assert {key: int(got[key]) for key in expected} == expected
    assert expected["templates"] == 8 and expected["scenarios"] == 24  # as the README says
    assert got["untyped"] == 0
    categories = pd.read_csv(tmp_path / "goal_categories.csv")
    hand = categories_by_hand(demo_records())
    rows = categories[categories["category"].isin(CATEGORIES)]
    assert list(rows["category"]) == CATEGORIES
    assert {r.category: (r.goals, r.scenarios) for r in rows.itertuples()} == hand
    assert sum(goals for goals, _ in hand.values()) == expected["goals"]  # all categorised
    assert list(rows["need"]) == [need for need, names in NEEDS.items() for _ in names]
    assert f"| demo | 8 | 24 | {expected['characters']} |" in printed
    assert "| existence | Information Acquisition |" in printed
    assert (tmp_path / "stats.md").read_text().strip() == printed.split("\nWrote ")[0].strip()
    image = matplotlib.image.imread(tmp_path / "figures" / "goal_categories.png")
    assert image.shape[0] > 300 and image.shape[1] > 600


def test_counts_per_source_script_and_the_total(tmp_path: Path) -> None:
    """Records with `source.script` (as agentsense/construct writes) count per script; the
    Total row is their sum, and equals the counts of the whole file."""
    records = demo_records()
    for record in records:
        record["source"] = {"script": "Alpha" if int(record["template_idx"]) <= 4 else "Beta"}
        if record["sample_idx"] == 101:
            record.pop("scenario_type")  # one untyped scenario
    path = tmp_path / "two.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    assert main(["stats", str(path), "--out", str(tmp_path / "out")]) == 0
    counts = pd.read_csv(tmp_path / "out" / "counts.csv").set_index("source")
    assert list(counts.index) == ["Alpha", "Beta", "Total"]
    alpha = [r for r in records if r["source"]["script"] == "Alpha"]
    by_hand = count_by_hand(alpha)
    assert {key: int(counts.loc["Alpha", key]) for key in by_hand} == by_hand
    assert counts.loc["Alpha", "untyped"] == 1
    summed = counts.loc[["Alpha", "Beta"]].sum()
    for column in ("templates", "scenarios", "goals", "mcqs", "characters", "untyped"):
        assert counts.loc["Total", column] == summed[column]
    assert counts.loc["Total", "scenarios"] == len(records)


@pytest.mark.slow
def test_a_constructed_file_counts_under_its_script(tmp_path: Path) -> None:
    """A real build (agentsense/construct with the stand-in builder), exported as users do."""
    from inspect_ai import eval as inspect_eval

    from agentsense.construction.export import export_scenarios
    from agentsense.tasks import construct

    (log,) = inspect_eval(
        construct(), model="standin/persona/builder", log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "success"
    path = tmp_path / "built.jsonl"
    export_scenarios([str(tmp_path / "logs")], path, None, None)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert main(["stats", str(path), "--out", str(tmp_path / "o")]) == 0
    counts = pd.read_csv(tmp_path / "o" / "counts.csv")
    scripts = sorted({r["source"]["script"] for r in records})
    assert list(counts["source"]) == scripts  # one script: no Total row
    by_hand = count_by_hand(records)
    assert {key: int(counts.iloc[0][key]) for key in by_hand} == by_hand


def test_bad_datasets_are_refused_naming_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stats", str(tmp_path / "nowhere.jsonl")]) == 2
    assert "nowhere.jsonl" in capsys.readouterr().err
    record = demo_records()[0]
    record["characters"][0]["goals"][0]["category"] = "Friendship"
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert main(["stats", str(path), "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err
    assert "bad.jsonl:1" in error and "sample_idx=101" in error and "category" in error
    assert "Traceback" not in error and not (tmp_path / "o").exists()


@pytest.mark.slow
def test_stats_through_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`agentsense stats demo --out DIR` (cli.main; the installed command's exit status is
    test_strict_arguments' `agentsense args ful`)."""
    assert main(["stats", "demo", "--out", str(tmp_path)]) == 0
    assert "# Dataset statistics: demo" in capsys.readouterr().out
    assert (tmp_path / "figures" / "goal_categories.png").stat().st_size > 1000
