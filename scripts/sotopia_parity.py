"""Record the Sotopia parity fixtures (tests/fixtures/sotopia-parity/) from sotopia 0.1.5 itself.

Run it with the Python of a separate venv that holds sotopia 0.1.5 (never the project's venv):

    python3 -m venv /tmp/sotopia-venv && /tmp/sotopia-venv/bin/pip install sotopia==0.1.5
    /tmp/sotopia-venv/bin/python scripts/sotopia_parity.py --project-python .venv/bin/python

It starts the project's stub server (`python -m agentsense.standin.stub`, run by the project's
Python, with a request log), plays demo episodes with sotopia 0.1.5's own `arun_one_episode`
(both agents `custom/agent@URL`, the judge `custom/JUDGE@URL`, round-robin, the terminal
evaluator of `run_async_server`), and writes one JSON file per episode: every request sotopia
sent (model, messages, parameters) with the stub's reply, the episode log's rewards, and the
scores sotopia's own evaluator gives for the judge's reply (`EpisodeLLMEvaluator.__acall__` on
the episode's inbox, then `unweighted_aggregate_evaluate`: the p1/p2 rates the episode loop
loses). Offline: no Redis (`SOTOPIA_STORAGE_BACKEND=local`), litellm's bundled price map.

sotopia lists the action types from a set (`envs/parallel.py:161`), in an order that depends on
PYTHONHASHSEED; the script re-runs itself under the first seed that gives the project's default
order, so the prompts can be compared as text. `--action-types A,B,...` records under the first
seed that gives that order instead: the first episode only, as `<combo>-reordered.json` (the
parity test plays it with `-T action_types=` read off its prompts), and no published files.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "sotopia-parity"
PUBLISHED = ROOT / "tests" / "fixtures" / "sotopia-published"
DEMO = ROOT / "src" / "agentsense" / "sotopia" / "data" / "demo.json"
ORDER = ["none", "speak", "non-verbal communication", "action", "leave"]
# (combo, judge model): a judge reply in range, and one the stub puts out of range (goal 11).
EPISODES = [("demo-env-01-1", "judge"), ("demo-env-03-1", "outofrange-judge")]
AGENT_MODEL = "agent"
REFORMAT = "Given the string that can not be parsed by json parser"  # format_bad_output
SET_ORDER = 'print(list(set(["none", "speak", "non-verbal communication", "action", "leave"])))'


def hash_seed(order: list[str]) -> str:
    """The first PYTHONHASHSEED under which sotopia's action set lists in `order`."""
    for seed in range(5000):
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        out = subprocess.run(
            [sys.executable, "-c", SET_ORDER], env=env, capture_output=True, text=True, check=True
        )
        if out.stdout.strip() == repr(order):
            return str(seed)
    raise SystemExit(f"no PYTHONHASHSEED below 5000 lists the action types as {order}")


