"""Extension (neither CoSER's protocol nor AgentSense's): CoSER's three reference-free critics on
AgentSense conversations, as a scorer `inspect score` can append to any AgentSense log.

CoSER's critic template is filled from the scene (docs/gca.md, "Extension"): the book becomes
"this AgentSense scenario", the plot summary the scene's background, the scenario its
description, the profiles each character's profile, and the original conversation a line saying
there is none. The score is CoSER's formula with R = every message of the conversation.
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import TaskState

from agentsense.coser import KEYS as BOOK_KEYS
from agentsense.coser import REFERENCE_FREE
from agentsense.coser import prompts as coser_prompts
from agentsense.coser.compared_texts import simulation_text
from agentsense.coser.scorer import critic_scores, explanation, profiles_text, run_critics
from agentsense.coser.simulation import GCASettings, role_model
from agentsense.engine.conversation import Conversation, stored
from agentsense.engine.roles import CRITIC_ROLE
from agentsense.sense.dataset.samples import scenario_of
from agentsense.sense.dataset.schema import Scenario

BOOK = "this AgentSense scenario"
NO_REFERENCE = "(There is no original conversation for this scenario.)"
DIMENSIONS = tuple(d for d in coser_prompts.DIMENSIONS if d.name in REFERENCE_FREE)
KEYS = {d.name: BOOK_KEYS[d.name] for d in DIMENSIONS}


def scene_critic_prompt(scene: Scenario, dimension: coser_prompts.Dimension) -> str:
    return coser_prompts.critic_prompt(
        dimension,
        book=BOOK,
        plot_summary=scene.background,
        scenario=scene.description,
        character_profiles=profiles_text({c.name: c.profile for c in scene.characters}),
        original_conversation=NO_REFERENCE,
        major_characters=scene.names,
        additional_instructions="",
    )


def scene_critics_scorer() -> Scorer:
    """Anthropomorphism, Character Fidelity and Storyline Quality (role `critic`), CoSER-scored."""

    async def score(state: TaskState, target: Target) -> Score:
        hint = "score logs of AgentSense tasks."
        conversation = stored(state, Conversation, "turns", "conversation", hint)
        scene = scenario_of(state.metadata)
        turns = list(conversation.turns)
        simulation = simulation_text(turns)
        settings = GCASettings()
        verdicts = await run_critics(
            role_model(CRITIC_ROLE),
            DIMENSIONS,
            [scene_critic_prompt(scene, d) for d in DIMENSIONS],
            simulation,
            settings,
        )
        value, rows = critic_scores(verdicts, len(turns))
        return Score(
            value=value,
            explanation=explanation(rows, {}),
            metadata={
                "dimensions": rows,
                "rounds": len(turns),
                "unreadable": [name for name, row in rows.items() if not row["readable"]],
                "extension": "CoSER reference-free critics on an AgentSense scene",
            },
        )

    return score
