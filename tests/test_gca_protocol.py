"""CoSER's GCA rules on their own: thoughts, next-speaker parsing and fallback, critic replies, the
score formula, the character prompt and the records (no model calls)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, get_model

from agentsense.coser import prompts
from agentsense.coser.compared_texts import actor_rounds, reference_text, simulation_text
from agentsense.coser.critic import extract_json, read_flaws
from agentsense.coser.dataset import GCADataError, demo_path, load_circumstances
from agentsense.coser.record import Circumstance
from agentsense.coser.score import dimension_score, ignored_severities, severity_sum
from agentsense.coser.simulation import GCASettings, cast_prompts
from agentsense.engine.conversation import Turn
from agentsense.engine.next_speaker import NextSpeakerPredictor, parse_colon, parse_head
from agentsense.engine.thoughts import ThoughtViews, add_speaker_name, remove_inner_thoughts


def demo_records() -> list[Circumstance]:
    return load_circumstances("demo")


# --- thoughts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[I fear him.] (bows) Good day.", "(bows) Good day."),
        ("Hello [a] there [b]", "Hello  there"),
        ("[one\nline] two", "[one\nline] two"),  # a thought across lines stays (no re.S)
        ("[unclosed thought and speech", "[unclosed thought and speech"),
        ("  a  \n\n\n  b ", "a\nb"),
        ("[only a thought]", ""),
    ],
)
def test_remove_inner_thoughts(text: str, expected: str) -> None:
    assert remove_inner_thoughts(text) == expected


def test_add_speaker_name_once() -> None:
    assert add_speaker_name("Hi.", "Mara") == "Mara: Hi."
    assert add_speaker_name("Mara: Hi.", "Mara") == "Mara: Hi."
    assert add_speaker_name("(waves)\nMara：Hi.", "Mara") == "(waves)\nMara：Hi."
    assert add_speaker_name("", "Mara") == "Mara: "


def test_thought_views_hide_others_thoughts_and_merge_like_coser_agents() -> None:
    views = ThoughtViews(prompts.CONVERSATION_START)
    views.append(Turn(index=0, speaker="A", text="[secret A] (nods) Yes."))
    views.append(Turn(index=1, speaker="B", text="[secret B] No."))
    views.note("NSP", "A")
    views.append(Turn(index=2, speaker="C", text=""))
    a = [(m.role, m.text) for m in views.prompt("sys A", "A")]
    assert a == [
        ("system", "sys A"),
        ("user", prompts.CONVERSATION_START),
        ("assistant", "A: [secret A] (nods) Yes."),
        ("user", "B: No.\n\nC: "),
    ]
    nsp = [(m.role, m.text) for m in views.prompt("sys N", "NSP")]
    assert nsp == [
        ("system", "sys N"),
        ("user", f"{prompts.CONVERSATION_START}\n\nA: (nods) Yes.\n\nB: No."),
        ("assistant", "A"),
        ("user", "C: "),
    ]


# --- next speaker ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "head", "colon"),
    [
        ("2. Next Speaker: Mr Bennet", "Mr Bennet", "2. Next Speaker"),
        ("2. **Next Speaker**: Mr Bennet", "Mr Bennet", "2. **Next Speaker**"),
        ("2. **Next Speaker:** Mr Bennet", ":", "2. **Next Speaker"),
        ("Next Speaker: **Mr Bennet**", "Next Speaker", "Next Speaker"),
        ('Next Speaker: "Mr Bennet"', '"Mr Bennet', "Next Speaker"),
        ("Mr Bennet", "Mr Bennet", "Mr Bennet"),
        ("Mr Bennet\n", "Mr Bennet\n", "Mr Bennet\n"),
        ("<END CHAT>", "<END CHAT>", "<END CHAT>"),
        (
            "the next speaker should be X.\nNext Speaker: Y",
            "Y",
            "the next speaker should be X.\nNext Speaker",
        ),
    ],
)
def test_next_speaker_parsers_match_coser(response: str, head: str, colon: str) -> None:
    assert parse_head(response) == head
    assert parse_colon(response) == colon


def predictor(seeded: list[str] | None = None) -> NextSpeakerPredictor:
    return NextSpeakerPredictor(
        model=lambda: get_model("mockllm/model"),
        system="sys",
        views=ThoughtViews(prompts.CONVERSATION_START),
        first_speaker="A",
        speakers=["A", "B", "Minor", "Environment"],
        fallback=["A", "B", "Environment"],
        rng=random.Random(0),
        config=GenerateConfig(),
        seeded=seeded or [],
    )


def test_validation_and_fallback() -> None:
    nsp = predictor()
    assert nsp.validate("B", "A", 3) == ("B", True)
    assert nsp.validate("Minor", "A", 3) == ("Minor", True)
    assert nsp.validate("<END CHAT>", "A", 6) == ("<END CHAT>", True)
    picks = set()
    for parsed, done in [("<END CHAT>", 5), ("A", 3), ("random", 3), ("Nobody", 3)] * 25:
        chosen, valid = nsp.validate(parsed, "A", done)
        assert not valid
        picks.add(chosen)
    # never the current speaker, never a minor speaker
    assert picks == {"B", "Environment"}


def test_seeded_answers_need_no_model_and_are_validated() -> None:
    nsp = predictor(seeded=["A", "B"])
    turns = [Turn(index=0, speaker="A", text="hi")]
    # the book repeats A: invalid, so a random other speaker takes over
    assert asyncio.run(nsp.next(turns)) in {"B", "Environment"}
    turns.append(Turn(index=1, speaker="Environment", text="wind"))
    assert asyncio.run(nsp.next(turns)) == "B"


# --- critic replies -------------------------------------------------------------------------


def test_extract_json_variants() -> None:
    body = {"Anthropomorphism": {"flaws": [{"instance": "x", "type": "t", "severity": 2}]}}
    text = json.dumps(body)
    assert extract_json(text) == body
    assert extract_json(f"Sure.\n```json\n{text}\n```\nDone.") == body
    multiline = '{"Anthropomorphism": {"flaws": [{"instance": "line one\nline two"}]}}'
    assert extract_json(multiline)["Anthropomorphism"]["flaws"][0]["instance"] == (
        "line one\nline two"
    )
    assert extract_json('{"a": 1} and {"b": [1, 2, 3]}') == {"b": [1, 2, 3]}  # the longest
    assert extract_json("no json here") is None


def test_read_flaws_is_strict_about_shape() -> None:
    dim = "Storyline Quality"
    assert read_flaws({dim: {"flaws": [{"severity": None}, {}]}}, dim) == [
        {"severity": 1},
        {"severity": 1},
    ]
    assert read_flaws({dim: {"flaws": []}}, dim) == []
    assert read_flaws({"Anthropomorphism": {"flaws": []}}, dim) is None  # not what was asked
    assert read_flaws({dim: {"flaws": []}, "Other": {"flaws": []}}, dim) is None
    assert read_flaws({dim: {"flaws": "none"}}, dim) is None
    assert read_flaws({dim: {"flaws": ["bad"]}}, dim) is None
    assert read_flaws([{"flaws": []}], dim) is None


# --- score formula --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("severities", "rounds", "expected"),
    [
        ([2, 3, 2, 3], 11, 66.5),  # CoSER's King Lear-17-0 Storyline Consistency
        ([], 0, 100.0),
        ([], 13, 100.0),  # clipped at 100
        ([1], 10, 100.0),  # 100 - 5 + 15 = 110, clipped
        ([5, 5, 5, 5, 5, 5], 4, 0.0),  # 100 - 150 + 6 = -44, clipped at 0
        ([5, 5, 5], 6, 34.0),  # 100 - 75 + 9
        ([10], 0, 50.0),  # no cap on a severity
    ],
)
def test_dimension_score_by_hand(severities: list[int], rounds: int, expected: float) -> None:
    flaws = [{"severity": s} for s in severities]
    assert dimension_score(severity_sum(flaws), rounds) == pytest.approx(expected)


def test_non_integer_severities_count_zero_and_are_reported() -> None:
    flaws: list[dict[str, Any]] = [{"severity": 3}, {"severity": "4"}, {"severity": 2.0}]
    assert severity_sum(flaws) == 3
    assert ignored_severities(flaws) == ["4", 2.0]


def test_rounds_leave_out_the_environment() -> None:
    turns = [
        Turn(index=0, speaker="A", text="x"),
        Turn(index=1, speaker="Environment", text="y"),
        Turn(index=2, speaker="B", text=""),
    ]
    assert actor_rounds(turns) == 2
    assert simulation_text(turns) == "A: x\n\nEnvironment: y\n\nB:"


# --- prompts and records --------------------------------------------------------------------


def test_character_prompt_matches_coser_rendering() -> None:
    # coser-gca.md §2.2: "Rendered skeleton", without retrieval, plus the Agent suffix.
    rendered = prompts.character_prompt(
        character="Elizabeth Bennet",
        book="<BOOK>",
        profile="<PROFILE OF Elizabeth Bennet>",
        scenario="<SCENARIO>",
        other_profiles=[("Mr Bennet", "<PROFILE OF Mr Bennet>")],
        decorator="\n",
        motivation="<MOTIVATION>",
        requirements=prompts.OUTPUT_FORMAT_WITH_EXAMPLE,
    )
    assert rendered == (
        "You are Elizabeth Bennet from <BOOK>.\n\n===Elizabeth Bennet's Profile===\n"
        "<PROFILE OF Elizabeth Bennet>\n\n===Current Scenario===\n<SCENARIO>\n\n"
        "===Information about the other Characters===\n\nMr Bennet: <PROFILE OF Mr Bennet>"
        "\n\n\n\n===Your Inner Thoughts===\n<MOTIVATION>\n\n\n\n===Requirements===\n"
        "Your output should include **thought**, **speech**, and **action**. Use [your thought] "
        "for thoughts, which others can't see, e.g. [I'm terrified, but I must appear strong.]. "
        "Use (your action) for actions, which others can see, such as (watches silently, trying "
        "to control her fear and anger).\n\nSpeak concisely as humans, instead of being verbose. "
        "Limit your response to 60 words.\n\n"
    )


def test_critic_prompt_keeps_the_literal_placeholder_in_character_fidelity() -> None:
    fidelity = next(d for d in prompts.DIMENSIONS if d.name == "Character Fidelity")
    text = prompts.critic_prompt(
        fidelity,
        book="B",
        plot_summary="P",
        scenario="S",
        character_profiles="C",
        original_conversation="O",
        major_characters=["X", "Y"],
        additional_instructions="",
    )
    assert "Profiles of the main characters, including X, Y." in text
    assert "(Only apply to the main characters: {major_characters})" in text
    assert "in terms of Character Fidelity, i.e., How well the characters match" in text
    assert "\n   \n\n## Scenario" in text  # the empty instructions line keeps its 3 spaces
    assert text.endswith("===Dialogue Content===\n")


def test_demo_records_and_their_quirks() -> None:
    records = demo_records()
    assert [r.key for r in records] == [
        "The Lighthouse at Gull Point-3-0",
        "The Clockmaker's Apprentice-12-1",
        "The Lighthouse at Gull Point-5-0",
    ]
    lighthouse, clock, _ = records
    assert lighthouse.motivation("Mara").startswith("I am frightened")  # under `thought`
    assert clock.motivation("Ines").startswith("I want Master Halloran")  # under `motivation`
    assert clock.speakers[-1] == "Environment"  # appended
    assert clock.profile("Customer") == "A merchant in a hurry."  # plot description only
    assert clock.profile("Ines").startswith("Halloran's apprentice, talented")
    assert reference_text(lighthouse.dialogues[:1]) == (
        "Mara: (sets the lantern down beside him) Father, let me hold the wick steady."
    )


def test_cast_prompts_are_seeded_and_complete() -> None:
    record = demo_records()[1]
    settings = GCASettings()
    first = cast_prompts(record, settings, random.Random(1))
    assert first == cast_prompts(record, settings, random.Random(1))
    assert set(first) == {"Master Halloran", "Ines", "Customer", "Environment"}
    assert first["Ines"].endswith(prompts.CONCISENESS_SUFFIX)
    assert "===Your Inner Thoughts===\nI want Master Halloran" in first["Ines"]
    assert "Customer: A merchant in a hurry." in first["Ines"]
    assert "(including ['Master Halloran', 'Ines'])" in first["Environment"]
    bare = cast_prompts(record, GCASettings(thoughts=False), random.Random(1))
    assert prompts.OUTPUT_FORMAT_WITHOUT_THOUGHT in bare["Ines"]


def write_records(tmp_path: Path, records: list[dict[str, Any]]) -> str:
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return str(path)


def test_record_missing_a_protocol_field_is_rejected_with_index_and_field(
    tmp_path: Path,
) -> None:
    raw = json.loads(demo_path().read_text(encoding="utf-8"))
    del raw[1]["plot"]["summary"]
    del raw[2]["dialogues"]
    raw[0]["major_characters"] = "Mara"
    with pytest.raises(GCADataError) as caught:
        load_circumstances(write_records(tmp_path, raw))
    message = str(caught.value)
    assert "3 problem(s)" in message
    assert "record 1 (The Clockmaker's Apprentice-12-1): field `plot.summary`: missing" in message
    assert "record 2 (The Lighthouse at Gull Point-5-0): field `dialogues`: missing" in message
    assert "record 0 (The Lighthouse at Gull Point-3-0): field `major_characters`" in message


def test_bad_dataset_arguments(tmp_path: Path) -> None:
    with pytest.raises(GCADataError, match="neither 'official', 'example', 'demo'"):
        load_circumstances(str(tmp_path / "missing.json"))
    path = tmp_path / "object.json"
    path.write_text("{}", encoding="utf-8")
    with pytest.raises(GCADataError, match="JSON list"):
        load_circumstances(str(path))


# sha256 of each verbatim text, computed once the texts were checked character for character
# against coser-gca.md (§2.3, §2.4, §3.2-3.4): a change to a CoSER prompt must be deliberate.
PROMPT_DIGESTS = {
    "CRITIC_TEMPLATE": "9a9bf1d745bd2e2ecc07b92394c566b6657e6708d9687d6b8ea342b26f60ab92",
    "ENVIRONMENT_TEMPLATE": "902282561b2b5a16c29232fa0fbaf64f849a5d315ef518c54fee264315b5978e",
    "NEXT_SPEAKER_TEMPLATE": "2c96143b427b08d14b0bb343cbb7aa7119ec5a73fbc6186a09d1c4d43bd0b155",
    "NEXT_SPEAKER_OUTPUT_FORMAT": (
        "92d547bcbacd982fb4414cdb12552828b12a9d5b9cd1ad2ce2ae76d2197f99c0"
    ),
    "JSON_REPAIR_PROMPT": "e0831dfa76df2c2829cdafae3b0de87b47ff3ef6da5e8aad82ed12f85095f70a",
    "Storyline Consistency": "0e57762c5bc5c1c15121d8eee3fb9863431d8e71b61defbe63e23ae75464951b",
    "Anthropomorphism": "156bc6e484a7dc6e0611c6d0de0a47ee706f586ebaa91d625514a78b0128a17d",
    "Character Fidelity": "f49e687d53a52fe955554d723467390610a739b92bb596499422ae183cb85529",
    "Storyline Quality": "0cc25678fdf61e5df3dc5bd14c63a4789f07674588669f48cd53575bbf515d36",
}


def prompt_texts() -> dict[str, str]:
    texts = {
        "CRITIC_TEMPLATE": prompts.CRITIC_TEMPLATE,
        "ENVIRONMENT_TEMPLATE": prompts.ENVIRONMENT_TEMPLATE,
        "NEXT_SPEAKER_TEMPLATE": prompts.NEXT_SPEAKER_TEMPLATE,
        "NEXT_SPEAKER_OUTPUT_FORMAT": prompts.NEXT_SPEAKER_OUTPUT_FORMAT,
        "JSON_REPAIR_PROMPT": prompts.JSON_REPAIR_PROMPT,
    }
    for dimension in prompts.DIMENSIONS:
        texts[dimension.name] = dimension.brief + "\x00" + dimension.criteria
    return texts


def test_coser_prompts_are_unchanged() -> None:
    digests = {k: hashlib.sha256(v.encode()).hexdigest() for k, v in prompt_texts().items()}
    assert digests == PROMPT_DIGESTS
    # the trailing spaces of the original critic template (coser-gca.md §3.2) are there
    lines = prompts.CRITIC_TEMPLATE.split("\n")
    spaced = [i + 1 for i, line in enumerate(lines) if line.endswith(" ")]
    assert spaced == [8, 9, 40, 42, 50, 52, 53]
