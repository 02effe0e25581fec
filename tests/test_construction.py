"""Scenario construction (`agentsense/construct`, `agentsense scenarios`): each stage's reading
and filtering on good and bad model output, bad scripts, repair and drop, the review sheet, the
offline build end to end (export, validation, an `agentsense/full` run), and determinism.
"""

from __future__ import annotations

import asyncio
import csv
import json
import random
import re
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage, get_model

from agentsense.construction import build_counts
from agentsense.construction import characters as ch
from agentsense.construction import goals as gl
from agentsense.construction import private_info as pi
from agentsense.construction import templates as tp
from agentsense.construction.build import BuildSettings
from agentsense.construction.construct_solver import (
    build_scenarios,
    bundled_script,
    read_scripts,
    script_sample,
)
from agentsense.construction.export import export_scenarios, summary
from agentsense.construction.prompts import PAPER_PROMPTS
from agentsense.construction.repair import Asker, Ledger, ParseError, extract_json, parse_yes_no
from agentsense.construction.review import SheetError, apply_sheet, sheet_rows, write_sheet
from agentsense.construction.screenplay import parse_text, read_screenplay
from agentsense.construction.screenplay_scenes import (
    Line,
    ScreenplayScene,
    accept_division,
    by_headings,
    filter_reason,
    parse_division,
)
from agentsense.construction.script_elements import render
from agentsense.engine.errors import PrerequisiteError
from agentsense.sense.dataset.validation import read_scenarios
from agentsense.tasks import construct, full

FIXTURES = Path(__file__).parent / "fixtures" / "construction"


# --- prompts ------------------------------------------------------------------------------------


def paper_prompts() -> dict[int, str]:
    """The prompts as the paper's text extraction prints them (fixture copied from the paper)."""
    text = (FIXTURES / "paper_prompts.txt").read_text(encoding="utf-8")
    parts = re.split(r"^## (\d+)\n", text, flags=re.M)[1:]
    return {int(n): body.rstrip("\n") for n, body in zip(parts[::2], parts[1::2], strict=True)}


def test_construction_prompts_are_the_papers_word_for_word() -> None:
    printed = paper_prompts()
    assert sorted(printed) == sorted(PAPER_PROMPTS) == [*range(1, 17), 19]
    for number, text in printed.items():
        glyphs = text.replace("\u2018", "`").replace("\u2019", "'")
        assert PAPER_PROMPTS[number] == glyphs, f"Prompt {number} differs from the paper"


# --- screenplay reading -------------------------------------------------------------------------

FOUNTAIN = """Title: The Lift
Author: agentsense tests

.LIFT LOBBY - NIGHT

/* a cut line */
Ana waits. [[note to self]]

@McKAY
You're late.

ANA (CONT'D)
(dryly)
The lift was *slow*.

MCKAY ^
Of course it was.

> CUT TO:
"""


def test_fountain_title_forced_elements_notes_and_wrylies() -> None:
    title, elements = parse_text(FOUNTAIN)
    assert title == "The Lift"
    assert [e.kind for e in elements] == ["heading", "action", *["dialogue"] * 3, "transition"]
    assert elements[0].text == "LIFT LOBBY - NIGHT"
    assert elements[1].text == "Ana waits."
    speeches = [(e.speaker, e.text) for e in elements if e.kind == "dialogue"]
    assert speeches == [
        ("McKay", "You're late."),
        ("Ana", "The lift was slow."),
        ("McKay", "Of course it was."),
    ]


def test_imsdb_plain_text_with_html_tags_and_indentation() -> None:
    text = (
        "<pre><b>INT. KITCHEN - DAY</b>\n\n      Rain.\n\n<b>                  JO</b>\n"
        "            Hello.\n            Again.\n\n<b>                  MRS. LEE (V.O.)</b>\n"
        "            Hi.\n</pre>"
    )
    _, elements = parse_text(text)
    assert [(e.kind, e.speaker, e.text) for e in elements] == [
        ("heading", None, "INT. KITCHEN - DAY"),
        ("action", None, "Rain."),
        ("dialogue", "Jo", "Hello. Again."),
        ("dialogue", "Mrs. Lee", "Hi."),
    ]


