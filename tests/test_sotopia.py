"""agentsense/sotopia: the demo set, record-named errors, who sees which message, the turn order,
`leave`, the turn limit, staleness, SOTOPIA-EVAL's NaN on unreadable or out-of-range values,
and an end-to-end stand-in run through the CLI (slow)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

from agentsense.engine.errors import PrerequisiteError
from agentsense.sotopia import SCORE_KEYS
from agentsense.sotopia.dataset import SotopiaDataError, demo_path, sotopia_dataset
from agentsense.sotopia.episode import SotopiaSettings, sotopia_episode
from agentsense.sotopia.evaluation import episode_value, read_evaluation
from agentsense.sotopia.prompts import (
    DIMENSIONS,
    RANGES,
    SOTOPIA_VERSION,
    agent_format_instructions,
    evaluator_format_instructions,
)
from agentsense.sotopia.published import load_episodes
from agentsense.sotopia.record import RelationshipType
from agentsense.sotopia.render import bio, for_agent, for_environment
from agentsense.tasks import sotopia

AGENT = "standin/persona/agent"
LOGS = Path(os.environ["INSPECT_LOG_DIR"]) / "sotopia"  # the test sandbox's (conftest.py)
JUDGE = "standin/persona/judge"


def run(
    model: str | Model, judge: str | list[str] = JUDGE, limit: int = 2, **args: object
) -> EvalLog:
    (log,) = eval(
        sotopia(**args),
        model=model,
        model_roles={"judge": judge},
        limit=limit,
        display="none",
        log_dir=str(LOGS),
    )
    assert log.status == "success", log.error
    log = read_eval_log(log.location, resolve_attachments=True)
    assert log.samples
    return log


def prompts(sample: EvalSample) -> list[str]:
    return [e.input[0].text for e in sample.events if e.event == "model"]


def store(sample: EvalSample) -> dict[str, object]:
    return {
        k.split(":", 1)[1]: v for k, v in sample.store.items() if k.startswith("SotopiaEpisode")
    }


def mock(*replies: dict[str, str] | str) -> Model:
    """mockllm answering `replies` in turn (with usage set, so it counts no tokens itself)."""
    outputs = []
    for r in replies:
        output = ModelOutput.from_content(
            "mockllm/model", r if isinstance(r, str) else json.dumps(r)
        )
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        outputs.append(output)
    return get_model("mockllm/model", custom_outputs=outputs)


# --- data -----------------------------------------------------------------------------------


def test_the_demo_set_validates_with_ten_environments_of_two_pairs() -> None:
    episodes = load_episodes("demo")
    by_env: dict[str, set[tuple[str, str]]] = {}
    for e in episodes:
        by_env.setdefault(e.environment.env_id, set()).add(tuple(a.agent_id for a in e.agents))
    assert len(by_env) >= 10
    assert all(len(pairs) == 2 for pairs in by_env.values())
    assert len({e.combo_id for e in episodes}) == len(episodes)


def broken_file(tmp_path: Path) -> Path:
    data = json.loads(demo_path().read_text())
    del data["agents"][0]["first_name"]
    data["environments"][2]["agent_goals"] = ["only one"]
    data["combos"][1]["agent_ids"][1] = "nobody"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    return path


def test_a_broken_record_is_named_with_its_field(tmp_path: Path) -> None:
    path = broken_file(tmp_path)
    with pytest.raises(SotopiaDataError) as error:
        load_episodes(str(path))
    message = str(error.value)
    assert "agents[0] (demo-agent-01): field `first_name`: missing" in message
    assert "environments[2] (demo-env-03): field `agent_goals`:" in message
    # a reference is checked once the records are sound
    fixed = json.loads(path.read_text())
    fixed["agents"][0]["first_name"] = "Marisol"
    fixed["environments"][2]["agent_goals"] = ["a", "b"]
    path.write_text(json.dumps(fixed))
    with pytest.raises(
        SotopiaDataError,
        match=r"combos\[1\] \(demo-env-01-2\): field `agent_ids\[1\]`: no agent 'nobody'",
    ):
        load_episodes(str(path))


def test_a_bad_dataset_or_argument_stops_the_task_before_any_model_call(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError, match="neither 'demo', 'official'"):
        sotopia(dataset=str(tmp_path / "missing.json"))
    with pytest.raises(PrerequisiteError, match="max_turns"):
        sotopia(max_turns=0)


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("none,speak,talk,action,leave", "unknown 'talk'; missing 'non-verbal communication'"),
        ("none,speak,speak,action,leave", "repeated 'speak'; missing 'non-verbal communication'"),
        ("none,speak,action,leave", "missing 'non-verbal communication'"),
        ("none speak non-verbal communication action leave", "unknown 'none speak non-verbal"),
        # Inspect's CLI splits `-T action_types=a,b,...` into a list.
        (["none", "speak", "speak", "talk"], "unknown 'talk'; repeated 'speak'; missing"),
    ],
)
def test_a_bad_action_list_is_named_before_any_model_call(
    given: str | list[str], problem: str
) -> None:
    with pytest.raises(PrerequisiteError) as raised:
        sotopia(action_types=given)
    message = str(raised.value)
    assert f"-T action_types: found {given!r}; expected each of none, speak," in message
    assert problem in message


REORDERED = ["action", "non-verbal communication", "speak", "none", "leave"]


def test_the_action_list_is_sent_in_the_order_given() -> None:
    """sotopia 0.1.5 lists the action types in a PYTHONHASHSEED order: any order can be asked."""
    order = "action, non-verbal communication,speak,none,leave"  # spaces around commas ignored
    log = run(AGENT, limit=1, max_turns=1, action_types=order)
    (agent, _judge) = prompts(log.samples[0])  # type: ignore[index]
    listed = "action non-verbal communication speak none leave"
    assert f"Your available action types are\n{listed}.\n" in agent
    recorded = log.eval.metadata and log.eval.metadata["sotopia"]["action_types"]
    assert recorded == REORDERED
    default = run(AGENT, limit=1, max_turns=1)
    (agent, _judge) = prompts(default.samples[0])  # type: ignore[index]
    assert "are\nnone speak non-verbal communication action leave.\n" in agent


# --- rendering and prompts ------------------------------------------------------------------


def test_views_hide_another_agents_nodes_and_keep_hint_text() -> None:
    text = "<root>shared <p viewer='agent_1'>private</p> tail <extra_info>hint</extra_info></root>"
    assert for_agent(text, 0) == "shared  tail hint"
    assert for_agent(text, 1) == "shared private tail hint"
    assert for_environment(text) == "shared private tail hint"
    assert for_agent('Ann said: "5 < 6 & more"', 0) == 'Ann said: "5 < 6 & more"'


def test_bios_keep_what_the_relationship_would_not_reveal_for_its_owner() -> None:
    agent = load_episodes("demo")[0].agents[0]
    stranger = bio(RelationshipType.stranger, agent, 0)
    friend = bio(RelationshipType.friend, agent, 0)
    assert for_agent(stranger, 1) == ""
    assert for_agent(friend, 1).startswith("Marisol Quintero is a 34-year-old female bakery owner.")
    assert agent.secret not in for_agent(friend, 1)
    assert agent.secret in for_agent(friend, 0)


def test_format_instructions_are_the_pydantic_schemas() -> None:
    action = json.loads(agent_format_instructions())
    assert action["title"] == "AgentAction"
    assert action["properties"]["action_type"]["enum"][-1] == "leave"
    evaluation = json.loads(evaluator_format_instructions())
    assert evaluation["title"] == "EvaluationForAgents[SotopiaDimensions]"
    assert list(evaluation["$defs"]["SotopiaDimensions"]["properties"]) == list(DIMENSIONS)


# --- the episode ----------------------------------------------------------------------------


def test_who_sees_which_message_and_the_round_robin_order() -> None:
    log = run(AGENT, limit=1, max_turns=3)
    sample = log.samples[0]
    episode = load_episodes("demo")[0]
    first, second = (a.name for a in episode.agents)
    asked = prompts(sample)
    agents, judge = asked[:-1], asked[-1]
    assert [p.split(",", 1)[0] for p in agents] == [
        f"Imagine you are {first}",
        f"Imagine you are {second}",
        f"Imagine you are {first}",
    ]
    assert f"{second}'s background: Unknown" in agents[0]
    assert f"{second}'s goal: Unknown" in agents[0]
    assert "to the airport" in agents[0] and "job interview" not in agents[0]
    assert "job interview" in agents[1] and "to the airport" not in agents[1]
    said = store(sample)["actions"][0]  # type: ignore[index]
    assert f"Turn #0: {first}" in agents[1] and said["argument"] in agents[1]
    assert "You are at Turn #1." in agents[1] and "You are at Turn #2." in agents[2]
    # The judge sees both bios and goals whole, and the turns numbered from 1.
    assert (
        "to the airport" in judge and "job interview" in judge and episode.agents[1].secret in judge
    )
    assert f"Turn #1\n{first} " in judge and "did nothing" not in judge
    assert 'use exactly these keys: ["agent_1", "agent_2"]' in judge
    assert log.eval.metadata is not None and log.eval.metadata["sotopia_version"] == SOTOPIA_VERSION


def test_the_solver_alone_with_simultaneous_actions_asks_every_agent_every_turn() -> None:
    settings = SotopiaSettings(action_order="simultaneous", max_turns=2)
    episodes = load_episodes("demo")[:1]
    task = Task(dataset=sotopia_dataset(episodes, name="one"), solver=sotopia_episode(settings))
    (log,) = eval(task, model=AGENT, display="none", log_dir=str(LOGS))
    assert log.status == "success", log.error
    sample = read_eval_log(log.location, resolve_attachments=True).samples[0]  # type: ignore[index]
    names = [a.name for a in episodes[0].agents]
    asked = [p.split(",", 1)[0] for p in prompts(sample)]
    assert asked == [f"Imagine you are {n}" for n in names] * 2
    assert [(a["turn"], a["speaker"]) for a in store(sample)["actions"]] == [  # type: ignore[union-attr]
        (t, n) for t in (1, 2) for n in names
    ]


def test_the_turn_limit_ends_the_episode() -> None:
    log = run(AGENT, limit=2, max_turns=3)
    for sample in log.samples or []:
        data = store(sample)
        assert max(a["turn"] for a in data["actions"]) == 3  # type: ignore[union-attr]
        assert "too long" in str(data["terminated_because"])
        assert len(prompts(sample)) == 3 + 1  # one agent call per turn, then the judge


def test_leave_ends_the_episode_the_turn_it_is_taken() -> None:
    model = mock(
        {"action_type": "speak", "argument": "Hello."}, {"action_type": "leave", "argument": ""}
    )
    log = run(model, limit=1)
    sample = log.samples[0]
    data = store(sample)
    assert [a["action_type"] for a in data["actions"]] == ["speak", "none", "none", "leave"]  # type: ignore[union-attr]
    assert data["terminated_because"] == "Too few active agents; "
    assert "left the conversation" in prompts(sample)[-1]
    assert len(prompts(sample)) == 3


def test_unparsed_replies_are_none_and_two_nones_in_a_row_end_the_episode() -> None:
    log = run(mock("not json at all", "still not json"), limit=1)
    sample = log.samples[0]
    data = store(sample)
    assert [a["unparsed"] for a in data["actions"]] == [True, False, False, True]  # type: ignore[union-attr]
    assert "stales" in str(data["terminated_because"])
    score = sample.scores["sotopia_eval"]  # type: ignore[index]
    assert score.metadata is not None and score.metadata["unparsed_actions"] == 2


# --- SOTOPIA-EVAL -----------------------------------------------------------------------------


def reply(scores: dict[str, object]) -> str:
    block = {d: ["why", scores.get(d, RANGES[d][0])] for d in DIMENSIONS}
    return json.dumps({"evaluations": {"agent_1": block, "agent_2": dict(block)}})


def test_out_of_range_and_unreadable_values_are_nan_and_counted() -> None:
    readings, problems = read_evaluation(reply({"goal": 11, "secret": "a lot"}), 2)
    assert math.isnan(readings[0]["goal"][0]) and math.isnan(readings[1]["secret"][0])
    assert readings[0]["believability"][0] == 0.0
    assert "agent_1 goal: 11 is out of 0..10" in problems
    assert "agent_2 secret: not an integer: 'a lot'" in problems
    value = episode_value([readings])
    assert math.isnan(value["goal"]) and math.isnan(value["overall"])
    assert value["knowledge"] == 0.0
    readings, problems = read_evaluation("I refuse.", 2)
    assert all(math.isnan(v) for v in episode_value([readings]).values())
    assert problems == ["no `evaluations` object in the reply (14 values unreadable)"]


def test_fenced_and_string_scores_read_as_sotopia_reads_them() -> None:
    text = "```json\n" + reply({"goal": "7", "relationship": -2.0}) + "\n```"
    readings, problems = read_evaluation(text, 2)
    assert problems == [] and readings[0]["goal"][0] == 7 and readings[1]["relationship"][0] == -2


def test_an_out_of_range_judge_leaves_nan_counted_in_the_log_never_zero() -> None:
    log = run(AGENT, judge=[JUDGE, "standin/persona/outofrange-judge"], limit=2, max_turns=2)
    assert log.results is not None
    by_name = {s.name: s for s in log.results.scores}
    assert set(by_name) == set(SCORE_KEYS)
    for sample in log.samples or []:
        score = sample.scores["sotopia_eval"]  # type: ignore[index]
        assert isinstance(score.value, dict)
        assert math.isnan(score.value["goal"]) and math.isnan(score.value["overall"])
        assert not math.isnan(score.value["believability"])
        assert score.metadata is not None
        assert score.metadata["unreadable"] == ["judge_2 agent_1 goal: 11 is out of 0..10"]
        first = score.metadata["judges"][0]["agents"]
        assert all(
            "reasoning" in d and d["score"] is not None for d in next(iter(first.values())).values()
        )
    assert by_name["goal"].scored_samples == 0 and by_name["goal"].unscored_samples == 2
    assert by_name["believability"].scored_samples == 2


@pytest.mark.slow
def test_a_standin_run_end_to_end_through_the_cli(tmp_path: Path) -> None:
    inspect = str(Path(sys.executable).with_name("inspect"))
    command = [
        inspect,
        "eval",
        "agentsense/sotopia",
        "-T",
        "dataset=demo",
        "-T",  # the CLI hands a comma-separated value over as a list
        f"action_types={','.join(REORDERED)}",
        "--model",
        AGENT,
        "--model-role",
        f"judge={JUDGE}",
        "--log-dir",
        str(tmp_path),
        "--display",
        "none",
    ]
    subprocess.run(command, check=True, capture_output=True, text=True, timeout=600)
    (info,) = list_eval_logs(str(tmp_path))
    log = read_eval_log(info.name)
    assert log.status == "success" and log.results is not None
    assert log.results.total_samples == len(load_episodes("demo"))
    assert {s.name for s in log.results.scores} == set(SCORE_KEYS)
    assert all(not math.isnan(s.metrics["mean"].value) for s in log.results.scores)
    assert log.eval.metadata and log.eval.metadata["sotopia"]["action_types"] == REORDERED
    # Re-judged from the command line: Inspect finds the scorer through the entry point.
    path = info.name.removeprefix("file://")
    rescore = [inspect, "score", path, "--scorer", "agentsense/sotopia_eval"]
    rescore += ["--action", "append", "--overwrite", "--display", "none"]
    done = subprocess.run(rescore, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rescored = read_eval_log(path)
    assert rescored.results is not None
    assert {s.name for s in rescored.results.scores} >= set(SCORE_KEYS)
    assert all(len(sample.scores or {}) == 2 for sample in rescored.samples or [])
