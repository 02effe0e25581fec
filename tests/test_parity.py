"""Parity with the official AgentSense code (issue 4), and the corrected mode's deviations.

Three evals, each run once per module:

- `replay`: the four recorded fixture scenes (`sense-parity/`) in the default (official) mode,
  with their recorded speaker order and the stand-in rule that produced the recording. Every
  request and every per-scene and template-level number must equal the recording.
- `synthetic` / `corrected`: three scenes written here (5, 2 and 3 characters; 3 goals for one
  character; two judge questions on one goal; two judges, so majority ties; characters without
  MCQs before and after ones with MCQs), answered by scripted `mockllm/` models, whose answers
  are written into the questions. The expected numbers are worked out by hand from the rules in
  `docs/protocol.md` (official) or `docs/deviations.md` (corrected), not from running the code.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import Model

from agentsense.sense.metrics import psi_name, tmean_name
from parity_replay import (
    JUDGE_SYSTEM,
    Fixtures,
    Messages,
    SceneValues,
    Sent,
    fixture_dir,
    goal_answers,
    load_fixtures,
    mcq_answers,
    mcq_text,
    metric_values,
    multiset,
    official_template_results,
    per_character,
    per_goal,
    persona_prompt,
    recorded_requests,
    replay_dataset,
    run_full,
    same,
    same_tree,
    score_of,
    scored_psi,
    scored_template_mean,
    scripted_model,
    sent_requests,
    view,
    write_jsonl,
)

GOAL_KEYS = ("self", "other", "judge_1", "judge_2", "judge_mean", "judge_majority")

# ============================================================================================
# A. Replay of the recorded official run
# ============================================================================================

FIXTURES: Fixtures = load_fixtures(fixture_dir())
SCENE_IDS = sorted(FIXTURES.scenarios, key=str)
PARITY = "standin/parity/"


@dataclass(frozen=True)
class Run:
    log: EvalLog
    samples: dict[int | str, EvalSample]


def template_metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    """The log's metrics per score key, with the key's template mean and PSI as the log has them
    (the scorer's block: `<key>_tmean`, `<key>_psi`,
    `agentsense.sense.metrics.template_metrics`)."""
    assert log.results is not None
    (block,) = [score for score in log.results.scores if score.name == "goal_and_mcq"]
    metrics = {name: values for name, values in metric_values(log).items() if name != block.name}
    for key, values in metrics.items():
        values["template_mean"] = block.metrics[tmean_name(key)].value
        values["psi"] = block.metrics[psi_name(key)].value
    return metrics


def _run(log: EvalLog) -> Run:
    assert log.samples is not None
    return Run(log, {sample.id: sample for sample in log.samples})


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Run:
    folder = tmp_path_factory.mktemp("replay")
    dataset = replay_dataset(FIXTURES, folder / "replay.jsonl")
    judges = [f"{PARITY}judge-{x}" for x in "abc"]
    # No protocol argument: the official-compatible mode must be the default.
    return _run(run_full(dataset, f"{PARITY}agent-model", judges, folder / "logs", protocol=None))


def _fixture(scene_id: int | str) -> dict[str, Any]:
    return FIXTURES.scenarios[scene_id]


def _official_key(key: str, judges: Mapping[str, str]) -> str:
    """Our score key -> the official one (`judge_1` -> `judge_<model>` by the judges mapping)."""
    renamed = {"other": "others", "judge_mean": "judge_avg"}
    if key in judges:
        return "judge_" + judges[key].removeprefix(PARITY)
    return renamed.get(key, key)


def _first_difference(ours: Sequence[Sent], theirs: Sequence[Sent]) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return f"request {i}: ours {a}\n  official {b}"
    return f"lengths differ: {len(ours)} vs {len(theirs)}"


def test_replay_runs_in_official_mode_by_default(replay: Run) -> None:
    assert replay.log.eval.metadata is not None
    assert replay.log.eval.metadata["protocol"]["mode"] == "official"
    assert replay.log.eval.task_args["protocol"] == "official"
    for sample in replay.samples.values():
        assert score_of(sample)[1]["protocol"] == "official"


@pytest.mark.parametrize("scene_id", SCENE_IDS)
def test_turn_requests_equal_the_recording(replay: Run, scene_id: int | str) -> None:
    ours = [r for r in sent_requests(replay.samples[scene_id], PARITY) if r.kind == "turn"]
    theirs = recorded_requests(_fixture(scene_id)["turn_requests"], kind="turn")
    assert ours == theirs, _first_difference(ours, theirs)


@pytest.mark.parametrize("scene_id", SCENE_IDS)
def test_evaluation_requests_equal_the_recording(replay: Run, scene_id: int | str) -> None:
    # Official judges run in parallel and we ask everything concurrently: compare as multisets.
    ours = multiset(r for r in sent_requests(replay.samples[scene_id], PARITY) if r.kind != "turn")
    theirs = multiset(recorded_requests(_fixture(scene_id)["evaluation_requests"]))
    assert ours == theirs, (
        f"only ours: {list((ours - theirs).elements())[:2]}\n"
        f"only official: {list((theirs - ours).elements())[:2]}"
    )


@pytest.mark.parametrize("scene_id", SCENE_IDS)
def test_goal_answers_equal_the_recording(replay: Run, scene_id: int | str) -> None:
    official = _fixture(scene_id)["official_result"]["goal_answer"]
    ours = {
        character: {
            goal: {kind: [a["answer"] for a in answers] for kind, answers in kinds.items()}
            for goal, kinds in goals.items()
        }
        for character, goals in goal_answers(replay.samples[scene_id]).items()
    }
    assert ours == official


@pytest.mark.parametrize("scene_id", SCENE_IDS)
def test_goal_metrics_equal_the_recording(replay: Run, scene_id: int | str) -> None:
    value, metadata = score_of(replay.samples[scene_id])
    official = _fixture(scene_id)["official_result"]["goal_metrics"]
    judges: dict[str, str] = metadata["judges"]
    keys = [*GOAL_KEYS[:2], *judges, "judge_mean", "judge_majority"]
    assert len(judges) == 3
    # Per scene.
    for key in keys:
        assert same(value[key], official[_official_key(key, judges)]), key
    # Per character, and per goal (official per-goal judge list: [j1 .. jJ, avg, mode]).
    assert set(per_character(metadata)) == {k for k, v in official.items() if isinstance(v, dict)}
    for character, scores in per_character(metadata).items():
        for key in keys:
            assert same(scores[key], official[character][_official_key(key, judges)]), (
                character,
                key,
            )
        for goal, goal_scores in per_goal(replay.samples[scene_id])[character].items():
            recorded = official[character][goal]
            assert same(goal_scores["self"], recorded["self"])
            assert same(goal_scores["other"], recorded["others"])
            judge_list = [goal_scores[k] for k in judges] + [
                goal_scores["judge_mean"],
                goal_scores["judge_majority"],
            ]
            assert len(judge_list) == len(recorded["judge"])
            assert all(same(a, b) for a, b in zip(judge_list, recorded["judge"], strict=True))


@pytest.mark.parametrize("scene_id", SCENE_IDS)
def test_mcq_answers_and_accuracy_equal_the_recording(replay: Run, scene_id: int | str) -> None:
    value, metadata = score_of(replay.samples[scene_id])
    official = _fixture(scene_id)["official_result"]
    for character, answers in official["info_answer"].items():
        logged = mcq_answers(metadata).get(character, [])
        assert [a["answer"] for a in logged] == answers, character
    info = official["info_metrics"]
    if not info:  # gated off officially (first character has no MCQ): not scored here
        assert math.isnan(value["mcq_accuracy"])
        assert metadata["mcq_scored"] is False
        return
    assert same(value["mcq_accuracy"], info["avg"])
    per_character = {name: v for name, v in info.items() if name != "avg"}
    assert set(metadata["mcq_per_character"]) == set(per_character)
    for name, accuracy in per_character.items():
        assert same(metadata["mcq_per_character"][name], accuracy), name


def _official_scene_values(run: Run) -> list[SceneValues]:
    """Per-scene values from the log, keyed as the official code keys them.

    A NaN MCQ accuracy means "not scored" to Inspect. Whether the official code *excluded* the
    scene (`info_metrics == {}`) or *included* it as NaN is its first-character gate, which the
    scenario stored with the sample lets us apply.
    """
    scenes = []
    for sample in run.samples.values():
        value, metadata = score_of(sample)
        judges = metadata["judges"]
        record = (sample.metadata or {})["scenario"]
        gated = not record["characters"][0].get("info_reason_questions")
        goal = {_official_key(k, judges): value[k] for k in value if k != "mcq_accuracy"}
        info = None if gated else value["mcq_accuracy"]
        scenes.append(SceneValues(record["template_idx"], goal, info))
    return scenes


def test_template_level_goal_metrics_equal_the_recording(replay: Run) -> None:
    official = FIXTURES.template_results
    metrics = template_metrics(replay.log)
    judges: dict[str, str] = score_of(next(iter(replay.samples.values())))[1]["judges"]
    assert set(metrics) == {
        "self",
        "other",
        *judges,
        "judge_mean",
        "judge_majority",
        "mcq_accuracy",
    }
    for ours in ["self", "other", *judges, "judge_mean", "judge_majority"]:
        name = _official_key(ours, judges)
        if name.startswith("judge"):
            score, std = official["goal_judge_score"][name], official["goal_judge_std"][name]
        else:
            score, std = official[f"goal_{name}_score"], official[f"goal_{name}_std"]
        assert same(round(metrics[ours]["template_mean"], 4), score), ours
        # Official PSI is NaN whenever a template has one scene (no guard for ddof=1).
        assert same(metrics[ours]["psi"], std), ours


def test_template_level_mcq_metrics(replay: Run) -> None:
    """The official info score is NaN here: scene 104 is included with a NaN accuracy (a later
    character has no MCQ) and numpy's NaN propagates. Inspect drops NaN scores before metrics, so
    the log's `template_mean` is over scored scenes; the official number is still recoverable
    from the per-scene values in the log, which is what this test checks."""
    official = FIXTURES.template_results
    scenes = _official_scene_values(replay)
    assert same_tree(official_template_results(scenes), official)
    metrics = template_metrics(replay.log)["mcq_accuracy"]
    assert same(metrics["psi"], official["info_score_std"])
    by_template: dict[Any, list[float]] = {}
    for scene in scenes:
        by_template.setdefault(scene.template, []).append(
            math.nan if scene.info is None else scene.info
        )
    assert same(metrics["template_mean"], scored_template_mean(by_template))
    assert official["info_score"] is None  # NaN officially ...
    assert not math.isnan(metrics["template_mean"])  # ... a number in the log


# ============================================================================================
# B. Generalisation: scenes the official code would run, expected values by hand
# ============================================================================================

AGENT = "mockllm/agent"
JUDGES = ("mockllm/judge-x", "mockllm/judge-y")
SCRIPTED = "mockllm/"


def scripted_models() -> tuple[Model, list[Model]]:
    """The agent and the judges, each answering as `parity_replay.scripted_reply` says."""
    return scripted_model(AGENT), [scripted_model(judge) for judge in JUDGES]


OPTIONS = ["a spy", "a doctor", "a pilot", "a chef"]
GREETING = "Hi, there!"


def _q(text: str, reply: str) -> str:
    """A question whose scripted answer is `reply` (see `parity_replay.scripted_reply`)."""
    return f"{text} {{{{{reply}}}}}"


def _goal(
    owner: str, text: str, self_: str, others: Mapping[str, str], judge: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    return {
        "goal": text,
        "eval_questions": {
            "self": [{"obj": owner, "question": _q(f"Has {owner} achieved '{text}'?", self_)}],
            "others": [
                {"obj": who, "question": _q(f"{who}, has {owner} achieved '{text}'?", reply)}
                for who, reply in others.items()
            ],
            "judge": [
                {
                    "obj": "judge",
                    "question": _q(
                        f"Judge question {i}: has {owner} achieved '{text}'?",
                        f"judge-x={x}|judge-y={y}",
                    ),
                }
                for i, (x, y) in enumerate(judge, start=1)
            ],
        },
    }


def _character(
    name: str, goals: list[dict[str, Any]], mcqs: Sequence[tuple[str, int]] = (), secret: str = ""
) -> dict[str, Any]:
    return {
        "name": name,
        "profile": f"{name} is a persona written for the parity tests.",
        "goals": goals,
        "private_info": secret,
        "info_reason_questions": [
            {
                "question": _q(f"What does {name} suspect ({i})?", reply),
                "options": OPTIONS,
                "answer_label": label,
            }
            for i, (reply, label) in enumerate(mcqs)
        ],
    }


def _all_say(names: Sequence[str], reply: str) -> dict[str, str]:
    return {name: reply for name in names}


FIVE = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]


def _others(owner: str, names: Sequence[str] = FIVE) -> list[str]:
    return [name for name in names if name != owner]


SCENE_1: dict[
    str, Any
] = {  # 5 characters; Alpha has 3 goals, one with two judge questions; MCQs gap at Bravo
    "sample_idx": 901,
    "template_idx": 91,
    "background": "Five neighbours meet in a stairwell.",
    "description": "The lift is broken again.",
    "characters": [
        _character(
            "Alpha",
            [
                _goal(
                    "Alpha",
                    "To win the vote.",
                    "Yes.",
                    {
                        "Bravo": "No.",
                        "Charlie": "Yes, surely.",
                        "Delta": "yes",
                        "Echo": "Yesterday was better.",
                    },
                    [("Yes.", "No.")],
                ),
                _goal(
                    "Alpha",
                    "To keep the peace.",
                    "yes",
                    {"Bravo": "Yes", "Charlie": "No", "Delta": "No", "Echo": "No"},
                    [("No.", "Yes."), ("Yes.", "Yes.")],
                ),
                _goal(
                    "Alpha",
                    "To be thanked.",
                    "No. Well... Yes.",
                    _all_say(_others("Alpha"), "No."),
                    [("No.", "No.")],
                ),
            ],
            mcqs=[("(C)", 2)],
            secret="Alpha broke the lift.",
        ),
        _character(
            "Bravo",
            [
                _goal(
                    "Bravo",
                    "To borrow the car.",
                    "Yes.",
                    {"Alpha": "No.", "Charlie": "No.", "Delta": "No.", "Echo": "NO"},
                    [("No.", "Yes.")],
                ),
            ],
        ),
        _character(
            "Charlie",
            [
                _goal(
                    "Charlie",
                    "To find the keys.",
                    "I cannot say.",
                    _all_say(_others("Charlie"), "Yes."),
                    [("Yes.", "Yes.")],
                ),
            ],
            mcqs=[("B", 1), (" A", 0)],
            secret="Charlie has the keys.",
        ),
        _character(
            "Delta",
            [
                _goal(
                    "Delta",
                    "To organise a repair.",
                    "Yes.",
                    {
                        "Alpha": "Yes.",
                        "Bravo": "No.",
                        "Charlie": "**Yes**, clearly.",
                        "Echo": "Delta: yes.",
                    },
                    [("Yes, it is achieved.", "yes")],
                ),
            ],
            mcqs=[("I am not sure.", 3)],
        ),
        _character(
            "Echo",
            [
                _goal(
                    "Echo",
                    "To leave early.",
                    "No.",
                    _all_say(_others("Echo"), "No."),
                    [("No.", "No.")],
                ),
            ],
        ),
    ],
}
SCENE_2: dict[
    str, Any
] = {  # the first character has no MCQ, the second has one: officially not scored
    "sample_idx": 902,
    "template_idx": 92,
    "background": "Two colleagues share a lift.",
    "description": "It stops between floors.",
    "characters": [
        _character(
            "Foxtrot",
            [
                _goal(
                    "Foxtrot", "To calm Golf down.", "Yes.", {"Golf": "Yes."}, [("Yes.", "Yes.")]
                ),
            ],
        ),
        _character(
            "Golf",
            [
                _goal("Golf", "To get out first.", "yes", {"Foxtrot": "No."}, [("No.", "No.")]),
            ],
            mcqs=[("(A)", 0)],
            secret="Golf is afraid of lifts.",
        ),
    ],
}
SCENE_3: dict[str, Any] = {  # same template as scene 2, three characters, all with MCQs
    "sample_idx": 903,
    "template_idx": 92,
    "background": "Three colleagues share a lift.",
    "description": "It stops between floors.",
    "characters": [
        _character(
            "Hotel",
            [
                _goal(
                    "Hotel",
                    "To calm the others.",
                    "Yes.",
                    {"India": "No.", "Juliet": "No."},
                    [("Yes.", "No.")],
                ),
            ],
            mcqs=[("(B)", 0)],
        ),
        _character(
            "India",
            [
                _goal(
                    "India",
                    "To call for help.",
                    "No.",
                    {"Hotel": "No.", "Juliet": "No."},
                    [("No.", "No.")],
                ),
            ],
            mcqs=[("(A)", 0)],
        ),
        _character(
            "Juliet",
            [
                _goal(
                    "Juliet",
                    "To get out first.",
                    "No.",
                    {"Hotel": "No.", "India": "No."},
                    [("No.", "No.")],
                ),
            ],
            mcqs=[("B.", 1)],
        ),
    ],
}
SCENES = [SCENE_1, SCENE_2, SCENE_3]
RECORDS: dict[int, dict[str, Any]] = {scene["sample_idx"]: scene for scene in SCENES}


def _row(*values: float) -> dict[str, float]:
    return dict(zip(GOAL_KEYS, values, strict=True))


NAN = math.nan

# Official rules (docs/protocol.md §3.3-3.4, §4.3-4.4): yes iff "Yes" is a substring; per goal,
# per-judge = the first judge question's votes, mean and statistics.mode over all votes
# (question-major; a tie returns the first vote); means over goals, then over characters.
OFFICIAL_CHARACTERS: dict[int, dict[str, dict[str, float]]] = {
    901: {
        # goals: (self 1, others [0,1,0,1], judges [1,0] -> mode 1), (self "yes"=0,
        # others [1,0,0,0], judges q1 [0,1] q2 [1,1] -> per judge 0 / 1, mean 3/4, mode 1),
        # (self "No. Well... Yes."=1, others 0, judges [0,0])
        "Alpha": _row(2 / 3, 1 / 4, 1 / 3, 1 / 3, 5 / 12, 2 / 3),
        "Bravo": _row(1, 0, 0, 1, 1 / 2, 0),  # "NO" = 0; mode([0, 1]) = 0
        "Charlie": _row(0, 1, 1, 1, 1, 1),  # "I cannot say." = 0
        "Delta": _row(1, 1 / 2, 1, 0, 1 / 2, 1),  # "Delta: yes." = 0; judge-y "yes" = 0
        "Echo": _row(0, 0, 0, 0, 0, 0),
    },
    902: {"Foxtrot": _row(1, 1, 1, 1, 1, 1), "Golf": _row(0, 0, 0, 0, 0, 0)},
    903: {
        "Hotel": _row(1, 0, 1, 0, 1 / 2, 1),
        "India": _row(0, 0, 0, 0, 0, 0),
        "Juliet": _row(0, 0, 0, 0, 0, 0),
    },
}
OFFICIAL_SCENES = {
    901: _row(8 / 15, 7 / 20, 7 / 15, 7 / 15, 29 / 60, 8 / 15),
    902: _row(1 / 2, 1 / 2, 1 / 2, 1 / 2, 1 / 2, 1 / 2),
    903: _row(1 / 3, 0, 1 / 3, 0, 1 / 6, 1 / 3),
}
# MCQ: Alpha "(C)" right; Charlie "B" right, " A" wrong (no stripping); Delta unreadable; Bravo
# and Echo have none, so the scene's mean is NaN. Scene 902: the first character has none, so
# officially `info_metrics == {}` (excluded). Scene 903: "(B)" wrong, "(A)" right, "B." right.
MCQResult = tuple[dict[str, float], float]
OFFICIAL_MCQ: dict[int, MCQResult] = {
    901: ({"Alpha": 1, "Bravo": NAN, "Charlie": 1 / 2, "Delta": 0, "Echo": NAN}, NAN),
    902: ({"Foxtrot": NAN, "Golf": 1}, NAN),
    903: ({"Hotel": 0, "India": 1, "Juliet": 1}, 2 / 3),
}
OFFICIAL_MCQ_INCLUDED = {901: True, 902: False, 903: True}

# Corrected rules (docs/deviations.md): a leading yes/no, any case, after optional markup and one
# "Name:" label, else unreadable and left out; per-judge = mean over all its questions; a tie is
# 1/2; NaN entries are skipped in means; MCQ answers are stripped and the scene mean is over the
# characters that have MCQs.
CORRECTED_CHARACTERS: dict[int, dict[str, dict[str, float]]] = {
    901: {
        # goals: (self 1, others [0,1,1] + "Yesterday..." unreadable -> 2/3, judges [1,0] -> tie
        # 1/2), (self "yes"=1, others 1/4, judges x [0,1] y [1,1] -> 1/2, 1, mean 3/4, majority
        # 1), (self "No. Well... Yes."=0, others 0, judges 0)
        "Alpha": _row(2 / 3, 11 / 36, 1 / 2, 1 / 3, 5 / 12, 1 / 2),
        "Bravo": _row(1, 0, 0, 1, 1 / 2, 1 / 2),
        "Charlie": _row(NAN, 1, 1, 1, 1, 1),  # "I cannot say." unreadable: no self score
        "Delta": _row(1, 3 / 4, 1, 1, 1, 1),  # "**Yes**, clearly." and "Delta: yes." are yes
        "Echo": _row(0, 0, 0, 0, 0, 0),
    },
    902: {"Foxtrot": _row(1, 1, 1, 1, 1, 1), "Golf": _row(1, 0, 0, 0, 0, 0)},
    903: {
        "Hotel": _row(1, 0, 1, 0, 1 / 2, 1 / 2),
        "India": _row(0, 0, 0, 0, 0, 0),
        "Juliet": _row(0, 0, 0, 0, 0, 0),
    },
}
CORRECTED_SCENES = {
    901: _row(2 / 3, 37 / 90, 1 / 2, 2 / 3, 7 / 12, 3 / 5),
    902: _row(1, 1 / 2, 1 / 2, 1 / 2, 1 / 2, 1 / 2),
    903: _row(1 / 3, 0, 1 / 3, 0, 1 / 6, 1 / 6),
}
CORRECTED_MCQ: dict[int, MCQResult] = {
    901: ({"Alpha": 1, "Bravo": NAN, "Charlie": 1, "Delta": 0, "Echo": NAN}, 2 / 3),
    902: ({"Foxtrot": NAN, "Golf": 1}, 1),
    903: ({"Hotel": 0, "India": 1, "Juliet": 1}, 2 / 3),
}
CORRECTED_UNREADABLE_GOAL_ANSWERS = {901: 2, 902: 0, 903: 0}
# Per goal, the case the per-judge columns differ on: Alpha's goal with two judge questions.
TWO_JUDGE_QUESTIONS = ("Alpha", "To keep the peace.")
OFFICIAL_TWO_QUESTION_GOAL = {"judge_1": 0, "judge_2": 1, "judge_mean": 3 / 4, "judge_majority": 1}
CORRECTED_TWO_QUESTION_GOAL = {
    "judge_1": 1 / 2,
    "judge_2": 1,
    "judge_mean": 3 / 4,
    "judge_majority": 1,
}


@pytest.fixture(scope="module")
def synthetic_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_jsonl(SCENES, tmp_path_factory.mktemp("synthetic") / "synthetic.jsonl")


@pytest.fixture(scope="module")
def synthetic(synthetic_dataset: Path) -> Run:
    logs = synthetic_dataset.parent / "official-logs"
    return _run(run_full(synthetic_dataset, *scripted_models(), logs, protocol="official"))


@pytest.fixture(scope="module")
def corrected(synthetic_dataset: Path) -> Run:
    logs = synthetic_dataset.parent / "corrected-logs"
    return _run(run_full(synthetic_dataset, *scripted_models(), logs, protocol="corrected"))


def _conversation(sample: EvalSample) -> list[tuple[str, str]]:
    """(speaker, full text) of every message: the greeting, then each turn's reply as sent."""
    start = sample.store["Conversation:start_speaker"]
    stored = sample.store["Conversation:turns"]
    turns = [r for r in sent_requests(sample, SCRIPTED) if r.kind == "turn"]
    assert [t["text"] for t in stored[1:]] == [t.response for t in turns]
    return [(start, GREETING), *((t["speaker"], t["text"]) for t in stored[1:])]


