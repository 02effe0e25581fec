"""Script -> episodes -> scenes (Prompts 1-2), and the scene filter (paper section 3.5).

An episode is a stretch of the script with one time and place (Prompt 1's "shifts in temporal
settings, spatial locations"); by default the script's own scene headings mark them, which is
what a heading is. Prompt 2 then divides each episode into scenes by "variations in the dialogue
content". Both prompts say "Do not delete or modify" the text, so a division is accepted only
if its parts, read back, hold exactly the parent's speeches in order; otherwise the parent is
kept whole and the log says why.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

from agentsense.construction.repair import ParseError, as_object, extract_json
from agentsense.construction.screenplay import parse_text
from agentsense.construction.script_elements import Element, speakers


class Line(BaseModel):
    """One speech, as the official records store dialogue (`{role, content}`)."""

    role: str
    content: str


class ScreenplayScene(BaseModel):
    """A scene of an episode: what Prompt 3 and Prompt 4 are given."""

    episode: int  # 1-based, in script order
    scene: int  # 1-based within the episode
    heading: str
    description: str  # the scene's heading and action lines, verbatim from the script
    dialog: list[Line]

    @property
    def key(self) -> str:
        return f"e{self.episode}s{self.scene}"

    @property
    def characters(self) -> list[str]:
        """Characters with at least two speeches (official `02_extract_goal.py` L68-73)."""
        counts = Counter(line.role for line in self.dialog)
        return [name for name in dict.fromkeys(ln.role for ln in self.dialog) if counts[name] >= 2]


def by_headings(elements: tuple[Element, ...] | list[Element]) -> list[list[Element]]:
    """Episodes split at scene headings; text before the first heading is an episode too."""
    episodes: list[list[Element]] = [[]]
    for element in elements:
        if element.kind == "heading" and episodes[-1]:
            episodes.append([])
        episodes[-1].append(element)
    return [episode for episode in episodes if any(e.kind == "dialogue" for e in episode)]


def parse_division(reply: str, key: str) -> list[str]:
    """Prompt 1 (`episodeN`) or Prompt 2 (`sceneN`): the parts, in the order of their numbers."""
    data = as_object(extract_json(reply), f'"{key}1", "{key}2", ... keys')
    numbered: list[tuple[int, str]] = []
    for name, value in data.items():
        suffix = str(name).strip().lower().removeprefix(key)
        if not suffix.isdigit() or not isinstance(value, str):
            raise ParseError(f'expected keys "{key}1", "{key}2", ... holding text, found "{name}"')
        numbered.append((int(suffix), value))
    if not numbered:
        raise ParseError(f'no "{key}N" key in the reply')
    return [text for _, text in sorted(numbered)]


def _speeches(elements: list[Element]) -> list[tuple[str | None, str]]:
    return [(e.speaker, e.text) for e in elements if e.kind == "dialogue"]


def accept_division(parent: list[Element], parts: list[str]) -> list[list[Element]] | str:
    """The parts read back as elements, or why the division changed the text."""
    read = [parse_text(part)[1] for part in parts]
    read = [part for part in read if part]
    if not read:
        return "the division returned no text"
    if [s for part in read for s in _speeches(part)] != _speeches(parent):
        return "the parts do not hold the episode's speeches unchanged and in order"
    return read


def to_scene(
    episode: int, number: int, elements: list[Element], heading: str = ""
) -> ScreenplayScene:
    """A scene; one without its own heading takes its episode's (a scene is in one place)."""
    heading = next((e.text for e in elements if e.kind == "heading"), heading)
    context = [e.text for e in elements if e.kind == "action"]
    context = [heading, *context] if heading else context
    dialog = [Line(role=e.speaker or "", content=e.text) for e in elements if e.kind == "dialogue"]
    return ScreenplayScene(
        episode=episode, scene=number, heading=heading, description=" ".join(context), dialog=dialog
    )


def filter_reason(scene: ScreenplayScene, min_dialogues: int) -> str | None:
    """Why a scene is dropped (paper: < 10 dialogues; code: < 2 characters speaking twice)."""
    if len(scene.dialog) < min_dialogues:
        return f"{len(scene.dialog)} speeches, fewer than min_dialogues={min_dialogues}"
    if len(scene.characters) < 2:
        return "fewer than two characters with two or more speeches each"
    return None


def has_interaction(elements: list[Element] | tuple[Element, ...]) -> bool:
    """Whether any episode has two characters speaking at least twice each (pre-flight check)."""
    return any(len(speakers(episode)) >= 2 for episode in by_headings(elements))
