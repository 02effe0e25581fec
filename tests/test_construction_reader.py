"""Reading screenplays with nothing lost: every line of a script accounted for, Fountain 1.1 as
fountain.io specifies it (each rule on a small example of our own), IMSDb pages as served, a
second opinion from `screenplain`, and builds in one log folder that do not shadow each other.

The script fixtures (`fixtures/construction/scripts/`) are original scripts written for these
tests; each `*.expected.json` beside one lists, by hand, its scene headings and its speeches as
the writer meant them (speaker, words said), independently of the reader.
"""

from __future__ import annotations

import difflib
import html
import io
import json
import re
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from agentsense.cli import main
from agentsense.construction.account import MAX_UNACCOUNTED, NO_CUE
from agentsense.construction.construct_solver import bundled_script
from agentsense.construction.export import export_scenarios, summary
from agentsense.construction.screenplay import parse_script, parse_text, read_screenplay
from agentsense.construction.script_elements import Element, render, speaker_name
from agentsense.engine.errors import PrerequisiteError, ReportError
from agentsense.tasks import construct

SCRIPTS = Path(__file__).parent / "fixtures" / "construction" / "scripts"
FIXTURES = sorted(p for p in SCRIPTS.iterdir() if not p.name.endswith(".expected.json"))
FOUNTAIN = [p for p in FIXTURES if p.suffix == ".fountain"]