def _request_key(sent: Sent) -> tuple[str, str, float | None, int | None, Messages]:
    return (sent.kind, sent.model, sent.temperature, sent.max_tokens, sent.messages)


def _expected_evaluations(
    record: Mapping[str, Any], conversation: Sequence[tuple[str, str]], corrected: bool
) -> Counter[tuple[str, str, float | None, int | None, Messages]]:
    """Every evaluation request the rules call for (docs/protocol.md §3.1-3.2, §4.2; in
    corrected mode each character sees its own seat, judges a bystander's, all at temperature 0)."""
    start = conversation[0][0]
    characters = {c["name"]: c for c in record["characters"]}
    interview_temperature = 0.0 if corrected else 1.0
    expected: Counter[tuple[str, str, float | None, int | None, Messages]] = Counter()

    def ask(kind: str, who: str, question: str) -> None:
        if kind == "judge":
            seat = None if corrected else start
            system, model, temperature = JUDGE_SYSTEM, who, 0.0
        else:
            seat = who if corrected else start
            system, model = persona_prompt(record, characters[who]), "agent"
            temperature = interview_temperature
        messages = (("system", system), *view(conversation, seat), ("user", question))
        expected[(kind, model, temperature, 128, messages)] += 1

    for character in record["characters"]:
        for goal in character["goals"]:
            asked = goal["eval_questions"]
            for entry in [*asked["self"], *asked["others"]]:
                ask("interview", entry["obj"], entry["question"])
            for entry in asked["judge"]:
                for judge in JUDGES:
                    ask("judge", judge.removeprefix(SCRIPTED), entry["question"])
        for item in character["info_reason_questions"]:
            ask("mcq", character["name"], mcq_text(item))
    return expected


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_synthetic_speaker_order_follows_the_group_chat_rules(
    synthetic: Run, scene_id: int
) -> None:
    names = [c["name"] for c in RECORDS[scene_id]["characters"]]
    conversation = _conversation(synthetic.samples[scene_id])
    speakers = [speaker for speaker, _ in conversation]
    assert len(conversation) == 15 and conversation[0][1] == GREETING  # 14 model turns
    assert set(speakers) <= set(names)
    assert all(a != b for a, b in itertools.pairwise(speakers))


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_synthetic_turn_requests_show_each_speakers_own_view(synthetic: Run, scene_id: int) -> None:
    record = RECORDS[scene_id]
    characters = {c["name"]: c for c in record["characters"]}
    conversation = _conversation(synthetic.samples[scene_id])
    turns = [r for r in sent_requests(synthetic.samples[scene_id], SCRIPTED) if r.kind == "turn"]
    for i, request in enumerate(turns, start=1):
        speaker = conversation[i][0]
        system = persona_prompt(record, characters[speaker])
        expected = (("system", system), *view(conversation[:i], speaker))
        assert (request.model, request.temperature, request.max_tokens) == ("agent", 1.0, 128)
        assert request.messages == expected, f"turn {i}"


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_synthetic_evaluation_requests_follow_the_official_rules(
    synthetic: Run, scene_id: int
) -> None:
    record = RECORDS[scene_id]
    sample = synthetic.samples[scene_id]
    sent = Counter(_request_key(r) for r in sent_requests(sample, SCRIPTED) if r.kind != "turn")
    expected = _expected_evaluations(record, _conversation(sample), corrected=False)
    assert sent == expected
    # Call accounting (§9): per goal |self| + |others| + J * |judge|, plus one per MCQ.
    calls = sum(
        len(g["eval_questions"]["self"])
        + len(g["eval_questions"]["others"])
        + len(JUDGES) * len(g["eval_questions"]["judge"])
        for c in record["characters"]
        for g in c["goals"]
    ) + sum(len(c["info_reason_questions"]) for c in record["characters"])
    assert sum(sent.values()) == calls