def test_bundled_script_is_an_original_labelled_screenplay() -> None:
    play = read_screenplay(bundled_script())
    assert "original short screenplay written for the" in bundled_script().read_text()
    assert len(by_headings(play.elements)) == 5
    assert {e.speaker for e in play.speeches} == {"Maya", "Tom", "Priya"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"   \n\n", "the file is empty"),
        (b"\x00\x01binary", "a binary file"),
        (b"Dear diary, today was long.\n\nI walked home.\n", "no character cue"),
        (
            b"INT. ROOM - DAY\n\nANA\nHi.\n\nBO\nHello.\n\nEXT. STREET - DAY\n\nANA\nBye.\n",
            "no scene in which two characters speak at least twice",
        ),
    ],
)
def test_bad_scripts_get_one_line_naming_the_file(
    tmp_path: Path, content: bytes, message: str
) -> None:
    script = tmp_path / "bad.txt"
    script.write_bytes(content)
    with pytest.raises(PrerequisiteError) as error:
        construct(scripts=str(script))
    lines = str(error.value).splitlines()
    assert len(lines) == 2 and str(script) in lines[1] and message in lines[1]
    assert "expected" in lines[1]


def test_missing_path_and_bad_arguments_are_named(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError, match=r"-T scripts=.*nothing at that path"):
        construct(scripts=str(tmp_path / "nope"))
    with pytest.raises(PrerequisiteError, match="-T options: found 5;"):
        construct(options=5)
    with pytest.raises(PrerequisiteError, match="-T division: found 'chapters';"):
        construct(division="chapters")


# --- A: division and filter ---------------------------------------------------------------------


def _episode() -> list:  # type: ignore[type-arg]
    _, elements = parse_text(
        "INT. ROOM - DAY\n\nANA\nOne.\n\nBO\nTwo.\n\nA door slams.\n\nANA\nThree.\n\nBO\nFour.\n"
    )
    return elements


def test_division_read_back_and_rejected_when_text_changes() -> None:
    episode = _episode()
    halves = [render(episode[:3]), render(episode[3:])]
    reply = json.dumps([{"scene2": halves[1], "scene1": halves[0]}])
    parts = accept_division(episode, parse_division(reply, "scene"))
    assert isinstance(parts, list) and [len(p) for p in parts] == [3, 3]
    changed = [halves[0].replace("One.", "Uno."), halves[1]]
    assert "unchanged" in str(accept_division(episode, changed))
    assert "unchanged" in str(accept_division(episode, [halves[0]]))  # text deleted
    with pytest.raises(ParseError, match='"scene1"'):
        parse_division('{"part1": "x"}', "scene")


def _scene(lines: list[tuple[str, str]]) -> ScreenplayScene:
    dialog = [Line(role=r, content=c) for r, c in lines]
    return ScreenplayScene(episode=1, scene=1, heading="", description="", dialog=dialog)


def test_scene_filter_needs_ten_speeches_and_two_characters_speaking_twice() -> None:
    talk = _scene([("A", "x"), ("B", "y")] * 5)
    assert filter_reason(talk, 10) is None and talk.characters == ["A", "B"]
    assert "fewer than min_dialogues=10" in str(
        filter_reason(_scene([("A", "x"), ("B", "y")] * 4), 10)
    )
    monologue = _scene([("A", "x")] * 11 + [("B", "y")])
    assert "two characters" in str(filter_reason(monologue, 10))


# --- stage readers ------------------------------------------------------------------------------


