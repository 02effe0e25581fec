"""`agentsense/script_prediction` (§4.3, Table 2): the answer rule, the truth, refusals, a build."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval, score
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import agentsense
from agentsense.engine.errors import PrerequisiteError
from agentsense.sense import script_title
from agentsense.sense.dataset.samples import demo_path, load_scenarios
from agentsense.sense.leakage.script_answers import matched_title, named_title, normalise_title
from agentsense.sense.leakage.script_prediction import SCRIPT_KEY
from agentsense.sense.prompts import script_prediction_prompt

TRUTH = ["The Social Network"]


@pytest.mark.parametrize(
    "reply",
    [
        "the social network",
        "The Social Network.",
        "THE SOCIAL NETWORK",
        "Social Network",
        "Social Network, The",
        "The Social-Network!",
        "Title: The Social Network",
        'I think it is "the social network".',
        "It must be *The Social Network*, the Facebook film.",
        "“The Social Network”",
        "The Social Network (2010)",
        "\n\n  The Social Network\nA film by David Fincher.",
    ],
)
def test_the_rule_tolerates_case_articles_and_punctuation(reply: str) -> None:
    assert matched_title(reply, TRUTH) == "The Social Network"


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "I do not know.",
        "Social",  # a part of the title is not the title
        "The Social Network 2",  # a sequel is another script
        "The Network",
        'It could be "Friends" or "The Social Network".',  # one guess: the first quoted title
        "Friends\nor maybe The Social Network",  # one guess: the first line
    ],
)
def test_the_rule_refuses_other_titles_and_second_guesses(reply: str) -> None:
    assert matched_title(reply, TRUTH) is None


def test_any_accepted_alias_counts() -> None:
    aliases = ["Pride & Prejudice", "Orgullo y prejuicio"]
    assert matched_title("pride and prejudice", aliases) == "Pride & Prejudice"
    assert matched_title("Orgullo y Prejuicio", aliases) == "Orgullo y prejuicio"
    assert normalise_title("Amélie") == normalise_title("AMELIE") == "amelie"
    assert named_title("Answer: *Up*.") == "Up"


# --- the task on known truth ------------------------------------------------------------------

DEMO_TITLES = json.loads(
    (demo_path().parent / "demo_titles.json").read_text(encoding="utf-8")
)  # template -> invented title
# template -> what the scripted model answers (True: a right answer, in some tolerated form)
REPLIES = {
    "1": ("home for dinner", True),
    "2": ("Coffee After.", True),  # "The Coffee After", article dropped
    "3": ('It is "THE RESIGNATION".', True),
    "4": ("Parents Evening", True),  # the apostrophe is punctuation
    "5": ("The Council", False),
    "6": ("Thread Wars 2", False),
    "7": ("I cannot tell.", False),
    "8": ("The Offer (2022)", True),
}


def scripted_model(replies: dict[str, str]) -> Any:
    """Answers by the background it is shown: each demo template's first scene -> its reply."""
    backgrounds = {
        scene.background: replies[str(scene.template_idx)] for scene in load_scenarios("demo")
    }

    def reply(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = input[-1].text
        text = next(r for b, r in backgrounds.items() if f"###Background: {b}\n" in prompt)
        output = ModelOutput.from_content(model="scripted", content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model("mockllm/model", custom_outputs=reply)


def run(log_dir: Path, model: Any, **args: Any) -> EvalLog:
    (log,) = eval(
        agentsense.script_prediction(**args), model=model, log_dir=str(log_dir), display="none"
    )
    assert log.status == "success", log.error
    return log


def per_template(log: EvalLog) -> dict[str, float]:
    assert log.samples is not None
    return {
        str(s.metadata["template_id"]): s.scores["script_title"].value[SCRIPT_KEY]  # type: ignore[index]
        for s in log.samples
    }


def test_known_titles_are_scored_by_the_tolerant_rule(log_dir: Path) -> None:
    log = run(log_dir, scripted_model({k: r for k, (r, _) in REPLIES.items()}), dataset="demo")
    assert per_template(log) == {k: float(right) for k, (_, right) in REPLIES.items()}
    assert log.samples is not None
    assert [s.id for s in log.samples] == [101, 201, 301, 401, 501, 601, 701, 801]
    sample = next(s for s in log.samples if s.id == 301)
    score = sample.scores["script_title"]  # type: ignore[index]
    assert score.answer == 'It is "THE RESIGNATION".'  # the raw answer is kept
    assert score.metadata == {
        "reply": 'It is "THE RESIGNATION".',
        "read": "THE RESIGNATION",
        "matched": "The Resignation",
        "titles": ["The Resignation"],
    }
    assert sample.target == [DEMO_TITLES["3"]]
    (metrics,) = [s.metrics for s in log.results.scores if s.name == SCRIPT_KEY]  # type: ignore[union-attr]
    assert metrics["mean"].value == pytest.approx(5 / 8)


def test_the_prompt_is_the_background_alone_and_inspect_score_rereads_it(log_dir: Path) -> None:
    log = run(log_dir, scripted_model({k: r for k, (r, _) in REPLIES.items()}), dataset="demo")
    assert log.samples is not None
    scene = next(s for s in load_scenarios("demo") if s.sample_idx == 101)
    assert log.samples[0].input == script_prediction_prompt(scene.background)
    assert scene.description not in str(log.samples[0].input)
    rescored = score(log, script_title(), action="overwrite", display="none")
    assert per_template(rescored) == per_template(log)


def test_one_changed_answer_changes_exactly_its_score(log_dir: Path) -> None:
    replies = {k: r for k, (r, _) in REPLIES.items()}
    before = per_template(run(log_dir / "a", scripted_model(replies), dataset="demo"))
    replies["7"] = "a statement in lisbon"
    after = per_template(run(log_dir / "b", scripted_model(replies), dataset="demo"))
    assert {k for k in before if before[k] != after[k]} == {"7"} and after["7"] == 1.0


def demo_copy(tmp_path: Path, edit: Any = None) -> Path:
    records = [json.loads(line) for line in demo_path().read_text(encoding="utf-8").splitlines()]
    for record in records:
        if edit is not None:
            edit(record)
    path = tmp_path / "scenes.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_stand_in_names_a_title_the_background_leaks(tmp_path: Path, log_dir: Path) -> None:
    clean = per_template(run(log_dir / "clean", "standin/persona/agent", dataset="demo"))

    def leak(record: dict[str, Any]) -> None:
        if record["template_idx"] == 6:
            record["background"] += ' Everyone calls the thread "Thread Wars".'

    leaky = demo_copy(tmp_path, leak)
    titles = tmp_path / "titles.json"
    titles.write_text(json.dumps(DEMO_TITLES), encoding="utf-8")
    leaked = per_template(
        run(log_dir / "leak", "standin/persona/agent", dataset=str(leaky), titles=str(titles))
    )
    assert leaked["6"] == 1.0 and clean["6"] == 0.0
    assert {k: v for k, v in leaked.items() if k != "6"} == {
        k: v for k, v in clean.items() if k != "6"
    }


def test_truth_from_the_records_source(tmp_path: Path, log_dir: Path) -> None:
    def source(record: dict[str, Any]) -> None:
        kind = record["template_idx"] % 3
        if kind == 0:
            record["source"] = {"script": f"t{record['template_idx']}.fountain", "scene": 2}
        elif kind == 1:
            record["source"] = {
                "script": "x.txt",
                "title": DEMO_TITLES[str(record["template_idx"])],
            }
        else:
            record["source"] = f"Title {record['template_idx']}"

    log = run(log_dir, "standin/persona/agent", dataset=str(demo_copy(tmp_path, source)))
    assert log.samples is not None
    targets = {str(s.metadata["template_id"]): s.target for s in log.samples}  # type: ignore[index]
    assert targets["3"] == ["t3"] and targets["6"] == ["t6"]  # script file name, no extension
    assert targets["1"] == [DEMO_TITLES["1"]] and targets["4"] == [DEMO_TITLES["4"]]
    assert targets["2"] == ["Title 2"]
    # A mapping file wins over the source for the templates it names.
    mapping = tmp_path / "m.json"
    mapping.write_text(json.dumps({"3": ["Three", "3"], "99": "not in the data"}))
    log = run(
        log_dir,
        "standin/persona/agent",
        dataset=str(demo_copy(tmp_path, source)),
        titles=str(mapping),
    )
    targets = {str(s.metadata["template_id"]): s.target for s in log.samples or []}  # type: ignore[index]
    assert targets["3"] == ["Three", "3"] and targets["6"] == ["t6"]


def test_scenes_without_a_title_are_refused_naming_how_many(tmp_path: Path) -> None:
    path = demo_copy(tmp_path)  # the demo records, but not under the name `demo`: no titles
    with pytest.raises(PrerequisiteError) as raised:
        agentsense.script_prediction(dataset=str(path))
    message = raised.value.message
    assert "8 of 8 scene(s)" in message and "templates 1, 2, 3, 4, 5, 6, 7, 8" in message
    assert "no -T titles=FILE given" in message and "source" in message
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps({k: DEMO_TITLES[k] for k in ("1", "2", "3", "4", "5")}))
    with pytest.raises(PrerequisiteError) as raised:
        agentsense.script_prediction(dataset=str(path), titles=str(partial), per_template=None)
    assert (
        "9 of 24 scene(s)" in raised.value.message and "templates 6, 7, 8" in raised.value.message
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not JSON"),
        ('["The Offer"]', "found a JSON list"),
        ('{"1": 3, "2": [], "3": "ok"}', "'1': 3; '2': []"),
    ],
)
def test_a_bad_titles_file_is_refused(tmp_path: Path, content: str, expected: str) -> None:
    path = tmp_path / "titles.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(PrerequisiteError, match="-T titles=") as raised:
        agentsense.script_prediction(dataset="demo", titles=str(path))
    assert expected in raised.value.message
    with pytest.raises(PrerequisiteError, match="no such file"):
        agentsense.script_prediction(dataset="demo", titles=str(tmp_path / "missing.json"))


