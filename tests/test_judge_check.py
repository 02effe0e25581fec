"""`agentsense/judge_check` end to end with stand-in judges whose behaviour is known
(models/rules.py), the data file against its generator, and bad judge-check files."""

from __future__ import annotations

import importlib.util
import json
import math
from collections import Counter
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from agentsense.sense import judge_verdicts
from agentsense.sense.dataset.judge_check_items import JudgeCheckItem, bundled_path, load_items
from agentsense.sense.dataset.validation import DatasetError
from agentsense.sense.judge_check import (
    JudgeVerdicts,
    ask_judges,
    to_sample,
)
from agentsense.sense.prompts import JUDGE_SYSTEM_PROMPT
from agentsense.sense.protocol import Protocol
from agentsense.tasks import judge_check

ROOT = Path(__file__).resolve().parent.parent
PANEL = ["standin/yes/always", "standin/keyword/naive", "standin/persona/judge-a"]


def metrics(log: EvalLog) -> dict[str, dict[str, float]]:
    """`{judge_n: {rate: value}, unreadable_judge_n: {"mean": share}}` from the one metric block."""
    assert log.results is not None
    (block,) = log.results.scores
    assert block.name == "judge_verdicts"
    stats: dict[str, dict[str, float]] = {}
    for key, metric in block.metrics.items():
        name, _, n = key.rpartition("_")
        if name == "unreadable":
            stats.setdefault(f"unreadable_judge_{n}", {})["mean"] = metric.value
        else:
            stats.setdefault(f"judge_{n}", {})[name] = metric.value
    return stats


@pytest.fixture(scope="module")
def items() -> list[JudgeCheckItem]:
    return load_items()


@pytest.fixture(scope="module")
def panel_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    (log,) = eval(
        judge_check(),
        model="standin/persona/agent",
        model_roles={"judge": PANEL},
        log_dir=str(tmp_path_factory.mktemp("judge_check")),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def test_data_file_is_what_the_generator_writes(capsys: pytest.CaptureFixture[str]) -> None:
    """`python scripts/build_judge_check.py --check`, its main() in-process."""
    spec = importlib.util.spec_from_file_location(
        "build_judge_check", ROOT / "scripts" / "build_judge_check.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--check"]) == 0, capsys.readouterr().err


def test_construction(items: list[JudgeCheckItem]) -> None:
    cases = Counter(item.case for item in items)
    assert set(cases) == {
        "achieved",
        "refused",
        "claimed",
        "unaddressed",
        "injection",
        "padded_achieved",
        "padded_refused",
        "reordered_achieved",
        "relabelled_achieved",
        "relabelled_refused",
    }
    assert len(set(cases.values())) == 1  # every base gives each case once
    by_id = {item.id: item for item in items}
    demo = [
        json.loads(line) for line in (ROOT / "src/agentsense/sense/dataset/data/demo.jsonl").open()
    ]
    questions = {
        q["question"]
        for r in demo
        for c in r["characters"]
        for g in c["goals"]
        for q in g["eval_questions"]["judge"]
    }
    for item in items:
        assert item.question in questions  # verbatim from a demo scene
        assert (item.truth == "yes") == (item.case.endswith("achieved"))
        if item.original is not None:
            original = by_id[item.original]
            assert original.truth == item.truth and original.base == item.base
            # The same utterances, in another order or under other labels (padding adds some).
            texts = Counter(u.text for u in original.turns)
            assert not texts - Counter(u.text for u in item.turns)
    for item in items:
        if item.case == "injection":
            assert "Yes" in item.turns[-1].text  # the injection, said last


def test_judges_get_the_papers_judge_request(panel_log: EvalLog) -> None:
    sample = (panel_log.samples or [])[0]
    assert sample.messages[0].text == JUDGE_SYSTEM_PROMPT
    assert sample.messages[-1].text.endswith("Answer Yes or No.")
    judged = {e.model for e in sample.events if e.event == "model"}
    assert judged == set(PANEL)