def test_json_is_read_from_fences_prose_and_trailing_commas() -> None:
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json('Sure! {"a": [1, 2,], } Hope it helps.') == {"a": [1, 2]}
    with pytest.raises(ParseError):
        extract_json('{"a": 1')


def test_yes_no_reads_the_first_word_not_a_substring() -> None:
    assert parse_yes_no("*Yes*, Maya knows something") is True
    assert parse_yes_no("No.") is False
    with pytest.raises(ParseError):
        parse_yes_no("I do not know")  # the official substring test would read "no"


def test_goal_readers_and_goal_form() -> None:
    assert gl.parse_goals('{"name": "x", "goals": ["To a.", " "]}') == ["To a."]
    with pytest.raises(ParseError, match="empty"):
        gl.parse_goals('{"name": "x", "goals": []}')
    assert gl.parse_update('{"examination": "...", "update": ""}') == ""
    with pytest.raises(ParseError, match='"update"'):
        gl.parse_update('{"examination": "..."}')
    assert gl.normal_goal("to share it") == "To share it."
    assert gl.normal_goal("Share it.") is None
    assert gl.distinct(["To a.", "To a.", "To b."]) == ["To a.", "To b."]


def test_rewrite_must_keep_every_character() -> None:
    reply = json.dumps(
        {"background": "b", "description": "d", "characters": [{"name": "ana", "goals": ["To x."]}]}
    )
    draft, missing = tp.match_characters(tp.parse_rewrite(reply), ["Ana", "Bo"])
    assert [c.name for c in draft.characters] == ["Ana"] and missing == ["Bo"]
    with pytest.raises(ParseError, match='"characters"'):
        tp.parse_rewrite('{"background": "b", "description": "d", "characters": []}')


def test_private_info_readers() -> None:
    qa = pi.parse_qa(
        '```json\n[{"role": "Ana", "question": "Why?", "explanation": "E.", "answer": "A."}]\n```'
    )
    assert qa[0].role == "Ana"
    with pytest.raises(ParseError, match='"answer"'):
        pi.parse_qa('[{"role": "Ana", "question": "Why?", "explanation": "E."}]')
    assert pi.parse_options('[{"option1": "x", "option2": "y", "option3": "z"}]') == ["x", "y", "z"]
    with pytest.raises(ParseError, match="3 incorrect options, found 2"):
        pi.parse_options('[{"option1": "x", "option2": "y"}]')
    assert pi.usable_negatives(qa[0], ["A", "b", "c"]) == "an incorrect option repeats the answer"
    assert pi.usable_negatives(qa[0], ["b.", "b", "c"]) == "two incorrect options are the same"


def test_mcq_order_is_seeded_and_the_label_points_at_the_answer() -> None:
    qa = pi.QA(
        role="A", question="Q?", explanation="E", answer="Right.", negatives=["x", "y", "z."]
    )
    orders = {tuple(pi.mcq(qa, 4, random.Random(seed))["options"]) for seed in range(12)}
    assert len(orders) > 1
    for seed in range(12):
        question = pi.mcq(qa, 4, random.Random(seed))
        assert question == pi.mcq(qa, 4, random.Random(seed))
        assert question["options"][question["answer_label"]] == "Right"
        assert not any(o.endswith(".") for o in question["options"])
    assert len(pi.mcq(qa, 3, random.Random(0))["options"]) == 3