def _check_goals(
    run: Run,
    scene_id: int,
    scenes: Mapping[int, Mapping[str, float]],
    characters: Mapping[int, Mapping[str, Mapping[str, float]]],
) -> None:
    value, metadata = score_of(run.samples[scene_id])
    assert list(metadata["judges"].values()) == list(JUDGES)
    for key in GOAL_KEYS:
        assert same(value[key], scenes[scene_id][key]), key
    assert set(per_character(metadata)) == set(characters[scene_id])
    for name, expected in characters[scene_id].items():
        for key in GOAL_KEYS:
            assert same(per_character(metadata)[name][key], expected[key]), (name, key)


def _check_mcq(
    run: Run, scene_id: int, expected: Mapping[int, tuple[Mapping[str, float], float]]
) -> None:
    value, metadata = score_of(run.samples[scene_id])
    per_character, accuracy = expected[scene_id]
    assert same(value["mcq_accuracy"], accuracy)
    assert set(metadata["mcq_per_character"]) == set(per_character)
    for name, expected_accuracy in per_character.items():
        assert same(metadata["mcq_per_character"][name], expected_accuracy), name


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_synthetic_official_goal_scores(synthetic: Run, scene_id: int) -> None:
    _check_goals(synthetic, scene_id, OFFICIAL_SCENES, OFFICIAL_CHARACTERS)
    assert score_of(synthetic.samples[scene_id])[1]["unreadable_goal_answers"] == 0


