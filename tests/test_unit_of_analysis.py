"""The report's unit of analysis on hand-made data: each scene once (docs/analysis.md).

`log_merge` keeps one log per eval id and each sample (id, epoch) of a run once, whichever pieces
hold it; `report.frames` pools every conversation of a scene in a group into one scene row (and a
character's goals into one row per epoch, then one over epochs). Expected values are worked out
by hand here; the end-to-end checks on real logs are in tests/test_report_*.py.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from agentsense.analysis.log_merge import (
    LogData,
    latest_versions,
    merge_logs,
    signature,
)
from agentsense.engine.errors import ReportError
from agentsense.report.frames import (
    CONVERSATIONS,
    SCENE_ATTRIBUTES,
    character_units,
    scene_units,
)
from agentsense.report.frames import (
    _with_templates as with_templates,
)

# --- log_merge: one log per eval id, each sample once -------------------------------------------


def log(
    name: str,
    samples: dict[tuple[str, int], float],
    *,
    eval_id: str | None = None,
    status: str = "success",
    created: str = "2026-01-01",
    scorers: tuple[str, ...] = ("goal_and_mcq",),
    config: str = "c",
    judges: str | None = None,
    scoring: str | None = None,
) -> LogData:
    """A log of `samples` ((id, epoch) -> self score), with a row in every frame per sample."""
    rows: dict[str, list[dict[str, Any]]] = {
        frame: [{"log": name, "id": i, "epoch": e, "self": v} for (i, e), v in samples.items()]
        for frame in ("scenes", "goals", "mcqs", "answers")
    }
    run = {
        "log": name,
        "eval_id": eval_id or name,
        "created": created,
        "status": status,
        "config": config,
        "task": "full",
        "model": "m",
        "judges": judges,
        "scoring": scoring,
    }
    signatures = {key: signature({"self": v}) for key, v in samples.items()}
    return LogData(run, list(scorers), signatures, rows)


def kept(merged_rows: list[dict[str, Any]]) -> list[tuple[str, int, float, str]]:
    return sorted((r["id"], r["epoch"], r["self"], r["log"]) for r in merged_rows)


def test_signature_is_order_free_and_nan_is_null() -> None:
    assert signature({"a": 1.0, "b": 0.0}) == signature({"b": 0.0, "a": 1.0})
    assert signature({"a": math.nan}) == signature({"a": None})
    assert signature({"a": math.nan}) != signature({"a": 0.0})
    assert signature({"a": 1.0}) != signature({"a": 0.0})
    assert signature({"n": np.int64(2)}) == signature({"n": "2"})  # not JSON: compared as text


def test_one_log_per_eval_id_finished_then_more_scorings_then_newest() -> None:
    error = log("a.eval", {("1", 1): 0.0}, eval_id="e", status="error", created="2026-01-03")
    done = log("b.eval", {("1", 1): 0.0}, eval_id="e", created="2026-01-01")
    rescored = log("c.eval", {("1", 1): 0.0}, eval_id="e", created="2026-01-01", scorers=("a", "b"))
    newer = log("d.eval", {("1", 1): 0.0}, eval_id="e", created="2026-01-02")
    other = log("x.eval", {("1", 1): 0.0}, eval_id="f", status="error", config="x")
    assert [v.name for v in latest_versions([error, done])[0]] == ["b.eval"]
    assert [v.name for v in latest_versions([done, rescored])[0]] == ["c.eval"]
    assert [v.name for v in latest_versions([newer, done])[0]] == ["d.eval"]
    chosen, notes = latest_versions([error, done, other])
    assert sorted(v.name for v in chosen) == ["b.eval", "x.eval"]
    assert notes == [
        "a.eval: an older version of b.eval (same eval id: re-scored or retried), left out."
    ]
    merged = merge_logs([error, done, other])
    assert sorted(run["log"] for run in merged.runs) == ["b.eval", "x.eval"]
    assert merged.notes[0].startswith("a.eval: an older version of b.eval")


def test_pieces_of_one_run_keep_each_sample_once_from_the_newest_piece() -> None:
    old = log("a.eval", {("1", 1): 1.0, ("2", 1): 0.0}, created="2026-01-01")
    new = log("b.eval", {("2", 1): 0.0, ("2", 2): 1.0, ("3", 1): 0.5}, created="2026-01-02")
    merged = merge_logs([old, new])
    (run,) = merged.runs
    assert (run["log"], run["logs"], run["samples"], run["scenes"]) == ("b.eval", 2, 4, 3)
    assert run["log_files"] == ["a.eval", "b.eval"]
    assert run["status"] == "success"
    for frame in ("scenes", "goals", "mcqs", "answers"):
        # Sample 2 epoch 1 is in both pieces: once, from the newest; every row named by the run.
        assert kept(merged.rows[frame]) == [
            ("1", 1, 1.0, "b.eval"),
            ("2", 1, 0.0, "b.eval"),
            ("2", 2, 1.0, "b.eval"),
            ("3", 1, 0.5, "b.eval"),
        ]
    assert merged.notes == [
        "2 logs of one run configuration (full, m) merged into one run: 3 scenes, 4 samples "
        "(a.eval, b.eval); 1 identical duplicate sample(s) kept once."
    ]


def test_the_plan_of_a_split_run_is_the_union_of_its_pieces_plans() -> None:
    first = log("a.eval", {("1", 1): 1.0})
    second = log("b.eval", {("2", 1): 1.0}, created="2026-01-02")
    first.run["planned"] = [("1", 1), ("1", 2)]
    second.run["planned"] = [("1", 2), ("2", 1)]
    (run,) = merge_logs([first, second]).runs
    assert (run["planned_samples"], run["planned_scenes"]) == (3, 2)
    assert "planned" not in run
    (run,) = merge_logs([log("c.eval", {("1", 1): 1.0})]).runs
    assert (run["planned_samples"], run["planned_scenes"]) == (None, None)


def test_every_identical_duplicate_is_counted() -> None:
    samples = {("1", 1): 1.0, ("2", 1): 0.0}
    merged = merge_logs([log("a.eval", samples), log("b.eval", samples, created="2026-01-02")])
    assert merged.notes[0].endswith("; 2 identical duplicate sample(s) kept once.")


def test_a_single_log_is_its_own_run_without_a_note() -> None:
    merged = merge_logs([log("a.eval", {("1", 1): 1.0, ("1", 2): 0.0})])
    (run,) = merged.runs
    assert (run["logs"], run["samples"], run["scenes"]) == (1, 2, 1)
    assert merged.notes == []
    assert len(merged.rows["scenes"]) == 2


def test_conflicting_duplicates_are_refused_or_the_newest_kept() -> None:
    old = log("a.eval", {("1", 1): 1.0, ("2", 1): 1.0}, created="2026-01-01")
    new = log("b.eval", {("1", 1): 0.0, ("2", 1): 1.0}, created="2026-01-02")
    with pytest.raises(ReportError) as error:
        merge_logs([old, new])
    assert str(error.value) == (
        "The same sample appears in several logs of one run with different scores: sample 1 "
        "epoch 1 in b.eval and a.eval. Pass only one of these logs, or --prefer-newest to keep "
        "the newest log's scores."
    )
    merged = merge_logs([old, new], prefer_newest=True)
    assert kept(merged.rows["scenes"]) == [("1", 1, 0.0, "b.eval"), ("2", 1, 1.0, "b.eval")]
    assert merged.notes[0].endswith(
        "; 1 identical duplicate sample(s) kept once"
        "; 1 conflicting duplicate(s): the newest log's scores kept."
    )


def test_pooled_rows_keep_every_row_of_every_piece_named_by_the_run() -> None:
    # Calls and values are per log (tokens spent, judge repeats): a sample in two pieces keeps
    # the calls of both, unlike its scene row; every row is named by the run's newest log.
    old = log("a.eval", {("1", 1): 1.0}, created="2026-01-01")
    new = log("b.eval", {("1", 1): 1.0, ("2", 1): 0.0}, created="2026-01-02")
    for piece, tokens in ((old, (10,)), (new, (20, 30))):
        piece.rows["calls"] = [
            {"log": piece.name, "id": "1", "epoch": 1, "tokens": n} for n in tokens
        ]
        piece.rows["values"] = [{"log": piece.name, "id": "1", "epoch": 1, "value": tokens[0]}]
    merged = merge_logs([old, new])
    assert sorted((r["log"], r["tokens"]) for r in merged.rows["calls"]) == [
        ("b.eval", 10),
        ("b.eval", 20),
        ("b.eval", 30),
    ]
    assert sorted((r["log"], r["value"]) for r in merged.rows["values"]) == [
        ("b.eval", 10),
        ("b.eval", 20),
    ]
    assert kept(merged.rows["scenes"]) == [("1", 1, 1.0, "b.eval"), ("2", 1, 0.0, "b.eval")]


def test_runs_of_another_configuration_or_judge_panel_stay_apart() -> None:
    base = log("a.eval", {("1", 1): 1.0})
    for other in (
        log("b.eval", {("1", 1): 0.0}, config="other"),
        log("b.eval", {("1", 1): 0.0}, judges="j1,j2"),
        log("b.eval", {("1", 1): 0.0}, scoring="goal_completion1"),
    ):
        merged = merge_logs([base, other])
        assert sorted(run["log"] for run in merged.runs) == ["a.eval", "b.eval"]
        assert kept(merged.rows["scenes"]) == [("1", 1, 0.0, "b.eval"), ("1", 1, 1.0, "a.eval")]
        assert merged.notes == []


def test_an_unfinished_piece_counts_unless_retried_in_full() -> None:
    failed = log("a.eval", {("1", 1): 1.0}, status="error", created="2026-01-01")
    retried = log("b.eval", {("1", 1): 1.0, ("2", 1): 1.0}, created="2026-01-02")
    assert merge_logs([failed, retried]).runs[0]["status"] == "success"
    alone = log("c.eval", {("3", 1): 1.0}, status="cancelled", created="2026-01-01")
    assert merge_logs([alone, retried]).runs[0]["status"] == "cancelled"
    assert merge_logs([retried, alone]).runs[0]["status"] == "cancelled"
    # Nothing finished: every piece counts, the first one's status is the run's.
    newer = log("e.eval", {("1", 1): 1.0, ("2", 1): 1.0}, status="error", created="2026-01-02")
    cancelled = log("f.eval", {("1", 1): 1.0}, status="cancelled", created="2026-01-01")
    assert merge_logs([cancelled, newer]).runs[0]["status"] == "cancelled"
    both = merge_logs([failed, log("d.eval", {("1", 1): 1.0}, status="error")])
    assert both.runs[0]["status"] == "error"


# --- report.frames: one row per scene, its conversations pooled ----------------------------------

GROUP = {
    "group": "g",
    "family": "f",
    "variant": "",
    "kind": "full",
    "model": "m",
    "sender": None,
    "receiver": None,
}
SCENE = {"template_id": "t1", "scenario_type": "s", "n_characters": 2, "rounds": 5}


def scenes(*rows: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame([{**GROUP, **SCENE, **row} for row in rows])


def test_the_conversations_of_a_scene_are_one_row() -> None:
    frame = scenes(
        {"id": "2", "epoch": 1, "self": 0.25, "other": 0.0},
        {"id": "1", "epoch": 1, "self": 1.0, "other": math.nan},
        {"id": "1", "epoch": 2, "self": 0.0, "other": math.nan},
        {"id": "1", "epoch": 3, "self": 0.5, "other": 1.0},
    )
    units = scene_units(frame, ["self", "other", "absent"])
    assert list(units["id"]) == ["1", "2"]  # sorted by the unit's keys
    assert list(units["self"]) == [0.5, 0.25]
    assert list(units["other"]) == [1.0, 0.0]  # each metric over the conversations that scored it
    assert list(units[CONVERSATIONS]) == [3, 1]
    assert "absent" not in units.columns
    assert list(units["template_id"]) == ["t1", "t1"]
    assert set(SCENE_ATTRIBUTES) <= set(units.columns)


def test_a_scene_in_two_groups_is_a_row_in_each_and_all_nan_stays_nan() -> None:
    frame = scenes(
        {"id": "1", "self": 1.0, "other": math.nan},
        {"id": "1", "self": 0.0, "other": math.nan, "group": "h", "sender": "x"},
    )
    units = scene_units(frame, ["self", "other"]).set_index("group")
    assert units.loc["g", "self"] == 1.0 and units.loc["h", "self"] == 0.0
    assert math.isnan(units.loc["g", "other"])
    assert list(units[CONVERSATIONS]) == [1, 1]
    assert pd.isna(units.loc["g", "sender"]) and units.loc["h", "sender"] == "x"


def test_no_conversation_is_no_row() -> None:
    units = scene_units(scenes({"id": "1", "self": 1.0}).iloc[:0], ["self"])
    assert units.empty and "self" in units.columns and "id" in units.columns


def test_a_character_is_the_mean_over_its_goals_per_epoch_then_over_epochs() -> None:
    goals = pd.DataFrame(
        [
            {**GROUP, "id": "1", "template_id": "t1", "character": "Ann", "role": "r",
             "player": "m", "epoch": epoch, "goal_index": goal, "self": value}
            for epoch, goal, value in [(1, 1, 1.0), (1, 2, 0.0), (1, 3, 0.0), (2, 1, 1.0)]
        ]
    )  # fmt: skip
    units = character_units(goals)
    assert len(units) == 1
    # Epoch 1: 1/3, epoch 2: 1; pooling the four goals would give 1/2.
    assert units["self"].iloc[0] == pytest.approx((1 / 3 + 1) / 2)


def test_rows_get_their_scenes_template_once() -> None:
    scene_rows = pd.DataFrame(
        [
            {"log": "a", "id": "1", "epoch": 1, "template_id": "t1"},
            {"log": "a", "id": "1", "epoch": 2, "template_id": "t1"},
            {"log": "a", "id": "2", "epoch": 1, "template_id": "t2"},
            {"log": "b", "id": "1", "epoch": 1, "template_id": "t9"},
        ]
    )
    goals = pd.DataFrame(
        [{"log": "a", "id": "1", "goal": 1}, {"log": "a", "id": "2", "goal": 1},
         {"log": "b", "id": "1", "goal": 1}, {"log": "c", "id": "1", "goal": 1}]
    )  # fmt: skip
    joined = with_templates(goals, scene_rows)
    assert list(joined["template_id"][:3]) == ["t1", "t2", "t9"]  # not one row per epoch
    assert len(joined) == 4 and pd.isna(joined["template_id"].iloc[3])  # no scene: kept
    own = goals.assign(template_id="own")
    assert with_templates(own, scene_rows) is own
    assert with_templates(goals, scene_rows.drop(columns="template_id")) is goals


def test_a_log_that_scored_nothing_is_a_piece_of_the_one_scored_run_of_its_configuration() -> None:
    """Flow runs a task killed before its first sample again under a new eval id: the empty log
    left beside the finished one does not make the run unfinished (nor a run of its own)."""
    killed = log("k.eval", {}, status="started", scorers=(), scoring="none", judges="bound")
    done = log("d.eval", {("1", 1): 1.0, ("2", 1): 0.0}, created="2026-01-02", judges="j")
    for order in ([killed, done], [done, killed]):
        merged = merge_logs(order)
        (run,) = merged.runs
        assert (run["log"], run["status"], run["logs"], run["samples"]) == (
            "d.eval",
            "success",
            2,
            2,
        )
        assert kept(merged.rows["scenes"]) == [("1", 1, 1.0, "d.eval"), ("2", 1, 0.0, "d.eval")]
    (alone,) = merge_logs([killed]).runs
    assert (alone["status"], alone["samples"]) == ("started", 0)
    other = log("o.eval", {("1", 1): 1.0}, config="x")
    assert sorted((r["log"], r["status"]) for r in merge_logs([killed, other]).runs) == [
        ("k.eval", "started"),
        ("o.eval", "success"),
    ]
    # Two scored runs of its configuration (one re-judged): whose piece it is is not known.
    rejudged = log("r.eval", {("1", 1): 1.0}, judges="j2", scoring="goal_completion1")
    runs = merge_logs([killed, done, rejudged]).runs
    assert sorted((r["log"], r["status"]) for r in runs) == [
        ("d.eval", "success"),
        ("k.eval", "started"),
        ("r.eval", "success"),
    ]
