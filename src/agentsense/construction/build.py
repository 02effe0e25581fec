"""The construction pipeline for one script, stage by stage, each stage in its own span.

A1-A2 division -> A3 filter -> A5 background (in script order, since each scene's background
builds on the earlier ones) -> per scene, concurrently: B1-B3 goals, labels (scenario type,
goal categories, Prompt-19 roles), C1-C5 private info, D1-D3 leakage mitigation, E1-E4 agents
-> E5/G instantiation into records. docs/construction.md gives the reasons for each choice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from inspect_ai.util import span
from pydantic import BaseModel, Field

from agentsense.construction import characters as ch
from agentsense.construction import goals as gl
from agentsense.construction import private_info as pi
from agentsense.construction import templates as tp
from agentsense.construction.account import LineAccount
from agentsense.construction.labelling import parse_categories, parse_roles, parse_type
from agentsense.construction.prompts import (
    PROMPT_1_EPISODES_DIVISION,
    PROMPT_2_SCENES_DIVISION,
    fill_named,
)
from agentsense.construction.repair import Asker, Ledger, ParseError, Stage
from agentsense.construction.screenplay_scenes import (
    ScreenplayScene,
    accept_division,
    by_headings,
    filter_reason,
    parse_division,
    to_scene,
)
from agentsense.construction.script_elements import Element, render
from agentsense.sense.prompts import (
    goal_category_prompt,
    scenario_type_prompt,
    sender_receiver_prompt,
)

BACKGROUND = Stage("A5 background (Prompt 3)", tp.parse_background, tp.BACKGROUND_EXAMPLE)
REWRITE = Stage("B2 scenario rewriting (Prompt 5)", tp.parse_rewrite, tp.REWRITE_EXAMPLE)
ENTITIES = Stage("D1 entities (Prompt 11)", tp.parse_entities, tp.ENTITIES_EXAMPLE)
RELOCATE = Stage("D2 locations (Prompt 12)", tp.parse_relocation, tp.REPLACE_EXAMPLE)
FILTERED = "A3 scene filter"


Division = Literal["headings", "model"]


class BuildSettings(BaseModel):
    """The counts the paper fixes (5 scenarios per template, 10 dialogues, 4 options) and more."""

    scenarios_per_template: Annotated[int, Field(ge=1)] = 5
    min_dialogues: Annotated[int, Field(ge=0)] = 10
    options: Annotated[int, Field(ge=2, le=4)] = 4
    seed: int = 19260817
    division: Division = "headings"
    goal_passes: Annotated[int, Field(ge=1, le=2)] = 1
    max_repairs: Annotated[int, Field(ge=0)] = 2


class BuildResult(BaseModel):
    """What one script produced; stored in the sample's store and read by the export."""

    script: str
    settings: BuildSettings = Field(default_factory=BuildSettings)
    lines: LineAccount = Field(default_factory=LineAccount)  # where each script line went
    headings: int = 0  # scene headings read
    speeches: int = 0  # speeches read
    episodes: int = 0
    scenes: int = 0
    kept: list[str] = Field(default_factory=list)
    templates: list[ch.Template] = Field(default_factory=list)
    records: list[dict[str, Any]] = Field(default_factory=list)
    ledger: Ledger = Field(default_factory=Ledger)

    def counts(self) -> dict[str, int]:
        return {
            "episodes": self.episodes,
            "scenes": self.scenes,
            "scenes_kept": len(self.kept),
            "scenes_filtered": sum(d.stage == FILTERED for d in self.ledger.drops),
            "templates": len(self.templates),
            "scenarios": len(self.records),
            "mcqs": sum(
                len(c["info_reason_questions"]) for r in self.records for c in r["characters"]
            ),
            "calls": sum(self.ledger.calls.values()),
            "repairs": sum(self.ledger.repairs.values()),
            "dropped": sum(d.stage != FILTERED for d in self.ledger.drops),
        }


def _checked(name: str, parse: Callable[[str], Any], example: str) -> Stage[Any]:
    """A labelling parser (None when unreadable) as a stage parser (ParseError when unreadable)."""

    def strict(reply: str) -> Any:
        value = parse(reply)
        if value is None or (isinstance(value, dict) and not all(value.values())):
            raise ParseError("the reply does not name one of the allowed labels for every item")
        return value

    return Stage(name, strict, example)