def test_synthetic_official_per_judge_columns_take_the_first_judge_question(synthetic: Run) -> None:
    owner, goal = TWO_JUDGE_QUESTIONS
    scores = per_goal(synthetic.samples[901])[owner][goal]
    for key, expected in OFFICIAL_TWO_QUESTION_GOAL.items():
        assert same(scores[key], expected), key


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_synthetic_official_mcq_scores(synthetic: Run, scene_id: int) -> None:
    _check_mcq(synthetic, scene_id, OFFICIAL_MCQ)


def _hand_scene_values(
    scenes: Mapping[int, Mapping[str, float]],
    mcq: Mapping[int, tuple[Mapping[str, float], float]],
    included: Mapping[int, bool],
) -> list[SceneValues]:
    judges = {"judge_1": "judge-x", "judge_2": "judge-y"}
    renamed = {
        "other": "others",
        "judge_mean": "judge_avg",
        **{k: f"judge_{v}" for k, v in judges.items()},
    }
    return [
        SceneValues(
            RECORDS[sid]["template_idx"],
            {renamed.get(k, k): v for k, v in scenes[sid].items()},
            mcq[sid][1] if included[sid] else None,
        )
        for sid in sorted(scenes)
    ]


def test_synthetic_official_template_metrics(synthetic: Run) -> None:
    metrics = template_metrics(synthetic.log)
    by_template: dict[int, list[int]] = {91: [901], 92: [902, 903]}
    for key in GOAL_KEYS:
        values = {t: [OFFICIAL_SCENES[s][key] for s in ids] for t, ids in by_template.items()}
        assert same(metrics[key]["template_mean"], scored_template_mean(values)), key
        assert math.isnan(metrics[key]["psi"]), key  # template 91 has one scene
    # self by hand: mean(8/15, mean(1/2, 1/3)) = 57/120
    assert same(metrics["self"]["template_mean"], 57 / 120)
    # What the official code would report: info NaN (scene 901 is included with NaN); the log's
    # MCQ metrics are over scored scenes (only 903 here) - the documented difference.
    official = official_template_results(
        _hand_scene_values(OFFICIAL_SCENES, OFFICIAL_MCQ, OFFICIAL_MCQ_INCLUDED)
    )
    assert same(official["goal_self_score"], round(57 / 120, 4))
    assert math.isnan(official["info_score"]) and math.isnan(official["info_score_std"])
    assert same(metrics["mcq_accuracy"]["template_mean"], 2 / 3)
    assert math.isnan(metrics["mcq_accuracy"]["psi"])


