"""The log structure Inspect View relies on to show AgentSense readably (issue #11).

- Transcript: one labelled record (info event) right after each model call, and nothing else per
  call (no span): a turn's names its speaker, an interview's who was asked what and how the
  answer reads, in a fresh run and after `inspect score` re-judging;
- every model call carries a model role (characters on `character` by default, or on their
  pairwise role), so per-role usage is complete;
- Messages: `Speaker: text`, metadata only where it adds something;
- Scoring: a readable explanation, and score metadata of flat rows that `inspect_ai.analysis`
  reads into a frame;
- task settings: judge majority (or MCQ accuracy) as headline, empty sample-list columns hidden.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from inspect_ai import Task, eval, score
from inspect_ai.analysis import SampleColumn, SampleScores, samples_df
from inspect_ai.event import InfoEvent, ModelEvent, SpanBeginEvent
from inspect_ai.log import EvalLog, EvalSample, headline_metric, read_eval_log
from inspect_ai.util import registry_info

from agentsense.engine.conversation import (
    CALL_RECORDS,
    INTERVIEW_RECORD,
    MCQ_RECORD,
    TURN_RECORD,
    labelled_calls,
    record_label,
)
from agentsense.engine.roles import CHARACTER_ROLE
from agentsense.sense import goal_completion
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.interview import CALL_SPAN, Question, interview_label
from agentsense.sense.scorers.explanation import CELL_CHARS, MAJORITY_ROW
from agentsense.tasks import full, goal, info, pairwise
from view_reading import goal_tables, viewer_order

AGENT = "standin/persona/agent"
JUDGES = ["standin/persona/judge-a", "standin/persona/judge-b", "standin/persona/judge-c"]
WITH_MCQ, WITHOUT_MCQ = 101, 201
GOAL_ROW = {"character", "goal", "asker", "item", "model", "question", "answer", "reading"}
MCQ_ROW = {"character", "mcq", "asker", "model", "question", "answer", "reading", "correct"}


@pytest.fixture(scope="module")
def full_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    (log,) = eval(
        full(dataset="demo", max_messages=5),
        model=AGENT,
        model_roles={"judge": JUDGES},
        sample_id=[WITH_MCQ, WITHOUT_MCQ],
        log_dir=str(tmp_path_factory.mktemp("full")),
        display="none",
    )
    assert log.status == "success", log.error
    return read_eval_log(log.location, resolve_attachments=True)


def sample_of(log: EvalLog, sample_id: int) -> EvalSample:
    return next(s for s in log.samples or [] if s.id == sample_id)


def the_score(sample: EvalSample, name: str = "goal_and_mcq") -> tuple[dict[str, Any], Any]:
    assert sample.scores is not None
    result = sample.scores[name]
    assert isinstance(result.value, dict) and result.metadata is not None
    return result.metadata, result


# --- Transcript --------------------------------------------------------------------------------


def test_every_model_turn_is_recorded_by_its_speaker(full_log: EvalLog) -> None:
    for sample in full_log.samples or []:
        turns = sample.store["Conversation:turns"]
        pairs = labelled_calls(sample.events)
        named = [record_label(r) for _, r in pairs if r is not None and r.source == TURN_RECORD]
        assert named == [f"{t['speaker']} · turn {t['index']}" for t in turns[1:]]
        # The turns come first, one call each, and every call has its record.
        assert [r and r.source for _, r in pairs[: len(named)]] == [TURN_RECORD] * len(named)
        assert all(r is not None for _, r in pairs)


def test_a_span_for_each_interview_and_none_for_a_turn(full_log: EvalLog) -> None:
    # One record beside each call; each interview in a span holding just its call and its
    # record; the other events per scene (Inspect's phases, the interview round) as many in a
    # scene of few calls as in one of many.
    others = {}
    for sample in full_log.samples or []:
        calls = sum(isinstance(e, ModelEvent) for e in sample.events)
        records = [e for e in sample.events if isinstance(e, InfoEvent) and e.source]
        assert len(records) == calls
        spans = {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}
        asked = {k: v for k, v in spans.items() if v.type == CALL_SPAN}
        assert len(asked) == len(interview_records(sample)) > 0
        for span_id, begin in asked.items():
            inside = [e for e in sample.events if e.span_id == span_id and e.event != "span_end"]
            assert [e.event for e in inside] == ["span_begin", "model", "info"], begin.name
            assert begin.name == record_label(inside[2])  # type: ignore[arg-type]
        for event in sample.events:  # the turns' calls stay outside any interview span
            if isinstance(event, InfoEvent) and event.source == TURN_RECORD:
                assert event.span_id not in asked
        # (A span's begin and end events carry its own id as their span_id.)
        kinds = [e.event for e in sample.events if e not in records and e.span_id not in asked]
        others[calls] = sorted(kind for kind in kinds if kind != "model")
    (fewer, few), (more, many) = sorted(others.items())
    assert fewer < more and few == many


def test_the_viewer_shows_each_record_after_its_call(full_log: EvalLog) -> None:
    # The scene's interviews are asked at once: in the viewer's order (by start) a record
    # written on return came after all the round's calls, 56 calls away in a 5-character scene.
    for sample in full_log.samples or []:
        shown = viewer_order(list(sample.events))
        calls = [i for i, e in enumerate(shown) if isinstance(e, ModelEvent)]
        assert calls
        for i in calls:
            after = shown[i + 1]
            assert isinstance(after, InfoEvent) and after.source in CALL_RECORDS, i


def interview_records(sample: EvalSample) -> list[str]:
    return [
        str(e.data)
        for e in sample.events
        if isinstance(e, InfoEvent) and e.source in (INTERVIEW_RECORD, MCQ_RECORD)
    ]


def test_every_interview_is_recorded_by_name(full_log: EvalLog) -> None:
    sample = sample_of(full_log, WITH_MCQ)
    metadata, _ = the_score(sample)
    records = {record.split("**")[1]: record for record in interview_records(sample)}
    rows = [*metadata["goal_answers"], *metadata["mcq_answers"]]
    assert len(records) == len(rows) == len(interview_records(sample))
    judges = metadata["judges"]
    for row in rows:
        if "goal" in row:
            asker = row["asker"]
            named = f"{asker} ({judges[asker]})" if asker.startswith("judge_") else asker
            label = f"{row['character']} · goal {row['goal']} · {named}"
            reading = {1: "yes ✓", 0: "no ✗", None: "? (unreadable)"}[row["reading"]]
        else:
            label = f"{row['character']} · MCQ {row['mcq']}"
            reading = f"answered ({row['reading']}), correct ({row['correct']})"
        record = records[label]
        assert f"**A:** {row['answer']}" in record and reading in record
        assert " ".join(row["question"].split()) in record
    # Both kinds of askers of the other side are there, numbered from 1.
    askers = {row["asker"] for row in metadata["goal_answers"]}
    assert {"self", "judge_1", "judge_2", "judge_3"} <= askers
    assert any(a.startswith("other:") for a in askers)
    assert min(row["goal"] for row in metadata["goal_answers"]) == 1


def assert_records_follow_their_calls(sample: EvalSample) -> None:
    # Inspect View shows the scorer's events flat (its timeline takes the events of the
    # `scorers` phase in sequence): a record must sit next to its call, and name its model.
    records = [e for e in sample.events if isinstance(e, InfoEvent) and e.source]
    pairs = [(call, record) for call, record in labelled_calls(sample.events) if record]
    assert [record for _, record in pairs] == records
    for call, record in pairs:
        label = record_label(record)
        if " · judge_" in label:
            assert f"({call.model})" in label, (label, call.model)


def test_each_record_follows_its_model_call(full_log: EvalLog) -> None:
    for sample in full_log.samples or []:
        assert_records_follow_their_calls(sample)


def test_labels_tell_apart_several_questions_to_one_asker() -> None:
    first, second = (Question("judge", "Ann", 0, i, "judge_1", f"q{i}") for i in (0, 1))
    assert interview_label(first, "m") == "Ann · goal 1 · judge_1 (m)"
    assert interview_label(second, "m") == "Ann · goal 1 · judge_1 (m) · question 2"


def test_records_say_what_each_call_was(full_log: EvalLog) -> None:
    sample = sample_of(full_log, WITH_MCQ)
    sources = [r.source for _, r in labelled_calls(sample.events) if r is not None]
    metadata, _ = the_score(sample)
    assert sources.count(MCQ_RECORD) == len(metadata["mcq_answers"]) > 0
    assert sources.count(INTERVIEW_RECORD) == len(metadata["goal_answers"])


def test_rejudging_records_the_new_interviews(full_log: EvalLog) -> None:
    rejudged = score(
        full_log,
        goal_completion(),
        model_roles={"judge": ["standin/persona/judge-x"]},
        action="append",
        display="none",
    )
    sample = sample_of(rejudged, WITH_MCQ)
    metadata, _ = the_score(sample, "goal_completion")
    assert metadata["judges"] == {"judge_1": "standin/persona/judge-x"}
    fresh = [r for r in interview_records(sample) if "judge_1 (standin/persona/judge-x)" in r]
    judged = [row for row in metadata["goal_answers"] if row["asker"] == "judge_1"]
    assert fresh and len(fresh) == len(judged)
    assert_records_follow_their_calls(sample)


# --- model roles -------------------------------------------------------------------------------


def test_every_model_call_has_a_role(full_log: EvalLog) -> None:
    for sample in full_log.samples or []:
        for event, record in labelled_calls(sample.events):
            label = record_label(record) if record else ""
            expected = "judge" if label.split(" · ")[-1].startswith("judge_") else CHARACTER_ROLE
            assert event.role == expected, (label, event.role)
    assert full_log.stats.role_usage.keys() == {CHARACTER_ROLE, "judge"}


def test_pairwise_roles_default_to_the_evaluated_model(tmp_path: Path) -> None:
    (log,) = eval(
        pairwise(dataset="demo", max_messages=3),
        model=AGENT,
        model_roles={"sender": "standin/persona/s1", "judge": JUDGES[0]},
        sample_id=[WITH_MCQ],
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    sample = (log.samples or [])[0]
    models = {e.role: e.model for e in sample.events if isinstance(e, ModelEvent)}
    assert models == {"sender": "standin/persona/s1", "receiver": AGENT, "judge": JUDGES[0]}
    assert log.stats.role_usage.keys() == {"sender", "receiver", "judge"}
    metadata, result = the_score(sample)
    roles = sample.metadata["model_roles"]
    played = {"sender": "standin/persona/s1", "receiver": AGENT}
    assert metadata["cast"] == {name: played[role] for name, role in roles.items()}
    assert metadata["roles"] == roles
    for name, model in metadata["cast"].items():
        assert f"**{name}** · {roles[name]}: {model}" in result.explanation


def test_pairwise_under_model_none_names_only_models_it_called(tmp_path: Path) -> None:
    # Every role bound and `--model none`: the log's model (the log list's column) is `none`,
    # not a model the run never called.
    roles = {"sender": "standin/persona/s1", "receiver": "standin/persona/r1", "judge": JUDGES[0]}
    (log,) = eval(
        pairwise(dataset="demo", max_messages=3),
        model="none",
        model_roles=roles,
        sample_id=[WITH_MCQ],
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.eval.model == "none/none"
    assert set(log.stats.model_usage) == set(roles.values())


def test_model_none_with_an_unbound_role_fails_before_any_call(tmp_path: Path) -> None:
    (log,) = eval(
        pairwise(dataset="demo", max_messages=3),
        model="none",
        model_roles={"sender": "standin/persona/s1", "receiver": "standin/persona/r1"},
        sample_id=[WITH_MCQ],
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error" and log.error is not None
    assert "--model none" in log.error.message and "--model-role judge=MODEL" in log.error.message
    assert log.stats.model_usage == {}


# --- Messages ----------------------------------------------------------------------------------


def test_messages_show_the_speaker_without_redundant_metadata(full_log: EvalLog) -> None:
    for sample in full_log.samples or []:
        spoken = [m for m in sample.messages if m.role == "assistant"]
        turns = sample.store["Conversation:turns"]
        for message, turn in zip(spoken, turns, strict=True):
            assert message.text == f"{turn['speaker']}: {turn['text']}"
            assert message.metadata == ({"scripted": True} if turn["scripted"] else None)


def test_a_reply_that_starts_with_its_name_shows_it_once(tmp_path: Path) -> None:
    # The parity stand-in writes `Name: ...` as real models often do (one reply in six);
    # Messages showed `Name: Name: ...`. What the models are sent is unchanged (test_parity).
    (log,) = eval(
        goal(dataset="demo", max_messages=12),
        model="standin/parity/agent",
        sample_id=[WITH_MCQ, WITHOUT_MCQ],
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    named = 0
    for sample in read_eval_log(log.location).samples or []:
        spoken = [m for m in sample.messages if m.role == "assistant"]
        turns = sample.store["Conversation:turns"]
        for message, turn in zip(spoken, turns, strict=True):
            prefix = f"{turn['speaker']}: "
            named += turn["text"].startswith(prefix)
            assert message.text.startswith(prefix) and not message.text.startswith(prefix * 2)
            assert message.text.removeprefix(prefix) == turn["text"].removeprefix(prefix)
    assert named > 0  # the case is there to see


# --- Scoring -----------------------------------------------------------------------------------


def is_flat(value: Any) -> bool:
    return not isinstance(value, dict | list)


def test_score_metadata_is_flat_rows(full_log: EvalLog) -> None:
    for sample in full_log.samples or []:
        metadata, _ = the_score(sample)
        for key, value in metadata.items():
            if isinstance(value, list):
                assert all(isinstance(r, dict) and all(map(is_flat, r.values())) for r in value)
            elif isinstance(value, dict):
                assert all(map(is_flat, value.values())), key
        assert all(set(r) == GOAL_ROW for r in metadata["goal_answers"])
        assert all(set(r) >= MCQ_ROW for r in metadata["mcq_answers"])


def test_analysis_reads_the_rows_into_a_frame(full_log: EvalLog) -> None:
    columns = [SampleColumn("id", path="id", required=True), *SampleScores]
    frame = samples_df(full_log.location, columns=columns, quiet=True)
    rows = []
    for sample_id, logged in zip(frame["id"], frame["score_goal_and_mcq_metadata"], strict=True):
        rows += [{"id": sample_id, **row} for row in json.loads(logged)["goal_answers"]]
    answers = pd.DataFrame(rows)
    assert set(answers.columns) >= GOAL_ROW
    scene = scenario_of(sample_of(full_log, WITH_MCQ).metadata)
    n_judge = sum(len(g.eval_questions.judge) for c in scene.characters for g in c.goals)
    asked = answers[(answers["id"] == WITH_MCQ) & answers["asker"].str.startswith("judge_")]
    assert len(asked) == n_judge * len(JUDGES)
    assert set(asked["model"]) == set(JUDGES)


def test_explanation_reads_in_one_screen(full_log: EvalLog) -> None:
    metadata, result = the_score(sample_of(full_log, WITH_MCQ))
    text = result.explanation
    assert "### Goals" in text and "### MCQs" in text
    for key, model in metadata["judges"].items():
        assert f"{key} = {model}" in text
    for row in metadata["mcq_answers"]:
        sign = "✓" if row["right"] else "✗"
        assert f"answered ({row['reading']}), correct ({row['correct']}) {sign}" in text
    tables = {table.character: table for table in goal_tables(text)}
    assert list(tables) == list(metadata["cast"])
    scene = scenario_of(sample_of(full_log, WITH_MCQ).metadata)
    for character in scene.characters:
        table = tables[character.name]
        assert (
            table.heading == f"**{character.name}** · played by {metadata['cast'][character.name]}"
        )
        assert table.goals == [goal.goal for goal in character.goals]  # in full
        assert table.header == ["asked", *(f"goal {n}" for n in range(1, len(table.goals) + 1))]
        (other,) = set(metadata["cast"]) - {character.name}
        assert list(table.rows) == ["self", f"other: {other}", *metadata["judges"], MAJORITY_ROW]
    for row in metadata["goal_answers"]:  # the mark, with the raw answer's start in brackets
        label = row["asker"].replace("other:", "other: ")
        cell = tables[row["character"]].rows[label][row["goal"] - 1]
        mark = {1: "✓", 0: "✗", None: "?"}[row["reading"]]
        raw = " ".join(row["answer"].split())
        assert cell.startswith(f"{mark} ({raw[: CELL_CHARS - 1]}"), (row, cell)
        assert len(cell) <= CELL_CHARS + 4
    for scores in metadata["goal_scores"]:
        verdict = {1.0: "✓", 0.0: "✗", 0.5: "tie"}[scores["judge_majority"]]
        assert tables[scores["character"]].rows[MAJORITY_ROW][scores["goal"] - 1] == verdict
    assert "<" not in text  # no HTML, which the viewer shows escaped


def test_a_scene_without_mcqs_says_so(full_log: EvalLog) -> None:
    metadata, result = the_score(sample_of(full_log, WITHOUT_MCQ))
    assert "No MCQ in this scene" in result.explanation
    assert metadata["mcq_answers"] == [] and metadata["mcq_scored"] is False
    # Inspect needs every key of a dict score in every sample: NaN is its "unscored" mark.
    assert math.isnan(result.value["mcq_accuracy"])


def test_an_unscored_mcq_scene_is_left_out_of_the_aggregate(full_log: EvalLog) -> None:
    assert full_log.results is not None
    scores = {score.name: score for score in full_log.results.scores}
    mcq = scores["mcq_accuracy"]
    assert (mcq.scored_samples, mcq.unscored_samples) == (1, 1)
    _, scored = the_score(sample_of(full_log, WITH_MCQ))
    assert mcq.metrics["mean"].value == scored.value["mcq_accuracy"]
    # The goal keys are scored on both scenes.
    assert (scores["judge_majority"].scored_samples, scores["judge_majority"].unscored_samples) == (
        2,
        0,
    )


# --- task settings -----------------------------------------------------------------------------


def test_headline_is_judge_majority(full_log: EvalLog) -> None:
    resolved = headline_metric(full_log)
    assert resolved is not None
    assert (resolved.score.name, resolved.name) == ("judge_majority", "mean")


@pytest.mark.parametrize("make", [goal, full, pairwise, info])
def test_the_headline_is_a_declared_score_key(make: Callable[..., Task]) -> None:
    # Not only reached through the `judge_*` glob: Inspect's first progress update, before
    # any sample is scored, cannot expand a glob and warned that the headline was missing.
    task = make(dataset="demo")
    assert task.headline_metric is not None and task.scorer is not None
    declared = registry_info(task.scorer[0]).metadata["metrics"]
    # Per-key metrics are a dict; beside it the scorer-wide PSI block (`template_metrics`).
    per_key = (
        [entry for entry in declared if isinstance(entry, dict)]
        if isinstance(declared, list)
        else [declared]
    )
    assert any(task.headline_metric.score in keys for keys in per_key)


def test_a_run_does_not_warn_about_its_headline(tmp_path: Path) -> None:
    command = [
        str(Path(sys.executable).with_name("inspect")),
        *("eval", "agentsense/goal", "-T", "dataset=demo", "-T", "max_messages=3", "--limit", "1"),
        *("--model", AGENT, "--log-dir", str(tmp_path), "--display", "plain"),
    ]
    env = {**os.environ, "COLUMNS": "250"}
    run = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Headline" not in run.stdout + run.stderr


def test_info_headline_is_mcq_accuracy() -> None:
    declared = info(dataset="demo").headline_metric
    assert declared is not None and (declared.score, declared.metric) == ("mcq_accuracy", "mean")


def columns(log: EvalLog) -> Mapping[str, bool]:
    viewer = log.eval.viewer
    assert viewer is not None and viewer.task_samples_view is not None
    view = viewer.task_samples_view
    assert not isinstance(view, list) and view.columns is not None
    return {column.id: column.visible for column in view.columns}


def test_sample_list_hides_the_empty_columns(full_log: EvalLog) -> None:
    assert columns(full_log) == {"target": False, "answer": False}


def test_the_answers_frame_is_read_from_the_logged_rows(full_log: EvalLog) -> None:
    from agentsense.analysis.log_reader import load_runs

    answers = load_runs([full_log.location]).answers
    sample = sample_of(full_log, WITH_MCQ)
    metadata, _ = the_score(sample)
    mine = answers[answers["id"] == str(WITH_MCQ)]
    assert len(mine) == len(metadata["goal_answers"])
    judged = mine[mine["kind"] == "judge"]
    assert set(judged["asker"]) == set(metadata["judges"])
    assert set(judged["model"]) == set(JUDGES)
    assert set(mine["kind"]) == {"self", "other", "judge"}
    assert (mine["item"] == 0).all()  # one question per kind and goal in the demo data