class Pipeline:
    def __init__(
        self, asker: Asker, settings: BuildSettings, script: str, slug: str, title: str = ""
    ) -> None:
        self.asker = asker
        self.settings = settings
        self.result = BuildResult(script=script, settings=settings, ledger=asker.ledger)
        self.slug = slug
        # The script's title: the truth of agentsense/script_prediction.
        self.title = title or Path(script).stem

    @property
    def ledger(self) -> Ledger:
        return self.asker.ledger

    # --- A: scenes ---------------------------------------------------------------------------

    async def _divide(
        self, parent: list[Element], prompt: str, key: str, item: str
    ) -> list[list[Element]]:
        number = 1 if key == "episode" else 2
        name = f"A{number} {key} division (Prompt {number})"
        example = f'[{{"{key}1": "xxx", "{key}2": "xxx", ...}}]'
        stage = Stage(name, _divider(key), example)
        parts = await self.asker.ask(stage, prompt, item)
        if parts is None:
            return [parent]
        accepted = accept_division(parent, parts)
        if isinstance(accepted, str):
            self.ledger.drop(stage.name, item, f"{accepted}: kept the {key} whole")
            return [parent]
        return accepted

    async def scenes(self, elements: tuple[Element, ...]) -> list[ScreenplayScene]:
        async with span("A1-A2 division", type="stage"):
            episodes = by_headings(elements)
            if self.settings.division == "model":
                prompt = fill_named(PROMPT_1_EPISODES_DIVISION, script=render(elements))
                episodes = await self._divide(list(elements), prompt, "episode", "script")
            scenes: list[ScreenplayScene] = []
            for e, episode in enumerate(episodes, start=1):
                prompt = fill_named(PROMPT_2_SCENES_DIVISION, episode=render(episode))
                parts = await self._divide(episode, prompt, "scene", f"e{e}")
                heading = next((x.text for x in episode if x.kind == "heading"), "")
                scenes += [to_scene(e, s, part, heading) for s, part in enumerate(parts, start=1)]
        self.result.episodes, self.result.scenes = len(episodes), len(scenes)
        kept = []
        for scene in scenes:
            reason = filter_reason(scene, self.settings.min_dialogues)
            if reason:
                self.ledger.drop(FILTERED, scene.key, reason)
            else:
                kept.append(scene)
        self.result.kept = [scene.key for scene in kept]
        return kept

    async def backgrounds(self, scenes: list[ScreenplayScene]) -> dict[str, str]:
        """Prompt 3 in script order; each scene sees the earlier outputs as its running context."""
        out: dict[str, str] = {}
        last_of_episode: dict[int, str] = {}
        async with span("A5 background", type="stage"):
            for scene in scenes:
                earlier = [last_of_episode[e] for e in sorted(last_of_episode) if e < scene.episode]
                this_episode = [
                    out[s.key] for s in scenes if s.episode == scene.episode and s.key in out
                ]
                prompt = tp.background_prompt(scene, earlier, this_episode)
                background = await self.asker.ask(BACKGROUND, prompt, scene.key)
                if background is not None:
                    out[scene.key] = last_of_episode[scene.episode] = background
        return out

    # --- B: goals ----------------------------------------------------------------------------

    def _goals(self, texts: list[str], item: str) -> list[str]:
        kept = []
        for text in texts:
            goal = gl.normal_goal(text)
            if goal is None:
                self.ledger.drop(
                    "B goal form", item, f"not an infinitive goal ('To ...'): {text!r}"
                )
            else:
                kept.append(goal)
        return gl.distinct(kept)

    async def goals(self, scene: ScreenplayScene, background: str) -> tp.Draft | None:
        extracted = []
        async with span("B1 goal extraction", type="stage"):
            for name in scene.characters:
                dialog = [line.model_dump() for line in scene.dialog]
                prompt = gl.extraction_prompt(name, background, scene.description, dialog)
                texts = await self.asker.ask(gl.EXTRACT, prompt, f"{scene.key} {name}")
                extracted.append(
                    tp.CharacterGoals(name=name, goals=self._goals(texts or [], scene.key))
                )
        async with span("B2 scenario rewriting", type="stage"):
            draft = await self.asker.ask(
                REWRITE, tp.rewrite_prompt(background, scene, extracted), scene.key
            )
        if draft is None:
            return None
        draft, missing = tp.match_characters(draft, scene.characters)
        if missing:
            self.ledger.drop(REWRITE.name, scene.key, f"the rewrite lost {', '.join(missing)}")
            return None
        async with span("B3 goal filtering", type="stage"):
            for _ in range(self.settings.goal_passes):
                for character in draft.characters:
                    character.goals = await self._filter(draft, character, scene.key)
                    if not character.goals:
                        self.ledger.drop(
                            gl.FILTER.name, scene.key, f"{character.name} has no goal left"
                        )
                        return None
        return draft

    async def _filter(self, draft: tp.Draft, character: tp.CharacterGoals, key: str) -> list[str]:
        updated = []
        for goal in self._goals(character.goals, key):
            prompt = gl.filter_prompt(draft, character.name, character.goals, goal)
            update = await self.asker.ask(gl.FILTER, prompt, f"{key} {character.name}: {goal}")
            if update:
                updated.append(update)
        return self._goals(updated, key)

    # --- labels (scenario type, goal categories, roles) ---------------------------------------

    async def labels(self, draft: tp.Draft, key: str) -> Labels:
        """The labelling prompts and the labelling task's readers."""
        goals = {c.name: c.goals for c in draft.characters}
        numbered = [(name, goal) for name, texts in goals.items() for goal in texts]
        async with span("labels", type="stage"):
            kind = await self.asker.ask(
                _checked("labels: scenario type", parse_type, '{"type": "..."}'),
                scenario_type_prompt(draft.background, draft.description),
                f"{key} type",
            )
            cats = await self.asker.ask(
                _checked(
                    "labels: goal categories",
                    lambda r: _all_categories(r, numbered),
                    '{"1": "..."}',
                ),
                goal_category_prompt(draft.background, numbered),
                f"{key} categories",
            )
            roles = await self.asker.ask(
                _checked(
                    "labels: roles (Prompt 19)",
                    lambda r: parse_roles(r, list(goals)),
                    '{"user1":"sender"}',
                ),
                sender_receiver_prompt(goals),
                f"{key} roles",
            )
        by_char = {
            c.name: [(cats or {}).get(c.name, {}).get(g) for g in c.goals] for c in draft.characters
        }
        return Labels(kind, by_char, dict(roles or {}))

    # --- C: private information --------------------------------------------------------------

    async def private_info(self, draft: tp.Draft, key: str) -> list[pi.QA]:
        async with span("C private information", type="stage"):
            involved = await self.asker.ask(pi.VALIDATE, pi.validation_prompt(draft), key)
            if not involved:
                return []
            pairs = await self.asker.ask(pi.GENERATE, pi.qa_prompt(draft), key) or []
            names = {c.name.lower(): c.name for c in draft.characters}
            kept = []
            for qa in pairs:
                item = f"{key} {qa.question}"
                if qa.role.lower() not in names:
                    self.ledger.drop(pi.GENERATE.name, item, f"role {qa.role!r} is not a character")
                    continue
                qa.role = names[qa.role.lower()]
                negatives = await self.asker.ask(
                    pi.OPTIONS, pi.options_prompt(draft.description, qa), item
                )
                problem = "no options" if negatives is None else pi.usable_negatives(qa, negatives)
                if negatives is None or problem:
                    if negatives is not None:
                        self.ledger.drop(pi.OPTIONS.name, item, str(problem))
                    continue
                qa.negatives = negatives
                asker = next(c.name for c in draft.characters if c.name != qa.role)
                harder = await self.asker.ask(
                    pi.REPHRASE, pi.rephrase_prompt(draft, qa, asker), item
                )
                if harder is not None and not pi.usable_negatives(qa, harder):
                    qa.negatives = harder
                kept.append(qa)
        return kept

    # --- D, E: template and agents -----------------------------------------------------------

    async def leakage(self, draft: tp.Draft, key: str) -> tuple[tp.Relocation, list[str]] | None:
        """D1-D2: the entities the setting names, and the setting moved to new locations."""
        async with span("D leakage mitigation", type="stage"):
            entities = await self.asker.ask(ENTITIES, tp.entities_prompt(draft), key)
            if entities is None:
                return None
            mentioned, locations = entities
            if not locations:
                return tp.Relocation(
                    background=draft.background, description=draft.description
                ), mentioned
            moved = await self.asker.ask(RELOCATE, tp.relocation_prompt(draft, locations), key)
            return None if moved is None else (moved, mentioned)

    async def agents(self, info: str, names: list[str], key: str) -> Agents | None:
        """E1-E4: the originals' attributes and relationship, what may change, new agents."""
        n = self.settings.scenarios_per_template
        async with span("E agent synthesis", type="stage"):
            attributes = Stage(ch.ATTRIBUTES, ch.parse_attributes(names), ch.ATTRIBUTES_EXAMPLE)
            profiles = await self.asker.ask(attributes, ch.attributes_prompt(info, names), key)
            relationship = await self.asker.ask(
                ch.RELATIONSHIP, ch.relationship_prompt(info, names), key
            )
            if profiles is None or relationship is None:
                return None
            labels = Stage(
                ch.REPLACEABILITY, ch.parse_replaceability(names), ch.REPLACEABILITY_EXAMPLE
            )
            prompt = ch.replaceability_prompt(info, relationship, profiles)
            replaceable = await self.asker.ask(labels, prompt, key)
            if replaceable is None:
                return None
            synthesized: dict[str, list[dict[str, str]]] = {}
            for name in names:
                prompt = ch.agents_prompt(n, profiles[name], replaceable[name])
                agents = await self.asker.ask(
                    Stage(ch.AGENTS, ch.parse_agents(n), ch.AGENTS_EXAMPLE), prompt, f"{key} {name}"
                )
                if agents is None:
                    return None
                synthesized[name] = agents
        return Agents(profiles, relationship, replaceable, synthesized)

    async def template(self, scene: ScreenplayScene, background: str) -> ch.Template | None:
        async with span(f"scene {scene.key}", type="scene"):
            draft = await self.goals(scene, background)
            if draft is None:
                return None
            labels = await self.labels(draft, scene.key)
            pairs = await self.private_info(draft, scene.key)
            moved = await self.leakage(draft, scene.key)
            if moved is None:
                return None
            relocation, mentioned = moved
            names = [c.name for c in draft.characters]
            secrets = {
                name: " ".join(qa.explanation for qa in pairs if qa.role == name)
                for name in names
                if any(qa.role == name for qa in pairs)
            }
            info = ch.description_info(relocation.background, relocation.description, secrets)
            agents = await self.agents(info, names, scene.key)
            if agents is None:
                return None
            anon = Anonymizer(relocation, tp.slot_mapping(names, mentioned))
            slots = [
                _slot(i, name, draft, labels, pairs, secrets, agents, anon)
                for i, name in enumerate(names)
            ]
            return ch.Template(
                template_id=f"{self.slug}-{scene.key}",
                source={
                    "script": self.result.script,
                    "title": self.title,
                    "episode": scene.episode,
                    "scene": scene.scene,
                    "heading": scene.heading,
                    "original_characters": names,
                },
                background=anon(relocation.background),
                description=anon(relocation.description),
                scenario_type=labels.kind,
                relationship=agents.relationship,
                slots=slots,
            )

    async def run(self, elements: tuple[Element, ...]) -> BuildResult:
        self.result.headings = sum(e.kind == "heading" for e in elements)
        self.result.speeches = sum(e.kind == "dialogue" for e in elements)
        scenes = await self.scenes(elements)
        backgrounds = await self.backgrounds(scenes)
        ready = [scene for scene in scenes if scene.key in backgrounds]
        built = await asyncio.gather(*(self.template(s, backgrounds[s.key]) for s in ready))
        self.result.templates = [t for t in built if t is not None]
        async with span("E5 instantiation", type="stage"):
            self.result.records = instantiate_all(self.result.templates, self.settings)
        self.ledger.drops.sort(key=lambda d: (d.item, d.stage))
        return self.result