# ============================================================================================
# C. Corrected mode: each documented deviation happens
# ============================================================================================


def test_corrected_mode_is_recorded_in_the_log(corrected: Run) -> None:
    assert corrected.log.eval.task_args["protocol"] == "corrected"
    assert corrected.log.eval.metadata is not None
    assert corrected.log.eval.metadata["protocol"]["mode"] == "corrected"
    for sample in corrected.samples.values():
        assert score_of(sample)[1]["protocol"] == "corrected"


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_corrected_mode_simulates_the_same_conversation(
    synthetic: Run, corrected: Run, scene_id: int
) -> None:
    """Only the evaluation changes: same seed, same turn requests, same conversation."""
    ours = [r for r in sent_requests(corrected.samples[scene_id], SCRIPTED) if r.kind == "turn"]
    official = [r for r in sent_requests(synthetic.samples[scene_id], SCRIPTED) if r.kind == "turn"]
    assert ours == official


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_corrected_interviews_use_own_seat_and_judge_temperature(
    corrected: Run, scene_id: int
) -> None:
    sample = corrected.samples[scene_id]
    conversation = _conversation(sample)
    sent = Counter(_request_key(r) for r in sent_requests(sample, SCRIPTED) if r.kind != "turn")
    assert sent == _expected_evaluations(RECORDS[scene_id], conversation, corrected=True)
    # Spelled out: a non-start interviewee sees its own turns as assistant, nobody else's.
    start = conversation[0][0]
    checked = 0
    for kind, _model, temperature, _, messages in sent:
        if kind == "judge":
            assert temperature == 0.0 and {role for role, _ in messages[1:]} == {"user"}
            continue
        assert temperature == 0.0  # interviews and MCQs at the judge temperature
        interviewee = messages[0][1].removeprefix("You are ").split(".", 1)[0]
        for (role, text), (speaker, _) in zip(messages[1:-1], conversation, strict=True):
            assert (role == "assistant") == (speaker == interviewee), (interviewee, text)
        checked += int(interviewee != start)
    assert checked > 0


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_corrected_goal_scores(corrected: Run, scene_id: int) -> None:
    _check_goals(corrected, scene_id, CORRECTED_SCENES, CORRECTED_CHARACTERS)
    metadata = score_of(corrected.samples[scene_id])[1]
    assert metadata["unreadable_goal_answers"] == CORRECTED_UNREADABLE_GOAL_ANSWERS[scene_id]