def test_the_eval_refuses_before_any_model_call(tmp_path: Path) -> None:
    """`inspect eval agentsense/script_prediction -T dataset=...` (`inspect_ai.eval`, what the
    CLI calls; test_bad_data shows how it prints a PrerequisiteError): refused, no log."""
    path = demo_copy(tmp_path)
    with pytest.raises(PrerequisiteError) as raised:
        eval(
            "agentsense/script_prediction",
            task_args={"dataset": str(path)},
            model="standin/persona/agent",
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    assert "8 of 8 scene(s)" in str(raised.value.message)
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())


@pytest.mark.slow
def test_a_constructed_file_carries_its_truth(tmp_path: Path, log_dir: Path) -> None:
    from agentsense.construction.export import export_scenarios
    from agentsense.tasks import construct

    (built,) = eval(
        construct(), model="standin/persona/builder", log_dir=str(tmp_path / "b"), display="none"
    )
    assert built.status == "success", built.error
    scenes = tmp_path / "scenarios.jsonl"
    export_scenarios([str(tmp_path / "b")], scenes)
    templates = {s.template_idx for s in load_scenarios(str(scenes))}

    def closing_time(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="reader", content="Closing Time")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    log = run(log_dir, get_model("mockllm/model", custom_outputs=closing_time), dataset=str(scenes))
    assert log.samples is not None and len(log.samples) == len(templates)  # one per template
    # the bundled script's title page
    assert {tuple(s.target) for s in log.samples} == {("CLOSING TIME",)}
    assert set(per_template(log).values()) == {1.0}
    standin = per_template(run(log_dir, "standin/persona/agent", dataset=str(scenes)))
    assert set(standin.values()) == {0.0}  # no background names the script