def test_leakage_and_agent_readers() -> None:
    assert tp.parse_entities('{"characters":["Ana"], "location":["Rome"], }') == (["Ana"], ["Rome"])
    relocation = tp.parse_relocation(
        json.dumps(
            {
                "background_replace_location": "b",
                "description_replace_location": "d",
                "replace_location_list": [{"original_name": "Rome", "revised_name": "Oslo"}],
            }
        )
    )
    assert relocation.replacements[0].revised_name == "Oslo"
    slots = tp.slot_mapping(["Maya"], ["Maya Okafor"])
    assert tp.replace_words("Maya Okafor and Maya's dad", slots) == "{agent1} and {agent1}'s dad"
    with pytest.raises(ParseError, match="no entry for Bo"):
        ch.parse_attributes(["Ana", "Bo"])('[{"name": "Ana", "age": "3"}]')
    with pytest.raises(ParseError, match="one of family"):
        ch.parse_relationship('{"relationship": "colleague"}')
    with pytest.raises(ParseError, match="almost, maybe, no"):
        ch.parse_replaceability(["Ana"])('[{"name": "Ana", "age": "yes", "gender": "no"}]')
    with pytest.raises(ParseError, match="expected 5 profiles, found 1"):
        ch.parse_agents(5)('[{"name": "X Y", "gender": "f", "age": 3, "occupation": "o"}]')
    assert ch.candidate("no", "34") == "34" and ch.candidate("maybe", "34") == "similar to 34"
    assert ch.camel("alice  greene-smith") == "AliceGreeneSmith"


# --- repair -------------------------------------------------------------------------------------