def expected(script: Path) -> dict[str, object]:
    return json.loads(script.with_suffix(".expected.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def speeches(elements: list[Element] | tuple[Element, ...]) -> list[tuple[str | None, str]]:
    return [(e.speaker, e.text) for e in elements if e.kind == "dialogue"]


def words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower())


def contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def file_lines(data: bytes) -> int:
    """Lines as an editor counts them (a final line without a newline counts)."""
    text = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return text.count(b"\n") + (0 if text.endswith(b"\n") or not text else 1)


# --- every fixture: headings, speeches, the line account ----------------------------------------


@pytest.mark.parametrize("script", FIXTURES, ids=lambda p: p.name)
def test_every_speech_of_the_source_is_read_once_and_every_line_accounted(script: Path) -> None:
    play = read_screenplay(script)
    truth = expected(script)
    said = [tuple(s) for s in truth["speeches"]]  # type: ignore[attr-defined]
    assert speeches(play.elements) == said
    assert sum(e.kind == "heading" for e in play.elements) == truth["headings"]
    dialogue = [words(e.text) for e in play.speeches]
    for speaker, text in said:
        holders = [d for d in dialogue if contains(d, words(text))]
        assert len(holders) == 1, (speaker, text)
    account = play.account
    assert account.read == file_lines(script.read_bytes())
    used, skipped = sum(account.used.values()), sum(account.skipped.values())
    assert used + skipped == account.read and account.unaccounted == {}
    assert account.used["dialogue"] >= len(said) and account.problem() is None


@pytest.mark.parametrize("script", FIXTURES, ids=lambda p: p.name)
def test_line_endings_tabs_and_trailing_spaces_change_nothing(script: Path) -> None:
    text = read_screenplay(script).elements
    raw = script.read_bytes()
    name = script.name
    source = raw.decode("utf-8") if script.suffix != ".html" else raw.decode("cp1252")
    crlf = parse_script(source.replace("\n", "\r\n"), name)
    assert crlf.elements == text
    padded = "\n".join(line + "   " if line.strip() else line for line in source.split("\n"))
    assert speeches(parse_script(padded, name).elements) == speeches(text)


def test_a_script_twice_reads_every_speech_twice() -> None:
    source = (SCRIPTS / "tide-tables.fountain").read_text(encoding="utf-8")
    once = parse_script(source, "x.fountain")
    twice = parse_script(source + "\n\n" + source, "x.fountain")
    assert speeches(twice.elements) == speeches(once.elements) * 2
    assert twice.account.read == 2 * once.account.read + 1
    assert {k: 2 * v for k, v in once.account.used.items()} == twice.account.used


# --- Fountain 1.1, rule by rule (examples in our words) -----------------------------------------


def read(text: str, name: str = "x.fountain") -> list[tuple[str, str | None, str]]:
    return [(e.kind, e.speaker, e.text) for e in parse_script(text, name).elements]


def test_title_page_with_indented_values_is_skipped_and_names_the_script() -> None:
    text = "Title:\n    **THE QUAY**\n    Part One\nAuthor: A. Writer\n\nINT. QUAY - DAY\n"
    reading = parse_script(text, "x.fountain")
    assert reading.title == "THE QUAY Part One"
    assert read(text) == [("heading", None, "INT. QUAY - DAY")]
    assert reading.account.skipped["title page"] == 4
    assert parse_script("FADE IN:\n\nINT. QUAY - DAY\n", "x.fountain").title is None


@pytest.mark.parametrize(
    ("line", "heading"),
    [
        ("INT. GARAGE - NIGHT", "INT. GARAGE - NIGHT"),
        ("EXT. PIER - DAY", "EXT. PIER - DAY"),
        ("EST. HILLTOP TOWN - DAWN", "EST. HILLTOP TOWN - DAWN"),
        ("INT./EXT. VAN - MOVING", "INT./EXT. VAN - MOVING"),
        ("I/E LIFT - CONTINUOUS", "I/E LIFT - CONTINUOUS"),
        ("int. pantry - day", "int. pantry - day"),
        (".DREAM SEQUENCE", "DREAM SEQUENCE"),
        ("INT. HALL - DAY #12A#", "INT. HALL - DAY"),
        (".FLASHBACK #3#", "FLASHBACK"),
    ],
)
def test_scene_headings(line: str, heading: str) -> None:
    assert read(f"Before.\n\n{line}\n\nAfter.\n")[1] == ("heading", None, heading)


def test_ellipsis_is_not_a_forced_heading_and_bang_forces_action() -> None:
    assert read("...and then silence.\n")[0][0] == "action"
    assert read("!BANG BANG\nThe door gives.\n") == [("action", None, "BANG BANG The door gives.")]


def test_characters_extensions_forced_and_dual_dialogue() -> None:
    text = (
        "R2D2\nWhistles.\n\n23\nNot a name.\n\nMOM (on the phone)\nCome home.\n\n"
        "@van der Berg\nHello.\n\nLEFT\nOne.\n\nRIGHT ^\nTwo.\n"
    )
    assert read(text) == [
        ("dialogue", "R2d2", "Whistles."),
        ("action", None, "23 Not a name."),
        ("dialogue", "Mom", "Come home."),
        ("dialogue", "Van Der Berg", "Hello."),
        ("dialogue", "Left", "One."),
        ("dialogue", "Right", "Two."),
    ]


def test_parentheticals_are_not_said_and_lyrics_are_sung_words() -> None:
    text = "ANA\n(quietly)\nFirst.\n(louder)\nSecond.\n\nBO\n~La la the sea,\n~la la me.\n"
    assert read(text) == [
        ("dialogue", "Ana", "First. Second."),
        ("dialogue", "Bo", "La la the sea, la la me."),
    ]
    assert read("~A song nobody sings.\n") == [("lyrics", None, "A song nobody sings.")]


def test_transitions_and_centered_text() -> None:
    text = "SMASH TO:\n\n> Fade to grey.\n\n>THE END<\n\n  >  KEEP OUT  <  \n"
    assert read(text) == [
        ("transition", None, "SMASH TO:"),
        ("transition", None, "Fade to grey."),
        ("centered", None, "THE END"),
        ("centered", None, "KEEP OUT"),
    ]


def test_centered_text_and_angle_brackets_in_speech_lose_nothing() -> None:
    # The report: a centred line, and a ">" anywhere later, deleted whole scenes.
    text = (
        "INT. A - DAY\n\n> BRICK & STEEL <\n\nANA\nIs x < y?\n\nINT. B - DAY\n\nBO\nYes.\n\n"
        "INT. C - DAY\n\nANA\nThen y > x.\n"
    )
    assert [e[2] for e in read(text) if e[0] in ("heading", "dialogue")] == [
        "INT. A - DAY",
        "Is x < y?",
        "INT. B - DAY",
        "Yes.",
        "INT. C - DAY",
        "Then y > x.",
    ]


def test_emphasis_and_escapes() -> None:
    text = "ANA\n*soft* **loud** ***both*** _under_ \\*not\\* 2 * 3\n"
    assert read(text) == [("dialogue", "Ana", "soft loud both under *not* 2 * 3")]


def test_notes_inline_across_lines_and_not_across_an_empty_line() -> None:
    text = "ANA\nHi [[inline]] there.\n[[a note\n  \nheld by two spaces]]\nStill Ana.\n"
    assert read(text) == [("dialogue", "Ana", "Hi there. Still Ana.")]
    broken = "Action [[not a note\n\nbecause an empty line ends it]] here.\n"
    assert [e[2] for e in read(broken)] == [
        "Action [[not a note",
        "because an empty line ends it]] here.",
    ]


def test_boneyard_spans_blank_lines_and_an_unclosed_one_hides_nothing() -> None:
    text = "ANA\nKept.\n\n/* BO\nCut.\n\nANA\nCut too. */\n\nBO\nKept too.\n"
    assert speeches(parse_text(text)[1]) == [("Ana", "Kept."), ("Bo", "Kept too.")]
    assert parse_script(text, "x.fountain").account.skipped["boneyard"] == 5
    unclosed = "/* draft\n\nANA\nStill here.\n"
    assert speeches(parse_text(unclosed)[1]) == [("Ana", "Still here.")]


def test_sections_synopses_and_page_breaks_are_skipped_with_their_reason() -> None:
    text = "# Act one\n\n## Part\n\n= Ana arrives.\n\n===\n\nANA\nHere.\n"
    reading = parse_script(text, "x.fountain")
    assert speeches(reading.elements) == [("Ana", "Here.")]
    skipped = reading.account.skipped
    assert (skipped["section"], skipped["synopsis"], skipped["page break"]) == (2, 1, 1)


def test_line_breaks_inside_dialogue_tabs_and_trailing_spaces() -> None:
    text = "ANA   \n\tOne line,\n  \nanother after a held blank.   \n"
    assert read(text) == [("dialogue", "Ana", "One line, another after a held blank.")]


# --- IMSDb as served ----------------------------------------------------------------------------


def test_imsdb_page_markup_entities_and_windows_1252(tmp_path: Path) -> None:
    page = (
        "<html><head><title>X</title><script>var s = '<b>BO</b>';</script></head><body>\n"
        "<a href='/'>Home</a>\n<pre>\n<b>                    ANA</b>\n"
        "          Fish &amp; chips, it&#39;s caf\xe9 time \u2013 &lt;now&gt;.\n</pre>\n"
        "<p>Writers: <b>Someone</b></p></body></html>\n"
    )
    script = tmp_path / "page.html"
    script.write_bytes(page.encode("cp1252"))
    play = read_screenplay(script)
    assert speeches(play.elements) == [("Ana", "Fish & chips, it's café time – <now>.")]
    assert play.format == "html" and play.account.skipped["markup"] == 5


def test_imsdb_page_furniture_and_a_speech_over_a_page_break() -> None:
    text = (
        "12   INT. HALL - DAY   12\n\n     Ana waits.\n\n"
        "                    ANA\n          I was going to\n                    (MORE)\n"
        "                                        (CONTINUED)\n\f\n"
        "                                                  7.\n"
        "                    ANA (CONT'D)\n          say something.\n\n"
        "                    BO\n          Say it.\n     Ana leaves.\n"
    )
    reading = parse_script(text, "x.txt")
    assert [(e.kind, e.text) for e in reading.elements] == [
        ("heading", "INT. HALL - DAY"),
        ("action", "Ana waits."),
        ("dialogue", "I was going to say something."),
        ("dialogue", "Say it."),
        ("action", "Ana leaves."),
    ]
    assert reading.account.skipped["page furniture"] == 3


def test_too_many_unaccounted_lines_drop_the_script_with_its_reason(tmp_path: Path) -> None:
    cue, said = " " * 20, " " * 10
    speech = f"{cue}ANA\n{said}Hello there.\n\n{cue}BO\n{said}Hi.\n\n"
    orphans = "     INT. ROOM - DAY\n\n" + "          A line nobody says.\n\n" * 3
    bad = tmp_path / "scripts" / "garbled.txt"
    bad.parent.mkdir()
    bad.write_text("INT. ROOM - DAY\n\n     Ana sits.\n\n" + orphans + speech * 2, "utf-8")
    reading = parse_script(bad.read_text(), bad.name)
    assert reading.account.unaccounted == {NO_CUE: 3}
    assert reading.account.share > MAX_UNACCOUNTED
    assert "3 of" in str(reading.account.problem()) and "line 7" in str(reading.account.problem())
    with pytest.raises(PrerequisiteError, match=r"garbled\.txt: dropped: 3 of"):
        construct(scripts=str(bad.parent))
    good = bad.parent / "good.fountain"
    good.write_text((SCRIPTS / "tide-tables.fountain").read_text(), "utf-8")
    task = construct(scripts=str(bad.parent))
    assert [s.id for s in task.dataset] == ["good"]
    assert "3 of" in task.metadata["scripts_dropped"]["garbled.txt"]  # type: ignore[index]
    build(bad.parent, tmp_path / "logs")
    lines = summary(export_scenarios([str(tmp_path / "logs")], None))
    assert any("script garbled.txt was dropped before the build: 3 of" in x for x in lines)


# --- the second opinion: screenplain ------------------------------------------------------------

# Where screenplain reads a fixture's speech differently, and which side the spec supports.
DIFFERENCES = {
    ("harbour-lights.fountain", 13): (
        "Lyrics: a line starting with ~ is a lyric; the tilde is markup, not a word said. "
        "screenplain keeps it."
    ),
    ("harbour-lights.fountain", 17): (
        "Character: 'any line entirely in uppercase' with an empty line before and text "
        "after; trailing spaces on the cue do not change that. screenplain reads the cue "
        "as action and loses the speech."
    ),
}


def screenplain_speeches(text: str) -> list[tuple[str, str]]:
    from screenplain.parsers import fountain
    from screenplain.types import Dialog, DualDialog

    def plain(rich: object) -> str:  # screenplain renders rich text as HTML only
        return html.unescape(re.sub(r"<[^>]+>", "", rich.to_html()))  # type: ignore[attr-defined]

    out: list[tuple[str, str]] = []

    def walk(paragraphs: list[object]) -> None:
        for p in paragraphs:
            if isinstance(p, DualDialog):
                walk([p.left, p.right])
            elif isinstance(p, Dialog):
                said = " ".join(plain(line) for paren, line in p.blocks if not paren)
                out.append((plain(p.character), " ".join(said.split())))

    walk(fountain.parse(io.StringIO(text)).paragraphs)
    return out


@pytest.mark.parametrize("script", FOUNTAIN, ids=lambda p: p.name)
def test_screenplain_reads_the_same_speeches_except_where_the_spec_says_we_are_right(
    script: Path,
) -> None:
    ours = speeches(read_screenplay(script).elements)
    theirs = [(speaker_name(s), t) for s, t in screenplain_speeches(script.read_text())]
    assert ours == [tuple(s) for s in expected(script)["speeches"]]  # type: ignore[attr-defined]
    differ: set[int] = set()  # our speeches that screenplain reads otherwise or not at all
    for op, i1, i2, j1, _ in difflib.SequenceMatcher(a=ours, b=theirs).get_opcodes():
        assert op != "insert", f"screenplain reads a speech we do not: {theirs[j1]}"
        if op != "equal":
            differ.update(range(i1, i2))
    assert differ == {n for (name, n) in DIFFERENCES if name == script.name}, [
        (n, ours[n]) for n in sorted(differ)
    ]


# --- builds in one log folder -------------------------------------------------------------------


def build(script: Path, log_dir: Path, **args: object) -> None:
    (log,) = inspect_eval(
        construct(
            scripts=str(script),
            min_dialogues=2,
            scenarios_per_template=1,
            **args,  # type: ignore[arg-type]
        ),
        model="standin/persona/builder",
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error


def test_builds_in_one_folder_are_all_exported_or_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    build(SCRIPTS / "tide-tables.fountain", logs)
    build(SCRIPTS / "the-crossing.txt", logs)
    out = tmp_path / "all.jsonl"
    assert main(["scenarios", str(logs), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for name, truth in (("tide-tables.fountain", 12), ("the-crossing.txt", 8)):
        line = next(x for x in printed.splitlines() if x.startswith(name))
        assert "speeches; lines: " in line and f"and {truth} speeches" in line, printed
    export = export_scenarios([str(logs)], None)
    assert sorted(b.script for b in export.builds) == ["the-crossing.txt", "tide-tables.fountain"]
    assert len(set(export.logs)) == 2
    build(SCRIPTS / "tide-tables.fountain", logs)  # the same build again: exported once
    again = export_scenarios([str(logs)], None)
    assert len(again.builds) == 2 and any("identical builds" in n for n in again.notes)
    build(SCRIPTS / "tide-tables.fountain", logs, seed=7)  # another build of the same script
    with pytest.raises(ReportError, match="script tide-tables is built differently in") as error:
        export_scenarios([str(logs)], tmp_path / "x.jsonl")
    assert str(error.value).count(".eval") >= 2 and not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("script", FIXTURES, ids=lambda p: p.name)
def test_rendered_script_reads_back_to_the_same_speeches(script: Path) -> None:
    # What Prompts 1-2 are given: a division that returns it unchanged must be accepted.
    elements = read_screenplay(script).elements
    assert speeches(parse_text(render(elements))[1]) == speeches(elements)


def test_bundled_script_one_speech_per_cue_in_the_cue_column() -> None:
    play = read_screenplay(bundled_script())
    cues = re.findall(r"^ {30}([A-Z][A-Z .()']+)$", bundled_script().read_text(), flags=re.M)
    assert [e.speaker for e in play.speeches] == [speaker_name(c) for c in cues]
    assert play.account.unaccounted == {} and play.account.skipped["title page"] == 4


@pytest.mark.parametrize("script", FIXTURES, ids=lambda p: p.name)
def test_one_changed_speech_changes_exactly_that_speech(script: Path) -> None:
    raw = script.read_bytes().decode("cp1252" if script.suffix == ".html" else "utf-8")
    before = speeches(parse_script(raw, script.name).elements)
    _, last = before[-1]
    word = words(last)[-1]  # the last word of the last speech, as written in the source
    at = raw.rfind(word) if word in raw else raw.lower().rfind(word)
    assert at > 0
    changed = raw[:at] + "Zebra" + raw[at + len(word) :]
    after = speeches(parse_script(changed, script.name).elements)
    assert len(after) == len(before)
    assert [n for n, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [
        len(before) - 1
    ]
    assert "Zebra" in after[-1][1]


def test_two_scripts_with_one_id_are_named_before_any_call(tmp_path: Path) -> None:
    text = (SCRIPTS / "tide-tables.fountain").read_text(encoding="utf-8")
    (tmp_path / "tide-tables.fountain").write_text(text, "utf-8")
    (tmp_path / "Tide Tables.txt").write_text(text, "utf-8")
    with pytest.raises(PrerequisiteError, match=r"one id \(tide-tables\) for 2 scripts"):
        construct(scripts=str(tmp_path))


# --- names and titles -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cue", "name"),
    [
        ("MRS. O'HARA (V.O.)", "Mrs. O'Hara"),
        ("D'ARTAGNAN", "D'Artagnan"),
        ("MCCOY", "McCoy"),
        ("@McKAY", "McKay"),
        ("MCKAY ^", "McKay"),
        ("MacLEOD (CONT'D)", "MacLeod"),
        ("JEAN-LUC", "Jean-Luc"),
        ("MARY-KATE O'CONNOR", "Mary-Kate O'Connor"),
        ("JIMMY'S MOM", "Jimmy's Mom"),  # a possessive is no O'
        ("MACK", "Mack"),  # all capitals: no Mac prefix guessed
        ("DR. SMITH", "Dr. Smith"),
        ("R2-D2", "R2-D2"),
        ("ROSA", "Rosa"),
    ],
)
def test_cue_names_in_title_case_as_names_are_written(cue: str, name: str) -> None:
    assert speaker_name(cue) == name


def test_the_action_lines_spell_a_name_the_cues_write_in_capitals() -> None:
    text = (
        "INT. CROFT - NIGHT\n\nMacLeod and Mrs. O'Hara sit by the fire. Mack sleeps.\n\n"
        "MACLEOD\nMore tea?\n\nMRS. O'HARA\nPlease.\n\nMACK\nQuiet.\n"
    )
    elements = parse_script(text, "croft.fountain").elements
    assert [e.speaker for e in elements if e.kind == "dialogue"] == [
        "MacLeod",
        "Mrs. O'Hara",
        "Mack",
    ]


def test_a_cue_only_spelling_survives_rendering() -> None:
    # No action line writes "MacLeod": the cue's own case is the only record of it, and the
    # text Prompts 1-2 are given must read back to it (a forced `@MacLeod` cue).
    elements = parse_script("INT. CROFT - NIGHT\n\n@MacLEOD\nMore tea?\n", "x.fountain").elements
    assert speeches(elements) == [("MacLeod", "More tea?")]
    assert speeches(parse_text(render(elements))[1]) == speeches(elements)


@pytest.mark.parametrize(
    ("script", "title"),
    [
        ("harbour-lights.fountain", "HARBOUR LIGHTS The Last Shift"),  # Fountain `Title:`
        ("the-crossing.txt", "THE CROSSING"),  # a typed title page's first block
        ("night-shift.html", "NIGHT SHIFT"),  # the same, in an IMSDb page
        ("tide-tables.fountain", "tide-tables"),  # no title page: the file's name
    ],
)
def test_the_title_is_the_title_pages_else_the_file_name(script: str, title: str) -> None:
    assert read_screenplay(SCRIPTS / script).title == title
