"""What each participant of a Sotopia episode is shown, as sotopia 0.1.5 renders it.

The XML views of `renderers/xml_renderer.py` (agent `i` sees the nodes without a viewer or with
`viewer='agent_i'`; the environment sees all text), the bios of `envs/parallel.py:59-92`, the
background of `ScriptBackground.to_natural_language` and the observations of `Observation`
(`messages/message_classes.py`). docs/sotopia.md §1 has the line of each.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from agentsense.sotopia.prompts import format_docstring, render_action
from agentsense.sotopia.record import AgentProfile, Episode, RelationshipType

TAGS_TO_RENDER = ("extra_info", "clarification_hint", "strategy_hint")
UNKNOWN = "Unknown"


def _parse(text: str) -> ET.Element | None:
    """0.1.5's attempts: as it is, wrapped in `<root>`, then with `&` escaped."""
    for candidate in (text, f"<root>{text}</root>", f"<root>{text.replace('&', '&amp;')}</root>"):
        try:
            return ET.fromstring(candidate)
        except ET.ParseError:
            continue
    return None


def _agent_view(node: ET.Element, viewer: str) -> str:
    if node.tag not in ("root", "p", *TAGS_TO_RENDER):
        return ""
    parts = [node.text or ""]
    for child in node:
        if child.get("viewer") in (None, viewer):
            parts.append(_agent_view(child, viewer))
        parts.append(child.tail or "")  # a text node: shown to every viewer
    return "".join(parts)


def for_agent(text: str, agent: int) -> str:
    if not text:
        return ""
    root = _parse(text)
    return text if root is None else _agent_view(root, f"agent_{agent}")


def for_environment(text: str) -> str:
    if not text:
        return ""
    root = _parse(text)
    return text if root is None else "".join(root.itertext())


def _adjective(gender: str) -> str:
    return {"Man": "male", "Woman": "female", "Nonbinary": "nonbinary"}.get(gender, "")


def bio(relationship: RelationshipType, p: AgentProfile, agent: int) -> str:
    """`get_bio`: the parts the other would not know by this relationship are agent `i`'s.
    A published episode's bio (`background`) is that text already; 0.1.5 shows it whole to its
    owner and the judge, and another agent sees `Unknown`, whatever the relationship."""
    if p.background:
        return p.background
    who = f"{p.first_name} {p.last_name}"
    person = f"is a {p.age}-year-old {_adjective(p.gender)} {p.occupation.lower()}."
    pronouns = f"{p.gender_pronoun} pronouns. {p.public_info}"
    values = f"Personality and values description: {p.personality_and_values}"
    secret = f"{p.first_name}'s secrets: {p.secret}"
    tag = f"<p viewer='agent_{agent}'>"
    if relationship == RelationshipType.stranger:
        return f"<root>{tag}{who} {person} {pronouns} {values} {secret}</p></root>"
    if relationship == RelationshipType.know_by_name:
        return f"{who} {tag}{person} {pronouns} {values} {secret}</p>"
    if relationship == RelationshipType.acquaintance:
        return f"{who} {person} {pronouns} {tag}{values} {secret}</p>"
    return f"{who} {person} {pronouns} {values} {tag}{secret}</p>"


def background(
    scenario: str, names: Sequence[str], backgrounds: Sequence[str], goals: Sequence[str]
) -> str:
    """`ScriptBackground.to_natural_language` for two or more participants."""
    if len(names) == 2:
        participants = f"{names[0]} and {names[1]}"
    else:
        participants = ", ".join(names[:-1]) + f", and {names[-1]}"
    goals_text = "".join(f"{n}'s goal: {g}\n" for n, g in zip(names, goals, strict=True))
    lines = ["Here is the context of this interaction:", f"Scenario: {scenario}"]
    lines.append(f"Participants: {participants}")
    if any(backgrounds):
        pairs = zip(names, backgrounds, strict=True)
        lines.append("".join(f"{n}'s background: {b or UNKNOWN}\n" for n, b in pairs).strip())
    lines.append(goals_text.strip())
    # The f-string's indented lines, as format_docstring sees them (indentation collapsed).
    return format_docstring("\n    ".join(lines) + "\n    ")


def _raw(episode: Episode) -> tuple[list[str], list[str]]:
    env = episode.environment
    bios = [bio(env.relationship, a, i) for i, a in enumerate(episode.agents)]
    goals = [f"<root viewer='agent_{i}'>{g}</root>" for i, g in enumerate(env.agent_goals)]
    return bios, goals


def names_of(episode: Episode) -> list[str]:
    return [agent.name for agent in episode.agents]


def environment_background(episode: Episode) -> str:
    """The background the environment (and so the judge) sees: every bio and goal whole."""
    bios, goals = _raw(episode)
    return background(
        for_environment(episode.environment.scenario),
        names_of(episode),
        [for_environment(b) for b in bios],
        [for_environment(g) for g in goals],
    )


def agent_background(episode: Episode, agent: int, omniscient: bool = False) -> str:
    """What agent `i` is told first: its own bio and goal; the others' are `Unknown`."""
    if omniscient:
        return environment_background(episode)
    bios, goals = _raw(episode)
    return background(
        for_agent(episode.environment.scenario, agent),
        names_of(episode),
        [for_agent(b, agent) if j == agent else UNKNOWN for j, b in enumerate(bios)],
        [for_agent(g if j == agent else UNKNOWN, agent) for j, g in enumerate(goals)],
    )


def first_observation(text: str) -> str:
    """`Observation(turn_number=0).to_natural_language()`."""
    return f"\n{text}\nConversation Starts:\n"


def observation(turn_number: int, last_turn: str) -> str:
    """`Observation(turn_number=n).to_natural_language()`: numbered from 0 for the agents."""
    return f"Turn #{turn_number - 1}: {last_turn}\n"


def actions_text(actions: Sequence[tuple[str, str, str]]) -> str:
    """`_actions_to_natural_language`: the turn's actions but `none`, joined with `;`."""
    done = [(name, kind, arg) for name, kind, arg in actions if kind != "none"]
    return ";".join(f"{name} {render_action(kind, arg)}" for name, kind, arg in done)