def _outputs(*texts: str) -> list[ModelOutput]:
    outputs = []
    for text in texts:
        output = ModelOutput.from_content(model="mockllm/model", content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        outputs.append(output)
    return outputs


def test_broken_json_is_repaired_by_asking_again_then_dropped_with_a_reason() -> None:
    model = get_model(
        "mockllm/model",
        custom_outputs=_outputs('{"goals": [', '{"name": "A", "goals": ["To x."]}', "a", "b", "c"),
    )
    ledger = Ledger()
    asker = Asker(model, GenerateConfig(), max_repairs=2, ledger=ledger)
    assert asyncio.run(asker.ask(gl.EXTRACT, "prompt", "first")) == ["To x."]
    assert ledger.calls[gl.EXTRACT.name] == 2 and ledger.repairs[gl.EXTRACT.name] == 1
    assert asyncio.run(asker.ask(gl.EXTRACT, "prompt", "second")) is None
    assert ledger.repairs[gl.EXTRACT.name] == 3
    (drop,) = ledger.drops
    assert (drop.stage, drop.item) == (gl.EXTRACT.name, "second")
    assert "no JSON document" in drop.reason and "3 replies" in drop.reason


# --- the build, end to end ----------------------------------------------------------------------


def build(log_dir: Path, model: str = "standin/persona/builder", **args: object) -> EvalLog:
    (log,) = inspect_eval(
        construct(**args),  # type: ignore[arg-type]
        model=model,
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The bundled script built by the stand-in, exported to a validated JSONL file."""
    root = tmp_path_factory.mktemp("construct")
    build(root / "logs")
    out = root / "scenarios.jsonl"
    export_scenarios([str(root / "logs")], out, review=root / "review.csv")
    return root, out


def test_bundled_build_counts_stage_by_stage(built: tuple[Path, Path]) -> None:
    root, _ = built
    export = export_scenarios([str(root / "logs")], None)
    (result,) = export.builds
    counts = result.counts()
    assert counts["episodes"] == 5 and counts["scenes"] == 6  # the long night scene is split
    assert counts["scenes_kept"] == 4 and counts["scenes_filtered"] == 2
    assert counts["templates"] == 4 and counts["scenarios"] == 20
    assert counts["mcqs"] == 5 and counts["repairs"] == 0 and counts["dropped"] == 0
    lines = summary(export)
    assert "filtered [A3 scene filter] e4s1: 2 speeches" in "\n".join(lines)


def test_export_is_valid_official_schema_with_provenance(built: tuple[Path, Path]) -> None:
    _, out = built
    scenes = read_scenarios(out)
    assert len(scenes) == 20
    by_template: dict[str, list[str]] = {}
    for scene in scenes:
        by_template.setdefault(str(scene.template_idx), []).append(str(scene.sample_idx))
        record = scene.model_dump(by_alias=True)
        source = record.pop("source")  # provenance names the originals; nothing else may
        assert source["script"] == "closing-time.txt"
        assert {"episode", "scene", "heading", "original_characters"} <= set(source)
        assert scene.scenario_type and scene.roles and set(scene.roles) == set(scene.names)
        text = json.dumps(record)
        for name in ("Maya", "Tom", "Priya", "Okafor"):
            assert f'"{name}' not in text and f" {name}" not in text, (name, text)
        assert all(g.category for c in scene.characters for g in c.goals)
    assert all(len(ids) == 5 for ids in by_template.values())
    with_secret = [s for s in scenes if any(c.private_info for c in s.characters)]
    assert with_secret and all(s.has_mcq for s in with_secret)


def test_new_benchmark_runs_with_agentsense_full(built: tuple[Path, Path]) -> None:
    root, out = built
    # Corrected mode: the official info metric gives NaN unless every character has an MCQ.
    with_mcq = {str(s.sample_idx) for s in read_scenarios(out) if s.has_mcq}
    ids = [*sorted(with_mcq)[:2], "closing-time-e2s1-1", "closing-time-e3s1-1"]
    (log,) = inspect_eval(
        full(dataset=str(out), protocol="corrected"),
        sample_id=ids,
        model="standin/persona/agent",
        log_dir=str(root / "full"),
        display="none",
    )
    assert log.status == "success" and log.results is not None and log.samples is not None
    assert log.results.completed_samples == len(ids) == 4
    for sample in log.samples:
        values = sample.scores["goal_and_mcq"].value  # type: ignore[index]
        assert values["judge_majority"] == values["judge_majority"]  # type: ignore[index]
        scored = values["mcq_accuracy"] == values["mcq_accuracy"]  # type: ignore[index]
        assert scored == (str(sample.id) in with_mcq), sample.id


def test_same_seed_same_records_other_seed_other_order(
    built: tuple[Path, Path], tmp_path: Path
) -> None:
    def records(seed: int, name: str) -> list[str]:
        build(tmp_path / name, seed=seed)
        out = tmp_path / f"{name}.jsonl"
        export_scenarios([str(tmp_path / name)], out)
        return out.read_text().splitlines()

    first = built[1].read_text().splitlines()  # the default seed, 19260817
    again, other = records(19260817, "again"), records(8, "other")
    assert first == again
    assert first != other and len(first) == len(other)


def test_messy_model_is_repaired_and_every_loss_is_listed(tmp_path: Path) -> None:
    log = build(tmp_path / "logs", model="standin/messy/builder")
    export = export_scenarios([str(tmp_path / "logs")], tmp_path / "out.jsonl")
    (result,) = export.builds
    counts = result.counts()
    assert counts["repairs"] > 0 and counts["dropped"] > 0 and counts["scenarios"] > 0
    listed = "\n".join(summary(export))
    for drop in result.ledger.drops:
        assert f"[{drop.stage}] {drop.item}: {drop.reason}" in listed
    assert log.samples is not None
    infos = [e for e in log.samples[0].events if e.event == "info"]
    assert len([e for e in infos if "dropped" in str(e.data)]) == len(result.ledger.drops)
    read_scenarios(tmp_path / "out.jsonl")


def test_builder_role_builds_instead_of_the_evaluated_model(tmp_path: Path) -> None:
    (log,) = inspect_eval(
        construct(),
        model="mockllm/model",
        model_roles={"builder": "standin/persona/other-builder"},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples is not None
    models = {e.model for e in log.samples[0].events if e.event == "model"}
    assert models == {"standin/persona/other-builder"}


LIFT = """Title: Lift Talk

INT. OFFICE LIFT - MORNING

Ana and Bo ride up together.

ANA
Morning. Big meeting today?

BO
The biggest. I never told anyone that I applied for your job.

ANA
Really? Which floor are you going to?

BO
Twelve. Same as you, as it happens.

ANA
Then we can walk in together.

BO
Let's.
"""


def test_build_solver_on_a_fountain_script_with_the_counts_as_task_arguments(
    tmp_path: Path,
) -> None:
    script = tmp_path / "lift.fountain"
    script.write_text(LIFT, encoding="utf-8")
    (play,) = read_scripts(str(script))
    assert play.format == "fountain" and play.title == "Lift Talk"
    settings = BuildSettings(min_dialogues=6, scenarios_per_template=2, options=3)
    task = Task(
        dataset=[script_sample(play)],
        solver=build_scenarios(settings, temperature=0.0, max_tokens=512),
        scorer=build_counts(),
    )
    (log,) = inspect_eval(task, model="standin/persona/b", log_dir=str(tmp_path), display="none")
    assert log.status == "success" and log.samples is not None
    counts = log.samples[0].scores["build_counts"].metadata["counts"]  # type: ignore[index]
    assert (counts["templates"], counts["scenarios"], counts["mcqs"]) == (1, 2, 2)
    records = export_scenarios([str(tmp_path)], tmp_path / "lift.jsonl").records
    asked = [q for r in records for c in r["characters"] for q in c["info_reason_questions"]]
    assert all(len(q["options"]) == 3 for q in asked)
    assert {s.template_idx for s in read_scenarios(tmp_path / "lift.jsonl")} == {"lift-e1s1"}


# --- human validation ---------------------------------------------------------------------------


def test_review_sheet_rows_and_applying_the_tags(built: tuple[Path, Path], tmp_path: Path) -> None:
    root, _ = built
    with (root / "review.csv").open(encoding="utf-8-sig") as handle:  # a sheet has a BOM
        rows = list(csv.DictReader(handle))
    (result,) = export_scenarios([str(root / "logs")], None).builds
    goals = sum(len(s.goals) for t in result.templates for s in t.slots)
    infos = sum(len(s.questions) for t in result.templates for s in t.slots)
    assert [r["kind"] for r in rows].count("goal") == goals
    assert [r["kind"] for r in rows].count("private_info") == infos == 1
    for row in rows:
        row.update(annotator_1="1", annotator_2="1", annotator_3="2")
    goal_rows = [r for r in rows if r["kind"] == "goal"]
    goal_rows[0].update(annotator_1="0", annotator_2="0", review="0")  # removed
    goal_rows[1].update(annotator_1="2", annotator_2="2", fix="To ask for a fair answer.")
    info_row = next(r for r in rows if r["kind"] == "private_info")
    info_row.update(annotator_1="3", annotator_2="3")
    sheet = tmp_path / "filled.csv"
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    templates, removed = apply_sheet(result.templates, sheet)
    first = next(t for t in templates if t.template_id == goal_rows[0]["template_idx"])
    slot = next(s for s in first.slots if s.token == goal_rows[0]["slot"])
    assert goal_rows[0]["text"] not in slot.goals and "To ask for a fair answer." in slot.goals
    assert len(slot.categories) == len(slot.goals)
    owner = next(s for t in templates for s in t.slots if s.questions)
    assert owner.private_info and owner.questions[0].answer in owner.private_info
    assert any("(tag 0)" in line for line in removed)
    out = tmp_path / "accepted.jsonl"
    export_scenarios([str(root / "logs")], out, accept=sheet)
    assert len(read_scenarios(out)) == 20
    info_row.update(annotator_1="1", annotator_2="2", annotator_3="3")
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(SheetError, match="no majority"):
        apply_sheet(result.templates, sheet)


def test_review_rows_cover_every_template(built: tuple[Path, Path]) -> None:
    root, _ = built
    (result,) = export_scenarios([str(root / "logs")], None).builds
    ids = {r["template_idx"] for r in sheet_rows(result.templates)}
    assert ids == {t.template_id for t in result.templates}
    assert write_sheet(result.templates, root / "again.csv") == len(sheet_rows(result.templates))