def start_stub(project_python: str, log: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [project_python, "-m", "agentsense.standin.stub", "--port", "0", "--log", str(log)]
    stub = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    assert stub.stdout is not None
    return stub, stub.stdout.readline().strip()


def profiles(combo_id: str) -> tuple[Any, list[Any]]:
    """sotopia's EnvironmentProfile and AgentProfiles from the demo set's records."""
    from sotopia.database import AgentProfile, EnvironmentProfile, RelationshipType

    data = json.loads(DEMO.read_text(encoding="utf-8"))
    combo = next(c for c in data["combos"] if c["combo_id"] == combo_id)
    env = next(e for e in data["environments"] if e["env_id"] == combo["env_id"])
    agents = {a["agent_id"]: a for a in data["agents"]}
    env_fields = {k: v for k, v in env.items() if k != "env_id"}
    env_fields["relationship"] = RelationshipType[env["relationship"]]  # demo: by name
    environment = EnvironmentProfile(pk=env["env_id"], **env_fields)
    people = [
        AgentProfile(pk=i, **{k: v for k, v in agents[i].items() if k != "agent_id"})
        for i in combo["agent_ids"]
    ]
    return environment, people


async def episode(combo_id: str, judge: str, url: str) -> dict[str, Any]:
    from sotopia.agents import LLMAgent
    from sotopia.database import SotopiaDimensions
    from sotopia.envs import ParallelSotopiaEnv
    from sotopia.envs.evaluators import (
        EpisodeLLMEvaluator,
        EvaluationForAgents,
        RuleBasedTerminatedEvaluator,
        unweighted_aggregate_evaluate,
    )
    from sotopia.server import arun_one_episode

    environment, people = profiles(combo_id)
    evaluator = EpisodeLLMEvaluator(f"custom/{judge}@{url}", EvaluationForAgents[SotopiaDimensions])
    env = ParallelSotopiaEnv(
        env_profile=environment,
        model_name=f"custom/{judge}@{url}",
        action_order="round-robin",
        evaluators=[RuleBasedTerminatedEvaluator(max_turn_number=20, max_stale_turn=2)],
        terminal_evaluators=[evaluator],
    )
    agents = [LLMAgent(agent_profile=p, model_name=f"custom/{AGENT_MODEL}@{url}") for p in people]
    stream = await arun_one_episode(env=env, agent_list=agents, omniscient=False, streaming=True)
    turns: list[Any] = []
    async for turns in stream:  # type: ignore[union-attr]  # noqa: B007  (the last yield counts)
        pass
    last = turns
    # What the episode log records as rewards (0.1.5: `complete_rating`, always 0).
    rewards = next(
        m[2].message for turn in last for m in turn if m[:2] == ("Evaluation", "Rewards")
    )
    # The evaluator's own reading of the same reply (the stub answers the same request alike).
    responses = await evaluator.__acall__(turn_number=env.turn_number, messages=env.inbox)
    aggregate = unweighted_aggregate_evaluate(responses) if responses else None
    return {
        "combo_id": combo_id,
        "agent_model": AGENT_MODEL,
        "judge_model": judge,
        "episode_log_rewards": rewards,
        "evaluator_responses": [list(r) for r in responses],
        "p1_rate": aggregate.p1_rate if aggregate else None,
        "p2_rate": aggregate.p2_rate if aggregate else None,
        # For the published-shape fixtures (`serialize`), not the parity fixture.
        "_log": {
            "environment": environment.pk,
            "agents": [p.pk for p in people],
            "models": [judge, AGENT_MODEL, AGENT_MODEL],  # without the stub's changing URL
            "messages": [[(m[0], m[1], m[2].to_natural_language()) for m in t] for t in last[:-2]],
            "reasoning": env.inbox and str(aggregate.comments if aggregate else ""),
            "rewards": [aggregate.p1_rate, aggregate.p2_rate] if aggregate else None,
        },
    }


def serialize(logs: list[dict[str, Any]]) -> None:
    """The demo set and the recorded episodes written by 0.1.5's own serialization
    (`database/serialization.py`): the profile, environment and combo files under their default
    names, and an episodes file (the shape of `cmu-lti/sotopia`'s) of each episode sotopia could
    score, twice (as if by two model pairs: a published file holds many episodes of one combo)."""
    from sotopia.database import (
        AgentProfile,
        EnvAgentComboStorage,
        EnvironmentProfile,
        EpisodeLog,
        RelationshipType,
    )
    from sotopia.database.serialization import (
        agentprofiles_to_jsonl,
        envagnetcombostorage_to_jsonl,
        environmentprofiles_to_jsonl,
        episodes_to_jsonl,
    )

    PUBLISHED.mkdir(parents=True, exist_ok=True)
    data = json.loads(DEMO.read_text(encoding="utf-8"))
    agents = [
        AgentProfile(pk=a["agent_id"], **{k: v for k, v in a.items() if k != "agent_id"})
        for a in data["agents"]
    ]
    environments = []
    for e in data["environments"]:
        fields = {k: v for k, v in e.items() if k != "env_id"}
        fields["relationship"] = RelationshipType[e["relationship"]]
        # 0.1.5's serializer takes these as strings only (sotopia's own data has them so).
        for constraint in ("age_constraint", "occupation_constraint"):
            fields[constraint] = fields[constraint] or ""
        environments.append(EnvironmentProfile(pk=e["env_id"], **fields))
    combos = [
        EnvAgentComboStorage(pk=c["combo_id"], env_id=c["env_id"], agent_ids=c["agent_ids"])
        for c in data["combos"]
    ]
    for record in [*agents, *environments]:
        record.save()  # the local backend: episodes_to_jsonl looks profiles up by pk
    agentprofiles_to_jsonl(agents, str(PUBLISHED / "agent_profiles.jsonl"))
    environmentprofiles_to_jsonl(environments, str(PUBLISHED / "environment_profiles.jsonl"))
    envagnetcombostorage_to_jsonl(combos, str(PUBLISHED / "env_agent_combo_storages.jsonl"))
    episodes = [
        EpisodeLog(
            pk=f"parity-{log['environment']}-{copy}",
            tag="agentsense_parity",
            rewards_prompt="",
            **{**log, "models": [f"{m}-{copy}" for m in log["models"]]},
        )
        for log in logs
        if log["rewards"] is not None
        for copy in (1, 2)
    ]
    episodes_to_jsonl(episodes, str(PUBLISHED / "sotopia_episodes_v1.jsonl"))
    print(f"{PUBLISHED.relative_to(ROOT)}: {len(episodes)} episodes, demo profiles", flush=True)


def text(request: dict[str, Any]) -> str:
    return "".join(m["content"] for m in request["messages"])


def requests_of(log: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    keep = ("model", "messages", "temperature", "max_tokens", "params", "reply")
    return [{k: r[k] for k in keep} for r in lines if r["path"] == "/v1/chat/completions"]


async def record(project_python: str, order: list[str]) -> None:
    """Every episode in one event loop (litellm's logging worker is bound to the first)."""
    from importlib.metadata import version

    import sotopia  # noqa: F401  (fails early outside the sotopia venv)

    OUT.mkdir(parents=True, exist_ok=True)
    logs = []
    reordered = order != ORDER
    for combo_id, judge in EPISODES[:1] if reordered else EPISODES:
        log = OUT / f"{combo_id}.log.jsonl"
        log.unlink(missing_ok=True)
        stub, url = start_stub(project_python, log)
        try:
            result = await episode(combo_id, judge, url)
            logs.append(result.pop("_log"))
        finally:
            stub.terminate()
            stub.wait(timeout=10)
        sent = requests_of(log)
        # The script's own evaluator call is the episode's last judge request once more.
        asks = [i for i, r in enumerate(sent) if r["model"] == judge and REFORMAT not in text(r)]
        first, again = asks[0], asks[-1]
        assert sent[again]["messages"] == sent[first]["messages"], "the judge's request changed"
        fixture = {
            "sotopia_version": version("sotopia"),
            "pythonhashseed": os.environ["PYTHONHASHSEED"],
            "action_types": order,
            **result,
            "requests": sent[:again],
        }
        log.unlink()
        path = OUT / f"{combo_id}{'-reordered' if reordered else ''}.json"
        path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{path.relative_to(ROOT)}: {again} requests", flush=True)
    if not reordered:
        serialize(logs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--project-python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument(
        "--action-types",
        default=",".join(ORDER),
        help="the order sotopia's action set must list in (comma-separated; default: the "
        "project's default order)",
    )
    args = parser.parse_args()
    order = [part.strip() for part in args.action_types.split(",")]
    os.environ.setdefault("SOTOPIA_STORAGE_BACKEND", "local")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("CUSTOM_API_KEY", "EMPTY")
    # 0.1.5's reformatting call (`format_bad_output`) passes no api_key: litellm's openai route
    # then needs this one, or the call fails before it is sent.
    os.environ.setdefault("OPENAI_API_KEY", "EMPTY")
    if "PYTHONHASHSEED" not in os.environ:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed(order)}
        raise SystemExit(subprocess.run([sys.executable, *sys.argv], env=env).returncode)
    # The local backend makes ~/.sotopia/data; keep it out of the user's home.
    with tempfile.TemporaryDirectory(prefix="sotopia-parity-home-") as home:
        os.environ["HOME"] = home
        asyncio.run(record(args.project_python, order))


if __name__ == "__main__":
    main()