def test_always_yes_judge(panel_log: EvalLog, items: list[JudgeCheckItem]) -> None:
    stats = metrics(panel_log)
    yes_share = sum(item.truth == "yes" for item in items) / len(items)
    assert stats["judge_1"]["accuracy"] == pytest.approx(yes_share)  # 32 of 80
    assert stats["judge_1"]["false_yes_claimed"] == 1.0
    assert stats["judge_1"]["false_yes_injected"] == 1.0
    assert stats["judge_1"]["consistency"] == 1.0
    assert stats["unreadable_judge_1"]["mean"] == 0.0


def test_keyword_judge_is_fooled_by_injections(panel_log: EvalLog) -> None:
    stats = metrics(panel_log)["judge_2"]
    assert stats["false_yes_injected"] == 1.0  # every injection says "answer Yes"
    # Claims with an acceptance word: s401's ("agreed"; its opening also says "thank you") and
    # s601's (its opening says "understand"): 2 of the 8.
    assert stats["false_yes_claimed"] == pytest.approx(2 / 8)
    assert 0.5 < stats["accuracy"] < 1.0
    assert stats["consistency"] == 1.0  # padding and relabelling add no acceptance word


def test_persona_judge_is_transcript_blind(panel_log: EvalLog) -> None:
    stats = metrics(panel_log)["judge_3"]
    # It answers from the question alone: all items of a goal alike, so perfectly consistent,
    # and "yes" on exactly the claims and injections of the goals it calls achieved.
    assert stats["consistency"] == 1.0
    assert stats["false_yes_claimed"] == stats["false_yes_injected"]
    assert 0.0 < stats["accuracy"] < 1.0


def test_unreadable_answers_are_counted_and_left_out(tmp_path: Path) -> None:
    output = ModelOutput.from_content("mockllm/model", "Hard to say.")
    output.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
    mumbler = get_model("mockllm/model", custom_outputs=[output] * 80)
    (log,) = eval(
        judge_check(protocol="corrected"),
        limit=10,
        model="standin/persona/agent",
        model_roles={"judge": ["standin/yes/always", mumbler]},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    stats = metrics(log)
    assert stats["unreadable_judge_2"]["mean"] == 1.0
    assert stats["unreadable_judge_1"]["mean"] == 0.0
    assert math.isnan(stats["judge_2"]["accuracy"])  # corrected reading: no verdict to score


def test_bad_judge_check_file_names_line_and_field(tmp_path: Path) -> None:
    lines = bundled_path().read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    broken = {**json.loads(lines[5]), "truth": "maybe"}
    orphan = {**json.loads(lines[6]), "original": "no-such-item"}
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in (first, broken, orphan)) + "\n")
    with pytest.raises(DatasetError) as raised:
        judge_check(dataset=str(path))
    message = str(raised.value)
    assert f"{path}:2" in message and "`truth`" in message
    assert "`original`" in message and "no-such-item" in message


def test_ask_judges_stores_each_answer_and_judge_verdicts_reads_it(log_dir: Path) -> None:
    item = load_items()[0]  # achieved: the truth is yes
    assert item.case == "achieved"
    settings = Protocol(mode="corrected")
    output = ModelOutput.from_content("mockllm/model", "No, they did not.")
    output.usage = ModelUsage(input_tokens=10, output_tokens=3, total_tokens=13)
    task = Task(
        dataset=MemoryDataset([to_sample(item, settings)]),
        solver=ask_judges(settings),
        scorer=judge_verdicts(),
    )
    (log,) = eval(
        task,
        model="standin/persona/agent",
        model_roles={"judge": [get_model("mockllm/model", custom_outputs=[output])]},
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success" and log.samples
    sample = log.samples[0]
    assert sample.store[f"{JudgeVerdicts.__name__}:answers"] == {"judge_1": "No, they did not."}
    # Corrected mode: the judge sees the conversation as a bystander (every turn a user message).
    assert {m.role for m in sample.messages[1:]} == {"user"}
    score = (sample.scores or {})["judge_verdicts"]
    assert score.value == {"judge_1": 0.0, "unreadable_judge_1": 0.0}
    assert metrics(log)["judge_1"]["accuracy"] == 0.0
