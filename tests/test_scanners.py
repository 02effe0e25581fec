"""The transcript scanners (`agentsense.scanners`, docs/scanners.md): each pattern rule on the
labelled turns the project ships, the validate command, a scripted log scanned end to end with
`scout scan` (the README's command), and the report's *Transcript scans* section from that scan."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import inspect_scout  # noqa: F401  (the `scout` extra; dev installs it: missing, this file fails)
import pytest
from inspect_ai import eval
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

from agentsense.cli import main
from agentsense.engine.errors import ReportError
from agentsense.report.document import Absent, ReportOptions
from agentsense.report.sections.scans import HOW, scan_counts, scans_section
from agentsense.scanners import detect, validate

SCANJOB = Path(validate.__file__).with_name("scanjob.py")

# Floors well under today's figures (docs/scanners.md) and over what a rule that flags nothing,
# or everything, scores on a set of as many positives as negatives.
FLOORS: dict[str, tuple[float, float]] = {  # scanner -> (precision, recall)
    "character_break": (0.9, 0.8),
    "wrong_speaker": (0.9, 0.9),
    "secret_leak": (0.9, 0.5),
    "refusal": (0.9, 0.8),
    "newline_cut_loss": (0.9, 0.9),
    "judge_disagreement": (0.9, 0.9),
}


def test_every_scanner_has_a_floor_and_a_balanced_set() -> None:
    assert set(FLOORS) == set(validate.RULES)
    for name in validate.RULES:
        labels = [case["label"] for case in validate.cases(name)]
        assert sum(labels) >= 10 and len(labels) - sum(labels) >= 10, name


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_pattern_scanner_on_the_labelled_set(name: str) -> None:
    found = validate.pattern_figures(name)
    precision, recall = FLOORS[name]
    assert found.precision >= precision and found.recall >= recall, found


@pytest.mark.parametrize("flag", [False, True], ids=["flags-nothing", "flags-everything"])
def test_a_broken_rule_falls_below_the_floors(flag: bool) -> None:
    for name, (precision, recall) in FLOORS.items():
        labels = [case["label"] for case in validate.cases(name)]
        found = validate.figures(name, labels, [flag] * len(labels))
        assert not (found.precision >= precision and found.recall >= recall), name


def test_rules_on_single_turns() -> None:
    names = ["DanielAdeyemi", "GraceAdeyemi"]
    assert detect.wrong_speaker("Fine.\nGrace: No.", "DanielAdeyemi", names) == "GraceAdeyemi"
    assert detect.wrong_speaker("DanielAdeyemi: Grace, listen.", "DanielAdeyemi", names) is None
    assert detect.cut_loss("One line only.", "Bob") == 0
    assert 0.5 < detect.cut_loss("Hm.\nA much longer second line that the cut drops.", "Bob") < 1
    # Only the judge panel counts: self and other characters' readings are not the panel's.
    answers = [
        {"asker": asker, "reading": reading, "character": "A", "goal": 1, "item": 1}
        for asker, reading in (("self", 0), ("judge_1", 1), ("judge_2", 1), ("other:B", 0))
    ]
    assert detect.panel_splits(answers) == (0, 1)
    answers[2]["reading"] = 0
    assert detect.panel_splits(answers) == (1, 1)


# Turns written without the rules in view (issue 53), each judged wrongly by the earlier rules.
@pytest.mark.parametrize(
    "text", ["I'd rather not continue this role-play.", "Sorry, I can't help with that."]
)
def test_refusal_in_other_words(text: str) -> None:
    assert detect.refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Sorry, I can't help with the dishes tonight, Mum.",  # a thing in the scene, not a request
        "Sorry, I can't help it, I'm nervous.",
        "I'd rather not continue this conversation, Mum.",  # the scene's talk, not the role-play
    ],
)
def test_a_character_declining_in_the_scene_is_no_refusal(text: str) -> None:
    assert not detect.refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        "I worked as an assistant chef",
        "As an assistant buyer, I never got a say.",
        "I'm just an assistant at the surgery",
        "I worked as an assistant.",
        "As an AI researcher, I see this a lot.",
    ],
)
def test_a_job_is_no_character_break(text: str) -> None:
    assert not detect.character_break(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm just an assistant, so I can't say what Daniel feels.",
        "Well, as an assistant, I would suggest honesty.",
        "I am an AI language model developed by a lab.",
    ],
)
def test_an_assistant_speaking_as_itself_is_a_character_break(text: str) -> None:
    assert detect.character_break(text)


def test_wrong_speaker_in_a_stage_direction() -> None:
    names = ["DanielAdeyemi", "GraceAdeyemi"]
    for text in ("(Grace: fine, take it.)", "I'll drive. (GraceAdeyemi: Fine, take it.)"):
        assert detect.wrong_speaker(text, "DanielAdeyemi", names) == "GraceAdeyemi", text
    assert (
        detect.wrong_speaker("(Grace looks away.) Fine: take it.", "DanielAdeyemi", names) is None
    )


def secret_leak_standin(turns: list[tuple[str, str]], secrets: dict[str, str]) -> bool:
    """`secret_leak_llm` on the stand-in, for a transcript of `(speaker, text)` turns."""
    import asyncio

    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser
    from inspect_scout import Transcript

    from agentsense.scanners import llm

    transcript = Transcript(
        transcript_id="leak",
        messages=[
            ChatMessageUser(content="The scene begins."),
            *(ChatMessageAssistant(content=f"{who}: {text}") for who, text in turns),
        ],
        metadata={
            "sample_metadata": {
                "scenario": {
                    "characters": [{"name": n, "private_info": s} for n, s in secrets.items()]
                }
            }
        },
    )
    scan = llm.secret_leak_llm(model="scanner-standin/patterns")
    return bool(asyncio.run(scan(transcript)).value)  # type: ignore[union-attr]


def test_secret_leak_standin_judges_each_turn_against_its_own_secret() -> None:
    secrets = {"DanielAdeyemi": "", "GraceAdeyemi": "GraceAdeyemi sold the cottage."}
    # Another character's turn mentioning the cottage is not Grace stating her secret, and
    # Grace's own name (in her turn's prefix, or said) is not a word of it.
    daniel = ("DanielAdeyemi", "Grace, the cottage looked lovely.")
    assert not secret_leak_standin([daniel, ("GraceAdeyemi", "Thank you, love.")], secrets)
    assert not secret_leak_standin([("GraceAdeyemi", "GraceAdeyemi loves the cottage.")], secrets)
    assert not secret_leak_standin([("DanielAdeyemi", "Mum sold the cottage.")], secrets)
    assert secret_leak_standin([daniel, ("GraceAdeyemi", "I sold the cottage.")], secrets)


def tables(text: str, headings: dict[str, str]) -> dict[str, list[str]]:
    """The table lines (`| ...`) after each heading of `text` (set -> lines), up to the next."""
    found: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        current = next((which for which, h in headings.items() if line.startswith(h)), current)
        if current is not None and line.startswith("| "):
            found.setdefault(current, []).append(line)
        elif current is not None and current in found and not line.startswith("|"):
            current = None  # the table has ended
    return found


def test_validate_command_prints_both_sets_as_the_docs_show(
    capsys: pytest.CaptureFixture[str],
) -> None:
    validate.main([])
    # The tables (Inspect may print its hooks first, once a task module is imported).
    printed = tables(capsys.readouterr().out, validate.HEADINGS)
    assert set(printed) == set(validate.SETS)
    for lines in printed.values():
        names = [line.split("|")[1].strip() for line in lines if not line.startswith("| scanner")]
        assert names == [
            *validate.RULES,
            *(f"{llm} (scanner-standin/patterns)" for llm in validate.LLM),
        ]
    # The stand-in answers with the pattern rule turn by turn, so through the LLM scanner's prompt
    # and answer parsing it must find what the rule finds (on the development set, where an LLM
    # scanner reads its pattern's file).
    figures = {line.split("|")[1].strip(): line.split("|")[2:] for line in printed["development"]}
    for llm, rule in validate.LLM.items():
        assert figures[f"{llm} (scanner-standin/patterns)"] == figures[rule], llm
    # docs/scanners.md shows both tables as the shipped rules and sets give them today.
    docs = (Path(__file__).parents[1] / "docs" / "scanners.md").read_text(encoding="utf-8")
    documented = tables(
        docs, {"development": "### Development set", "held-out": "### Held-out set"}
    )
    assert documented == printed


def test_the_held_out_set_is_apart_and_large_enough() -> None:
    """At least 30 turns per scanner, half positive, no turn's text also in the development set."""
    for name in [*validate.RULES, *validate.LLM]:
        held_out = validate.cases(name, "held-out")
        positives = sum(case["label"] for case in held_out)
        assert len(held_out) >= 30 and positives == len(held_out) - positives, name
        # (judge panels have few forms, so only turns' texts are compared)
        texts = {case.get("text") for case in validate.cases(name)} - {None}
        assert not texts & {case.get("text") for case in held_out}, name


