"""`agentsense/gca` end to end on the demo scenes with the stand-in model (in process)."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval, score
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, resolve_sample_attachments

from agentsense.coser import KEYS, gca_critics
from agentsense.coser.dataset import gca_dataset, load_circumstances
from agentsense.coser.record import Circumstance
from agentsense.coser.score import dimension_score, severity_sum
from agentsense.coser.simulation import GCASettings, gca_simulation
from agentsense.tasks import gca
from agentsense_logs import GCA_ROLES

ROLES = GCA_ROLES  # the shared demo log's roles (agentsense_logs.other_logs)
THOUGHT = re.compile(r"\[.*?\]")


def run(log_dir: Path, roles: dict[str, str] | None = None, **args: Any) -> EvalLog:
    [log] = eval(
        gca(dataset="demo", **args),
        model="standin/gca/actor",
        model_roles=roles if roles is not None else ROLES,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    assert log.samples
    return log


def the_score(sample: EvalSample) -> Any:
    assert sample.scores
    return sample.scores["gca_critics"]


def metric_values(log: EvalLog) -> dict[tuple[str, str], float]:
    assert log.results
    return {(s.name, m.name): m.value for s in log.results.scores for m in s.metrics.values()}


def model_events(sample: EvalSample) -> list[ModelEvent]:
    resolved = resolve_sample_attachments(sample)
    return [event for event in resolved.events if isinstance(event, ModelEvent)]


def turns(sample: EvalSample) -> list[dict[str, Any]]:
    return list(sample.store["Conversation:turns"])


@pytest.fixture(scope="module")
def log(other_logs: Mapping[str, Path]) -> EvalLog:
    """The demo run with the stand-in roles (the same run as `run(folder)`, built once per run)."""
    return read_eval_log(str(other_logs["gca"]))


def test_scores_follow_the_formula_from_the_logged_flaws(log: EvalLog) -> None:
    assert log.samples
    for sample in log.samples:
        result = the_score(sample)
        rows = result.metadata["dimensions"]
        rounds = sum(1 for t in turns(sample) if t["speaker"] != "Environment")
        assert result.metadata["rounds"] == rounds
        for name, key in KEYS.items():
            row = rows[name]
            assert row["readable"] and row["attempts"] >= 1
            expected = dimension_score(severity_sum(row["flaws"]), rounds)
            assert result.value[key] == pytest.approx(expected)
        dims = [result.value[key] for key in KEYS.values()]
        assert result.value["average"] == pytest.approx(sum(dims) / 4)
        assert 0 < result.value["rouge_l"] < 1 and 0 <= result.value["bleu"] < 1
    flaws = [
        f
        for s in log.samples
        for r in the_score(s).metadata["dimensions"].values()
        for f in r["flaws"]
    ]
    assert flaws, "the stand-in critic should find some flaws on the demo scenes"


def test_metrics_cluster_by_book(log: EvalLog) -> None:
    assert log.results
    metrics = metric_values(log)
    assert log.results
    for result in log.results.scores:
        assert result.unscored_samples == 0 and result.scored_samples == 3
        assert not math.isnan(metrics[(result.name, "mean")])
        stderr = result.metrics["stderr"]
        assert stderr.params == {"cluster": "book"}
    assert log.samples
    assert {s.metadata["book"] for s in log.samples} == {
        "The Lighthouse at Gull Point",
        "The Clockmaker's Apprentice",
    }


def test_no_request_shows_another_participants_thoughts(log: EvalLog) -> None:
    assert log.samples
    checked = 0
    for sample in log.samples:
        thoughts = [
            (t["speaker"], thought) for t in turns(sample) for thought in THOUGHT.findall(t["text"])
        ]
        assert thoughts, "the stand-in characters always think"
        for event in model_events(sample):
            text = "\n".join(message.text for message in event.input)
            system = event.input[0].text if event.input else ""
            own = re.match(r"You are (.+?) from ", system)
            for speaker, thought in thoughts:
                if own and own.group(1) == speaker:
                    continue  # a character sees its own thoughts
                assert thought not in text, (event.role, speaker, thought)
                checked += 1
    assert checked > 100


def test_roles_prompts_and_conversation_shape(log: EvalLog) -> None:
    assert log.samples
    for sample in log.samples:
        record = Circumstance.model_validate(sample.metadata["circumstance"])
        conversation = turns(sample)
        assert conversation[0]["speaker"] == record.speakers[0]
        assert 1 <= len(conversation) <= 20
        for a, b in itertools.pairwise(conversation):
            assert a["speaker"] != b["speaker"]
        by_role: dict[str | None, list[ModelEvent]] = {}
        for event in model_events(sample):
            by_role.setdefault(event.role, []).append(event)
        env_turns = sum(1 for t in conversation if t["speaker"] == "Environment")
        assert len(by_role.get("environment", [])) == env_turns
        # asked after every turn but the 20th (its answer would go unused)
        asked = len(conversation) - (len(conversation) == 20)
        assert len(by_role["next_speaker"]) == asked
        critic = by_role["critic"]
        assert len(critic) >= 4
        assert all("## Original Conversation" in e.input[0].text for e in critic)
        choices = sample.store["SpeakerChoices:choices"]
        assert len(choices) == asked
        for choice, nxt in zip(choices, conversation[1:], strict=False):
            assert choice["chosen"] == nxt["speaker"]
            assert choice["valid"] or choice["chosen"] in [*record.major_characters, "Environment"]
        if len(conversation) < 20:
            assert choices[-1]["chosen"] == "<END CHAT>" and len(conversation) >= 6


def test_unreadable_critic_is_retried_then_counted_not_scored(tmp_path: Path) -> None:
    roles = {**ROLES, "critic": "standin/gca/broken-critic"}
    log = run(tmp_path, roles, critic_attempts=2)
    assert log.samples and log.results
    for sample in log.samples:
        result = the_score(sample)
        assert result.metadata["unreadable"] == list(KEYS)
        for key in (*KEYS.values(), "average"):
            assert math.isnan(result.value[key])
        for row in result.metadata["dimensions"].values():
            assert row["attempts"] == 2 and len(row["replies"]) == 4  # 2 tries + 2 repairs
    unscored = {result.name: result.unscored_samples for result in log.results.scores}
    assert unscored == {**{key: 3 for key in (*KEYS.values(), "average")}, "bleu": 0, "rouge_l": 0}


def test_continue_from_seeds_the_books_first_messages(tmp_path: Path) -> None:
    log = run(tmp_path, continue_from=3, max_rounds=8)
    assert log.samples
    for sample in log.samples:
        record = Circumstance.model_validate(sample.metadata["circumstance"])
        conversation = turns(sample)
        for i in range(3):
            assert conversation[i]["scripted"]
            assert conversation[i]["speaker"] == record.dialogues[i].character
            assert conversation[i]["text"] == record.dialogues[i].message
        assert not any(t["scripted"] for t in conversation[3:])
        critic = [e for e in model_events(sample) if e.role == "critic"]
        assert all("the first 3 messages in the simulated" in e.input[0].text for e in critic)


def test_rescoring_from_the_log_gives_the_same_scores(log: EvalLog) -> None:
    rescored = score(log, gca_critics(), action="overwrite", display="none")
    assert rescored.samples and log.samples
    for before, after in zip(log.samples, rescored.samples, strict=True):
        assert the_score(after).value == the_score(before).value


def test_head_next_speaker_format(tmp_path: Path) -> None:
    records = load_circumstances("demo")[:1]
    settings = GCASettings(next_speaker_prompt="head", max_rounds=6)
    task = Task(dataset=gca_dataset(records, "one"), solver=gca_simulation(settings, seed=1))
    [log] = eval(
        task, model="standin/gca/actor", model_roles=ROLES, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success" and log.samples
    sample = log.samples[0]
    nsp = [e for e in model_events(sample) if e.role == "next_speaker"]
    assert "===Output Format===" in nsp[0].input[0].text
    choices = sample.store["SpeakerChoices:choices"]
    assert any("Next Speaker:" in c["response"] for c in choices)


def test_reference_free_critics_append_to_an_agentsense_log(tmp_path: Path) -> None:
    from agentsense.coser import critics
    from agentsense.coser.reference_free import KEYS as FREE_KEYS
    from agentsense.tasks import goal

    [log] = eval(
        goal(dataset="demo", max_messages=4),
        model="standin/persona/agent",
        model_roles={"judge": "standin/persona/judge-a"},
        limit=3,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success"
    rescored = score(
        log,
        critics(),
        model_roles={"critic": "standin/gca/critic"},
        action="append",
        display="none",
    )
    assert rescored.samples and rescored.results
    for sample in rescored.samples:
        assert sample.scores and "goal_completion" in sample.scores
        result = sample.scores["critics"]
        assert set(result.metadata["dimensions"]) == set(FREE_KEYS)
        rounds = len(sample.store["Conversation:turns"])
        for name, key in FREE_KEYS.items():
            row = result.metadata["dimensions"][name]
            assert result.value[key] == dimension_score(severity_sum(row["flaws"]), rounds)
        critic_calls = [e for e in model_events(sample) if e.role == "critic"]
        assert critic_calls and all(
            "this AgentSense scenario" in e.input[0].text
            and "There is no original conversation" in e.input[0].text
            for e in critic_calls
        )
    stderr = next(s for s in rescored.results.scores if s.name == "humanlike")
    assert stderr.metrics["stderr"].params == {"cluster": "template_id"}