def test_corrected_yes_no_reading(corrected: Run) -> None:
    """`yes` counts as yes; `Yesterday ...` and `I cannot say.` are unreadable (None), not no."""
    goals = goal_answers(corrected.samples[901])
    readings = {
        answer["answer"]: answer["reading"]
        for character in goals.values()
        for kinds in character.values()
        for answers in kinds.values()
        for answer in answers
    }
    assert readings["yes"] == 1
    assert readings["NO"] == 0
    assert readings["No. Well... Yes."] == 0
    assert readings["Yesterday was better."] is None
    assert readings["I cannot say."] is None


def test_corrected_per_judge_columns_use_every_judge_question(corrected: Run) -> None:
    owner, goal = TWO_JUDGE_QUESTIONS
    scores = per_goal(corrected.samples[901])[owner][goal]
    for key, expected in CORRECTED_TWO_QUESTION_GOAL.items():
        assert same(scores[key], expected), key


@pytest.mark.parametrize("scene_id", sorted(RECORDS))
def test_corrected_mcq_average_over_characters_with_questions(
    corrected: Run, scene_id: int
) -> None:
    _check_mcq(corrected, scene_id, CORRECTED_MCQ)


def test_corrected_template_metrics_skip_single_scene_templates(corrected: Run) -> None:
    metrics = template_metrics(corrected.log)
    by_template: dict[int, list[int]] = {91: [901], 92: [902, 903]}
    for key in GOAL_KEYS:
        values = {t: [CORRECTED_SCENES[s][key] for s in ids] for t, ids in by_template.items()}
        assert same(metrics[key]["template_mean"], scored_template_mean(values)), key
        assert same(metrics[key]["psi"], scored_psi(values)), key
    # By hand: self PSI = stdev(1, 1/3) = (2/3)/sqrt(2) from template 92 alone; MCQ template
    # mean = mean(2/3, mean(1, 2/3)) = 3/4 and PSI = stdev(1, 2/3) = (1/3)/sqrt(2).
    assert same(metrics["self"]["psi"], (2 / 3) / math.sqrt(2))
    assert same(metrics["mcq_accuracy"]["template_mean"], 3 / 4)
    assert same(metrics["mcq_accuracy"]["psi"], (1 / 3) / math.sqrt(2))