# --- a scripted log, scanned with `scout scan` ---------------------------------------------------

_SPEAKER = re.compile(r"as (\w+), you have some social goals")
_SECRET = re.compile(r"SECRETS: (.+?)\.?\n")
_LINE = re.compile(r"^\w+: ", re.MULTILINE)


def scripted_turn(turn: int, speaker: str, other: str, secret: str) -> str:
    """Turn 1 breaks character, 2 refuses, 3 speaks for the other character (after a newline, so
    the cut drops most of it), 4 states the secret, the rest are plain."""
    return {
        1: "As an AI language model, I don't have a family, but I understand.",
        2: "I'm sorry, but I can't continue this role-play.",
        3: f"Fine.\n{other}: That is not what I meant, and you know it perfectly well.",
        4: f"The truth is this: {secret}.",
    }.get(turn, f"Let us talk about the summer calmly, {other}.")


def agent() -> Model:
    def reply(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        system, last = input[0].text, input[-1].text
        speaker = _SPEAKER.search(system)
        if "yes or no" in last.lower():  # a goal question after the scene
            text = "Yes."
        elif "only output your choice" in last or speaker is None:  # an MCQ
            text = "(A)"
        else:
            seen = "\n".join(m.text for m in input[1:])
            names = set(re.findall(r"^(\w+): ", seen, re.MULTILINE)) - {speaker[1]}
            secret = _SECRET.search(system)
            turn = len(_LINE.findall(seen))
            text = scripted_turn(turn, speaker[1], min(names), secret[1] if secret else "")
        return scripted(text)

    return get_model("mockllm/model", custom_outputs=reply)


def scripted(text: str) -> ModelOutput:
    output = ModelOutput.from_content(model="scripted", content=text)
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer
    return output


def constant(text: str) -> Callable[..., ModelOutput]:
    return lambda *_: scripted(text)


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(log folder, scans folder): two scenes of a scripted agent judged by a panel that always
    splits (one judge says yes, one no), scanned with every scanner, the LLM ones on the
    offline stand-in."""
    from agentsense.tasks import goal

    root = tmp_path_factory.mktemp("scanned")
    judges = [
        get_model("mockllm/yes", custom_outputs=constant("Yes.")),
        get_model("mockllm/no", custom_outputs=constant("No.")),
    ]
    (log,) = eval(
        goal(dataset="demo", max_messages=6),
        model=agent(),
        model_roles={"judge": judges},
        sample_id=[101, 301],
        log_dir=str(root / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    command = [
        *(str(Path(sys.executable).with_name("scout")), "scan", str(SCANJOB)),
        *("-T", str(root / "logs"), "--scans", str(root / "scans"), "--display", "none"),
        *("-S", "llm=true", "--model-role", "scanner=scanner-standin/patterns"),
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=os.environ, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "logs", root / "scans"


@pytest.mark.slow
def test_scout_scan_flags_the_scripted_turns(scanned: tuple[Path, Path]) -> None:
    from inspect_scout import scan_results_df

    (scan,) = scanned[1].glob("scan_id=*")
    results = scan_results_df(str(scan)).scanners
    assert set(results) == set(validate.RULES) | set(validate.LLM)
    expected_turns = {"character_break": [1], "refusal": [2], "wrong_speaker": [3]}
    expected_turns["secret_leak"] = [4]
    for name, turns in expected_turns.items():
        frame = results[name]
        assert frame["scan_error"].isna().all(), frame["scan_error"]
        assert frame["value"].tolist() == [len(turns)] * 2, name
        assert [m["turns"] for m in frame["metadata"].map(_json)] == [turns] * 2, name
        assert frame["explanation"].str.contains(f"(turn {turns[0]})", regex=False).all()
    cut = results["newline_cut_loss"]
    assert [m["turns"] for m in cut["metadata"].map(_json)] == [[3], [3]]
    assert all(0 < share < 0.5 for share in cut["value"])  # one reply of five mostly cut
    assert results["judge_disagreement"]["value"].tolist() == [1.0, 1.0]
    for name in validate.LLM:
        assert results[name]["value"].tolist() == [True, True], name


def _json(text: str) -> dict[str, Any]:
    return json.loads(text) if isinstance(text, str) else text


@pytest.mark.slow
def test_report_section_from_the_scan(
    scanned: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs, scans = scanned
    out = tmp_path / "report"
    assert main(["report", str(logs), "--out", str(out), "--scan", str(scans)]) == 0
    markdown = (out / "report.md").read_text()
    section = markdown.split("## Transcript scans")[1].split("\n## ")[0]
    rows = {
        cells[0]: cells
        for line in section.splitlines()
        if line.startswith("| ") and (cells := [c.strip() for c in line.strip("|").split("|")])
    }
    # scanner, model, transcripts, flagged transcripts, flagged turns, mean share, errors
    assert rows["character_break"][1:] == ["mockllm/model", "2", "2", "2", "", "0"]
    assert rows["newline_cut_loss"][4] == "" and 0 < float(rows["newline_cut_loss"][5]) < 0.5
    assert rows["judge_disagreement"][3:] == ["2", "", "1.0", "0"]
    assert rows["secret_leak_llm"][3:] == ["2", "", "", "0"]
    assert (out / "scans.csv").is_file()
    assert "Transcript scans" not in capsys.readouterr().out  # not among the left out


@pytest.mark.slow
def test_report_without_a_scan_says_how(
    scanned: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(scanned[0]), "--out", str(tmp_path / "report")]) == 0
    assert f"Left out: Transcript scans: {HOW}." in capsys.readouterr().out.splitlines()
    assert "## Transcript scans" not in (tmp_path / "report" / "report.md").read_text()


def test_no_scan_section_without_a_scan() -> None:
    inputs = SimpleNamespace(options=ReportOptions(out=Path("unused")))
    assert scans_section(inputs) == Absent(HOW)  # type: ignore[arg-type]


def test_report_refuses_a_folder_without_a_scan(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"--scan .*no Scout scan there.*scout scan"):
        scan_counts(tmp_path)
