"""Reliability: faults, resume, secret isolation and official-data integrity, end to end.

Every run goes through the real `inspect` CLI and the `vllm/` provider against the stub server,
which records what actually reached the "model". Each test prints its figures (run with `-s`);
docs/reliability.md holds the summary table.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentsense.engine.conversation import Turn, visible_text
from agentsense.engine.download import git_blob_id
from agentsense.sense.dataset.samples import demo_path
from agentsense.sense.dataset.schema import Scenario
from agentsense.sense.dataset.validation import read_scenarios
from agentsense.sense.persona import system_prompt
from agentsense.sense.prompts import GREETING, JUDGE_SYSTEM_PROMPT, OPTION_MARKS, mcq_prompt
from agentsense.standin.stub import Faults, RequestRecord, StubServer
from agentsense.standin.stub.harness import (
    CliResult,
    InspectCLI,
    kill_after_answers,
    log_figures,
    sample_scores,
    score_differences,
)
from file_server import FileServer, Reply, file_server

pytestmark = pytest.mark.slow

JUDGES = "judge=vllm/judge-a,vllm/judge-b,vllm/judge-c"
# Role models inherit neither --attempt-timeout nor -M: give the judges their own.
ATTEMPT_TIMEOUT = 3
JUDGES_WITH_TIMEOUTS = (
    "judge=["
    + ", ".join(
        f"{{model: vllm/judge-{j}, attempt_timeout: {ATTEMPT_TIMEOUT}, "
        "model_args: {retry_delay: 1}}"
        for j in "abc"
    )
    + "]"
)
# The vLLM provider waits a fixed 5 s between its retries unless told otherwise.
AGENT_TIMEOUTS = ["-M", "retry_delay=1", "--attempt-timeout", str(ATTEMPT_TIMEOUT)]


def full_demo(*extra: str, judges: str = JUDGES) -> list[str]:
    return [
        "eval",
        "agentsense/full",
        "-T",
        "dataset=demo",
        "--model",
        "vllm/agent",
        "--model-role",
        judges,
        "--display",
        "none",
        *extra,
    ]


def only_log(cli: InspectCLI) -> Path:
    (log,) = cli.eval_logs()
    return log


def assert_ran(result: CliResult) -> None:
    assert result.returncode == 0, result.output[-3000:]


@dataclass(frozen=True)
class Run:
    seconds: float
    log: Path
    scores: dict[str, dict[str, object]]
    records: list[RequestRecord]


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """`agentsense/full` on the whole demo set, no faults: the reference for every comparison."""
    cli = InspectCLI(tmp_path_factory.mktemp("clean"))
    with StubServer() as stub:
        result = cli.run(full_demo(), env={"VLLM_BASE_URL": stub.base_url})
        assert_ran(result)
        records = stub.chat_records()
        duplicates = stub.paid_twice()
    log = only_log(cli)
    figures = log_figures(log)
    print(f"\nclean run: {result.seconds:.1f} s, {len(records)} requests, {figures}")
    assert figures.status == "success" and figures.samples == 24 and figures.errored == 0
    # Every call of a run is distinct, so "distinct bodies" counts the calls a run needs.
    assert duplicates == 0
    return Run(result.seconds, log, sample_scores(log), records)


# -- 1. faults ---------------------------------------------------------------------------------


def test_faults_500_and_hangs_lose_nothing(clean_run: Run, tmp_path: Path) -> None:
    faults = Faults(error_500=0.2, hang=0.05, hang_seconds=120, seed=11)
    cli = InspectCLI(tmp_path / "faults")
    with StubServer(faults=faults) as stub:
        result = cli.run(
            full_demo(*AGENT_TIMEOUTS, judges=JUDGES_WITH_TIMEOUTS),
            env={"VLLM_BASE_URL": stub.base_url},
        )
        outcomes = stub.outcomes()
    assert_ran(result)
    figures = log_figures(only_log(cli))
    faulty = sample_scores(only_log(cli))
    print(
        f"\nfaults 20% HTTP 500 + 5% hung (attempt timeout {ATTEMPT_TIMEOUT} s):"
        f"\n  fault-free run: {clean_run.seconds:.1f} s, {len(clean_run.records)} requests"
        f"\n  faulty run:     {result.seconds:.1f} s, {sum(outcomes.values())} requests "
        f"{dict(sorted(outcomes.items()))}"
        f"\n  log: {figures}"
        f"\n  samples with a score different from the fault-free run: "
        f"{len(score_differences(clean_run.scores, faulty))}"
    )
    assert outcomes["error_500"] > 0 and outcomes["hang"] > 0
    assert figures.status == "success" and figures.samples == 24
    assert figures.errored == 0 and figures.sample_retries == 0
    assert score_differences(clean_run.scores, faulty) == []


def test_rate_limits_drops_and_broken_json(clean_run: Run, tmp_path: Path) -> None:
    """429s and dropped connections are retried by Inspect; broken JSON needs --retry-on-error."""
    faults = Faults(rate_limit_429=0.05, retry_after=1, drop=0.03, malformed=0.01, seed=5)
    ids = ["101", "301", "501", "801"]
    cli = InspectCLI(tmp_path / "other-faults")
    with StubServer(faults=faults) as stub:
        result = cli.run(
            full_demo(
                *AGENT_TIMEOUTS,
                "--sample-id",
                ",".join(ids),
                "--cache",
                "--retry-on-error",
                "5",
                judges=JUDGES_WITH_TIMEOUTS,
            ),
            env={"VLLM_BASE_URL": stub.base_url},
        )
        outcomes = stub.outcomes()
    assert_ran(result)
    figures = log_figures(only_log(cli))
    scores = sample_scores(only_log(cli))
    print(
        f"\n429 (5%, Retry-After 1 s) + 3% dropped + 1% broken JSON, 4 scenes: "
        f"{result.seconds:.1f} s, {dict(sorted(outcomes.items()))}\n  log: {figures}"
    )
    assert outcomes["rate_limit_429"] > 0 and outcomes["drop"] > 0 and outcomes["malformed"] > 0
    assert figures.status == "success" and figures.errored == 0 and sorted(scores) == ids
    assert score_differences({i: clean_run.scores[i] for i in ids}, scores) == []


# -- 2. resume ---------------------------------------------------------------------------------

RESUME_IDS = ["101", "102", "201", "202", "401", "402"]


def test_kill_and_eval_retry_finishes_the_run(clean_run: Run, tmp_path: Path) -> None:
    cli = InspectCLI(tmp_path / "resume")
    args = full_demo("--sample-id", ",".join(RESUME_IDS), "--max-samples", "2", "--cache")
    with StubServer(latency=0.1) as stub:
        env = {"VLLM_BASE_URL": stub.base_url}
        cut = kill_after_answers(cli, args, stub, env, answers=100)
        before, in_flight = cut.requests, cut.in_flight
        killed = log_figures(only_log(cli))
        retry = cli.run(["eval-retry", str(only_log(cli)), "--display", "none"], env=env)
        assert_ran(retry)
        after = len(stub.chat_records())
        paid_twice = stub.paid_twice()
        outcomes = stub.outcomes()
        distinct = len({r.body_key for r in stub.chat_records(outcome="ok")})
    final_log = cli.eval_logs()[-1]
    final = log_figures(final_log)
    print(
        f"\nresume: killed after {before} requests (log: {killed.status}, {killed.samples} of "
        f"{len(RESUME_IDS)} samples saved); eval-retry made {after - before} requests in "
        f"{retry.seconds:.1f} s, {final.cache_reads} cache reads"
        f"\n  calls needed {distinct}; requests {dict(outcomes)}; paid twice {paid_twice} "
        f"(in flight at the kill: {in_flight}); without --cache the re-run samples would have "
        f"paid {final.cache_reads + paid_twice} calls twice\n  final log: {final}"
    )
    assert killed.status == "started" and killed.samples < len(RESUME_IDS)
    assert final.status == "success" and final.errored == 0
    scores = sample_scores(final_log)
    assert sorted(scores) == sorted(RESUME_IDS)
    assert score_differences({i: clean_run.scores[i] for i in RESUME_IDS}, scores) == []
    assert final.cache_reads > 0 and paid_twice <= in_flight


# -- 5. isolation ------------------------------------------------------------------------------


@dataclass
class SceneView:
    """What the harness may put in front of a model for one scene."""

    scene: Scenario
    questions: set[str]
    transcript: set[str]


def scene_views(records: list[RequestRecord]) -> tuple[dict[str, SceneView], dict[str, str]]:
    scenes = read_scenarios(demo_path())
    owner = {c.name: str(s.sample_idx) for s in scenes for c in s.characters}
    views: dict[str, SceneView] = {}
    for scene in scenes:
        questions = {
            q.question
            for c in scene.characters
            for g in c.goals
            for q in [*g.eval_questions.self_, *g.eval_questions.others, *g.eval_questions.judge]
        }
        questions |= {
            mcq_prompt(m.question, m.options, OPTION_MARKS["upper"])
            for c in scene.characters
            for m in c.info_reason_questions
        }
        greetings = {
            visible_text(Turn(index=0, speaker=name, text=GREETING)) for name in scene.names
        }
        views[str(scene.sample_idx)] = SceneView(scene, questions, greetings | {""})
    for record in records:  # every utterance, as the others see it later
        speaker = speaker_of(record)
        if speaker in owner and record.reply is not None:
            views[owner[speaker]].transcript.add(
                visible_text(Turn(index=1, speaker=speaker, text=record.reply))
            )
    return views, owner


def speaker_of(record: RequestRecord) -> str | None:
    if not record.system.startswith("You are "):
        return None
    return record.system[len("You are ") :].split(".", 1)[0]


def split_question(record: RequestRecord, view: SceneView) -> tuple[str | None, list[str]]:
    """The question at the end of the request (if any) and the transcript lines before it."""
    last = record.last
    question = max((q for q in view.questions if last.endswith(q)), key=len, default=None)
    contents = [m["content"] for m in record.messages[1:]]
    if question is not None:
        contents[-1] = last[: -len(question)].rstrip("\n")
        contents = contents if contents[-1] else contents[:-1]
    # The vLLM provider joins consecutive user messages with "\n"; no utterance spans lines.
    return question, [line for content in contents for line in content.split("\n")]


def judge_scene(record: RequestRecord, views: dict[str, SceneView]) -> str:
    (scene_id,) = [
        i for i, view in views.items() if any(record.last.endswith(q) for q in view.questions)
    ]
    return scene_id


def test_models_never_see_other_characters_secrets_or_goals(clean_run: Run) -> None:
    views, owner = scene_views(clean_run.records)
    kinds: Counter[str] = Counter()
    scenes_seen: dict[str, set[str]] = {"turn": set(), "interview": set(), "judge": set()}
    for record in clean_run.records:
        speaker = speaker_of(record)
        is_judge = record.system == JUDGE_SYSTEM_PROMPT
        assert is_judge or speaker in owner, f"request {record.index}: unknown system prompt"
        scene_id = judge_scene(record, views) if is_judge else owner[str(speaker)]
        view = views[scene_id]
        question, lines = split_question(record, view)
        # Between the system prompt and the question there is nothing but the conversation.
        strays = [line for line in lines if line not in view.transcript]
        assert not strays, f"request {record.index}: not part of the conversation: {strays[:2]}"
        # What the harness itself supplies: the system prompt and the question.
        supplied = record.system + "\n" + (question or "")
        kind = "judge" if is_judge else "interview" if question else "turn"
        kinds[kind] += 1
        scenes_seen[kind].add(scene_id)
        if is_judge:
            assert question is not None
            for character in view.scene.characters:
                assert character.profile not in supplied
                assert not character.secret or character.secret not in supplied
            continue
        me = view.scene.character(str(speaker))
        assert record.system == system_prompt(view.scene, me)
        for other in view.scene.characters:
            if other.name == speaker:
                continue
            assert not other.secret or other.secret not in supplied, f"request {record.index}"
            # Interview questions may name another's goal ("has Leo achieved ..."): only there.
            goal_text = record.system if question else supplied
            assert all(goal.goal not in goal_text for goal in other.goals), (
                f"request {record.index}"
            )
    print(
        f"\nisolation: checked {len(clean_run.records)} requests {dict(kinds)} over "
        f"{len(scenes_seen['turn'])} scenes; 0 leaks"
    )
    assert all(len(seen) == len(views) == 24 for seen in scenes_seen.values())


# -- 6. official data integrity, end to end ----------------------------------------------------

# Runs the inspect CLI with the official pin swapped for a test file (the blob comes from env).
LAUNCHER = (
    "import os, sys\n"
    "from agentsense.sense.dataset import official as o\n"
    "o.SOURCE.files['official'] = o.PinnedFile(o.SOURCE.files['official'].path,"
    " os.environ['AGENTSENSE_TEST_BLOB'])\n"
    "import runpy\n"
    "sys.argv[0] = 'inspect'\n"
    "runpy.run_module('inspect_ai', run_name='__main__')\n"
)


@pytest.fixture
def served() -> Iterator[FileServer]:
    with file_server() as server:
        yield server


def goal_on_official(*extra: str) -> list[str]:
    # Not --display none: Inspect then prints no error message at all (exit code 1 only).
    return [
        "eval",
        "agentsense/goal",
        "-T",
        "dataset=official",
        "-T",
        "max_messages=3",
        "--model",
        "standin/persona/agent",
        "--limit",
        "1",
        "--display",
        "plain",
        *extra,
    ]


def test_official_download_good_is_fetched_once_then_cached(
    served: FileServer, tmp_path: Path
) -> None:
    """Through the CLI (tampered and truncated downloads: tests/test_official_download.py)."""
    good = b"".join(demo_path().read_bytes().splitlines(keepends=True)[:2])
    served.serve(Reply(good))
    cli = InspectCLI(tmp_path / "official", env={"AGENTSENSE_DATA_URL": served.url})
    cache = Path(cli.env["AGENTSENSE_CACHE_DIR"])
    # Pinned to the good file (through the launcher): downloaded once, then served from cache.
    env = {"AGENTSENSE_TEST_BLOB": git_blob_id(good)}
    command = [sys.executable, "-c", LAUNCHER, *goal_on_official("--log-dir", str(cli.log_dir))]
    outputs, requests = [], []
    for _ in range(2):
        done = subprocess.run(
            command,
            env={**cli.env, **env},
            capture_output=True,
            text=True,
            timeout=300,
            cwd=cli.root,
        )
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        outputs.append(done.stdout + done.stderr)
        requests.append(len(served.requests))
    print(
        f"good download: first run {requests[0]} request(s), second run "
        f"{requests[1] - requests[0]} request(s)"
    )
    assert requests == [1, 1]
    assert [p.name for p in cache.iterdir()] == [f"final_data-{git_blob_id(good)}.jsonl"]
    assert "downloading final_data.jsonl" in outputs[0] and "downloading" not in outputs[1]
    assert [log_figures(log).status for log in cli.eval_logs()] == ["success", "success"]