def instantiate_all(templates: list[ch.Template], settings: BuildSettings) -> list[dict[str, Any]]:
    """E5: every template filled with each of its agent sets, in template order."""
    return [
        ch.instantiate(t, k, settings.seed, settings.options)
        for t in templates
        for k in range(settings.scenarios_per_template)
    ]


@dataclass(frozen=True)
class Labels:
    kind: str | None
    categories: dict[str, list[str | None]]
    roles: dict[str, str]


@dataclass(frozen=True)
class Agents:
    profiles: dict[str, dict[str, str]]
    relationship: Any
    replaceable: dict[str, dict[str, str]]
    synthesized: dict[str, list[dict[str, str]]]


class Anonymizer:
    """Leakage mitigation on any text: new locations (Prompt 12's list), characters -> slots."""

    def __init__(self, relocation: tp.Relocation, slots: dict[str, str]) -> None:
        self.places = {r.original_name: r.revised_name for r in relocation.replacements}
        self.slots = slots

    def __call__(self, text: str) -> str:
        return tp.replace_words(tp.replace_words(text, self.places), self.slots)

    def qa(self, qa: pi.QA, token: str) -> pi.QA:
        return pi.QA(
            role=token,
            question=self(qa.question),
            explanation=self(qa.explanation),
            answer=self(qa.answer),
            negatives=[self(n) for n in qa.negatives],
        )


def _slot(
    i: int,
    name: str,
    draft: tp.Draft,
    labels: Labels,
    pairs: list[pi.QA],
    secrets: dict[str, str],
    agents: Agents,
    anon: Anonymizer,
) -> ch.Slot:
    token = tp.slot(i)
    traits = agents.profiles[name]
    return ch.Slot(
        token=token,
        original=name,
        goals=[anon(g) for g in draft.goals_of(name)],
        categories=labels.categories.get(name, []),
        private_info=anon(secrets[name]) if name in secrets else None,
        questions=[anon.qa(qa, token) for qa in pairs if qa.role == name],
        role=labels.roles.get(name),
        attributes={k: anon(v) for k, v in traits.items() if k in ch.TRAITS},
        replaceable=agents.replaceable[name],
        agents=agents.synthesized[name],
    )


def _divider(key: str) -> Callable[[str], list[str]]:
    return lambda reply: parse_division(reply, key)


def _all_categories(reply: str, numbered: list[tuple[str, str]]) -> Any:
    labelled = parse_categories(reply, numbered)
    return labelled if all(all(goals.values()) for goals in labelled.values()) else None
