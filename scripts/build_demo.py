"""Build the bundled demo dataset `src/agentsense/dataset/data/demo.jsonl`.

The demo set is ORIGINAL content written for the project's smoke runs and tests; it is not the
AgentSense benchmark. It follows the official record schema (`final_data.jsonl` plus `roles`)
and adds two fields the official code ignores: `scenario_type` on each record and `category` on
each goal.

The hand-written content is compact: 8 templates (one social situation each, with the structure
of the goals, secrets and multiple-choice questions), each recast with 3 character sets. All
question wording (goal interviews, judge questions) and the position of the right MCQ option are
generated systematically, so the output is deterministic.

Usage:
    python scripts/build_demo.py          # (re)write demo.jsonl
    python scripts/build_demo.py --check  # exit 1 if demo.jsonl differs from what would be written
"""

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUTPUT = (
    Path(__file__).resolve().parent.parent
    / "src"
    / "agentsense"
    / "dataset"
    / "data"
    / "demo.jsonl"
)

# Scenario types (paper, App. B.2).
PERSONAL = "personal domain"
SMALL = "small society"
LARGE = "large society"
SCENARIO_TYPES = (PERSONAL, SMALL, LARGE)

# Goal categories (paper, App. B.3).
IA = "Information Acquisition"
IP = "Information Provision"
RB = "Relationship Building"
RM = "Relationship Maintenance"
IR = "Identity Recognition"
CO = "Cooperation"
CP = "Competition"
CR = "Conflict Resolution"
CATEGORIES = (IA, IP, RB, RM, IR, CO, CP, CR)

SENDER = "sender"
RECEIVER = "receiver"

# Evaluation question wording, as in the official data.
SELF_QUESTION = "Has {name} achieved the goal '{goal}' during the conversation? Answer Yes or No."
OTHERS_QUESTION = "In your opinion, has {name} achieved the goal '{goal}'? Answer Yes or No."
JUDGE_QUESTION = (
    "Based on the conversation, has {name} achieved the goal '{goal}'? Answer Yes or No."
)

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")


@dataclass(frozen=True)
class Slot:
    """One character position of a template: its goals, its secret and its default role.

    Texts are format strings: `{A}`..`{E}` are the scene's character names, other fields come
    from the character set's `values`.
    """

    key: str
    role: str
    goals: tuple[tuple[str, str], ...]  # (category, goal text)
    secret: str | None = None


@dataclass(frozen=True)
class Mcq:
    """A question asked to `asker` about the secret of `about`; `correct` rephrases that secret."""

    asker: str
    about: str
    question: str
    correct: str
    wrong: tuple[str, str, str]


@dataclass(frozen=True)
class CharacterSet:
    """One scene of a template: who plays each slot, plus the scene's own details."""

    number: int
    people: tuple[tuple[str, str], ...]  # (name, profile), in slot order
    values: Mapping[str, str] = field(default_factory=dict)
    roles: Mapping[str, str] = field(default_factory=dict)  # slot key -> role, overrides


@dataclass(frozen=True)
class Template:
    idx: int
    scenario_type: str
    background: str
    description: str
    slots: tuple[Slot, ...]
    mcqs: tuple[Mcq, ...]
    scenes: tuple[CharacterSet, ...]


# --------------------------------------------------------------------------------------------
# Hand-written content
# --------------------------------------------------------------------------------------------

TEMPLATES: tuple[Template, ...] = (
    Template(
        idx=1,
        scenario_type=PERSONAL,
        background="{A} has come home for dinner with {B}, {relation}, after months of living away "
        "in {city}.",
        description="{B} hopes the whole family will spend the summer holiday together, but {A} "
        "keeps changing the subject whenever work comes up.",
        slots=(
            Slot(
                "A",
                SENDER,
                (
                    (
                        IP,
                        "To explain to {B} why joining the family holiday this summer is not "
                        "possible.",
                    ),
                    (RM, "To end the evening on warm terms with {B}."),
                ),
                secret="{A} lost {job} a month ago and has not told anyone in the family.",
            ),
            Slot(
                "B",
                RECEIVER,
                (
                    (IA, "To find out how {A} is really getting on in {city}."),
                    (CO, "To agree with {A} on a date for the next family visit."),
                ),
                secret="{B} has already paid a deposit on a holiday cottage for the whole family.",
            ),
        ),
        mcqs=(
            Mcq(
                "A",
                "B",
                "What has {B} already done about the summer holiday without telling {A}?",
                "Paid a deposit on a holiday cottage for the whole family.",
                (
                    "Cancelled the holiday to save money.",
                    "Invited old school friends of {A} to come along.",
                    "Put the family home up for sale.",
                ),
            ),
            Mcq(
                "B",
                "A",
                "What is {A} keeping from {B}?",
                "{A} is out of work after losing {job}.",
                (
                    "{A} has secretly got engaged.",
                    "{A} is about to move abroad for a new post.",
                    "{A} has gone back to university part-time.",
                ),
            ),
        ),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "DanielAdeyemi",
                        "Daniel is a 29-year-old accountant, proud and guarded, who "
                        "hates to worry the people he loves.",
                    ),
                    (
                        "GraceAdeyemi",
                        "Grace is a 58-year-old pharmacist, warm but persistent, who "
                        "believes family should always come first.",
                    ),
                ),
                {
                    "relation": "his mother",
                    "city": "Manchester",
                    "job": "his job at an accounting firm",
                },
            ),
            CharacterSet(
                2,
                (
                    (
                        "SofiaMarquez",
                        "Sofia is a 26-year-old graphic designer, cheerful in company "
                        "but anxious in private, who values her independence.",
                    ),
                    (
                        "RobertoMarquez",
                        "Roberto is a 64-year-old retired bus driver, blunt and "
                        "sentimental, who measures love by time spent together.",
                    ),
                ),
                {"relation": "her father", "city": "Madrid", "job": "her post at a design agency"},
            ),
            CharacterSet(
                3,
                (
                    (
                        "JonasWeber",
                        "Jonas is a 34-year-old software developer, quiet and "
                        "self-critical, who prefers to solve his problems alone.",
                    ),
                    (
                        "IngridWeber",
                        "Ingrid is a 71-year-old retired librarian, sharp and curious, "
                        "who values honesty over comfort.",
                    ),
                ),
                {
                    "relation": "his grandmother",
                    "city": "Hamburg",
                    "job": "his contract at a games studio",
                },
            ),
        ),
    ),
    Template(
        idx=2,
        scenario_type=PERSONAL,
        background="{A} and {B} were close friends at university but have not spoken for {years} "
        "years; {A} has invited {B} for coffee at {place}.",
        description="Their friendship ended after a falling-out over {old_issue}, and {A} has big "
        "news to share.",
        slots=(
            Slot(
                "A",
                SENDER,
                (
                    (RM, "To revive the friendship with {B} after years of silence."),
                    (IP, "To tell {B} about {news}."),
                ),
            ),
            Slot(
                "B",
                RECEIVER,
                (
                    (
                        CR,
                        "To settle the old quarrel with {A} after giving the full story of what "
                        "went wrong.",
                    ),
                    (IA, "To find out why {A} got in touch after so long."),
                ),
            ),
        ),
        mcqs=(),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "PriyaRaman",
                        "Priya is a 38-year-old veterinary surgeon, open-hearted and "
                        "impulsive, who believes old friendships deserve a second chance.",
                    ),
                    (
                        "HelenBrooks",
                        "Helen is a 39-year-old head teacher, composed and proud, who "
                        "does not forgive easily.",
                    ),
                ),
                {
                    "years": "ten",
                    "place": "a café near their old campus",
                    "old_issue": "a flat deposit that was never paid back",
                    "news": "her plan to open an animal shelter",
                },
            ),
            CharacterSet(
                2,
                (
                    (
                        "MarcusBell",
                        "Marcus is a 45-year-old chef, loud, generous and sentimental, "
                        "who values loyalty above success.",
                    ),
                    (
                        "OwenFitzgerald",
                        "Owen is a 44-year-old civil servant, dry-humoured and "
                        "cautious, who keeps his feelings to himself.",
                    ),
                ),
                {
                    "years": "fifteen",
                    "place": "a bakery in the old town",
                    "old_issue": "a restaurant idea that {A} launched without {B}",
                    "news": "his first cookbook, which comes out next month",
                },
            ),
            CharacterSet(
                3,
                (
                    (
                        "AikoTanaka",
                        "Aiko is a 31-year-old translator, thoughtful and a little shy, "
                        "who values honesty between friends.",
                    ),
                    (
                        "ChloeDubois",
                        "Chloe is a 32-year-old event planner, energetic and "
                        "outspoken, who cannot stand unfinished business.",
                    ),
                ),
                {
                    "years": "eight",
                    "place": "a tea house by the river",
                    "old_issue": "{A} skipping the wedding of {B} without a word",
                    "news": "her move back to Osaka",
                },
                # Both characters push their own story: a scene with senders only.
                roles={"B": SENDER},
            ),
        ),
    ),
    Template(
        idx=3,
        scenario_type=SMALL,
        background="The three members of a product team at {company} meet in a conference room "
        "the day after their team lead resigned.",
        description="Someone has to take over the {project} project, and the last release shipped "
        "two weeks late.",
        slots=(
            Slot(
                "A",
                RECEIVER,
                (
                    (
                        CO,
                        "To get {B} and {C} to agree on a plan for finishing the {project} "
                        "project on time.",
                    ),
                    (IA, "To find out whether anyone on the team is thinking of leaving."),
                ),
                secret="{A} already knows that the team's budget will be cut next quarter.",
            ),
            Slot(
                "B",
                SENDER,
                (
                    (CP, "To be chosen to lead the {project} project ahead of {C}."),
                    (IR, "To have {A} recognise {B} as the person who rescued the last release."),
                ),
                secret="{B} has a job interview with a competitor next week.",
            ),
            Slot(
                "C",
                SENDER,
                (
                    (CP, "To be chosen to lead the {project} project ahead of {B}."),
                    (
                        CR,
                        "To settle the quarrel with {B} over who caused the delay of the last "
                        "release.",
                    ),
                ),
                secret="{C} made the configuration error that delayed the last release.",
            ),
        ),
        mcqs=(
            Mcq(
                "A",
                "B",
                "What is {B} hiding from the team?",
                "{B} is interviewing with a competitor next week.",
                (
                    "{B} is about to ask for a large pay rise.",
                    "{B} has been offered a promotion in another department.",
                    "{B} is planning to take a long sabbatical.",
                ),
            ),
            Mcq(
                "B",
                "C",
                "What does {C} not want the others to find out?",
                "{C} caused the delay of the last release with a configuration mistake.",
                (
                    "{C} is related to the company's director.",
                    "{C} has already been promised the lead role.",
                    "{C} is moving to part-time work.",
                ),
            ),
            Mcq(
                "C",
                "A",
                "What does {A} already know about the future of the team?",
                "Its budget will be reduced next quarter.",
                (
                    "It will be merged with another department.",
                    "A new team lead has already been hired from outside.",
                    "The {project} project will be cancelled.",
                ),
            ),
        ),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "NadiaHussain",
                        "Nadia is a 42-year-old engineering manager, calm and "
                        "diplomatic, who wants a team whose members trust each other.",
                    ),
                    (
                        "KevinOsei",
                        "Kevin is a 35-year-old backend developer, ambitious and "
                        "confident, who wants his effort to be seen.",
                    ),
                    (
                        "LauraMoretti",
                        "Laura is a 31-year-old product designer, precise and "
                        "competitive, who hates being blamed unfairly.",
                    ),
                ),
                {"company": "a mid-sized logistics software firm", "project": "route planner"},
            ),
            CharacterSet(
                2,
                (
                    (
                        "GeorgeLambert",
                        "George is a 55-year-old operations manager, patient and "
                        "old-fashioned, who believes in loyalty to the company.",
                    ),
                    (
                        "AmaraNwosu",
                        "Amara is a 29-year-old data analyst, sharp and restless, who "
                        "puts her career growth first.",
                    ),
                    (
                        "FelixHartmann",
                        "Felix is a 37-year-old quality engineer, meticulous and "
                        "stubborn, who likes to do things by the book.",
                    ),
                ),
                {"company": "a regional energy supplier", "project": "smart meter"},
            ),
            CharacterSet(
                3,
                (
                    (
                        "YukiMori",
                        "Yuki is a 47-year-old project director, reserved and "
                        "strategic, who values results over personalities.",
                    ),
                    (
                        "SamirHaddad",
                        "Samir is a 33-year-old mobile developer, charming and "
                        "restless, who wants to be seen as a leader.",
                    ),
                    (
                        "EmmaLindqvist",
                        "Emma is a 40-year-old senior tester, dry-witted and "
                        "honest, who dislikes office politics.",
                    ),
                ),
                {"company": "an online bookshop", "project": "checkout redesign"},
            ),
        ),
    ),
    Template(
        idx=4,
        scenario_type=SMALL,
        background="{A} meets {B}, a teacher at {school}, in an empty classroom after the last "
        "lesson of the day.",
        description="{A} asked for the meeting because {child} has been falling behind in "
        "{subject} this term.",
        slots=(
            Slot(
                "A",
                RECEIVER,
                (
                    (IA, "To learn why {pupil} is falling behind in {subject}."),
                    (CO, "To agree with {B} on a plan to help {pupil} catch up before the exams."),
                ),
            ),
            Slot(
                "B",
                SENDER,
                (
                    (IP, "To explain to {A} which skills {pupil} needs to practise in {subject}."),
                    (
                        RB,
                        "To build a good working relationship with {A} for the rest of the "
                        "school year.",
                    ),
                ),
            ),
        ),
        mcqs=(),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "MeeraPatel",
                        "Meera is a 41-year-old hospital nurse, worried and "
                        "protective, who works long shifts and values education highly.",
                    ),
                    (
                        "ThomasGreen",
                        "Thomas is a 36-year-old maths teacher, patient and "
                        "methodical, who believes every pupil can improve.",
                    ),
                ),
                {
                    "school": "Hillside Secondary School",
                    "child": "her son Ravi",
                    "pupil": "Ravi",
                    "subject": "maths",
                },
            ),
            CharacterSet(
                2,
                (
                    (
                        "CarlosMendes",
                        "Carlos is a 47-year-old taxi driver, proud and a little "
                        "defensive, who never finished school himself.",
                    ),
                    (
                        "AnnaKowalski",
                        "Anna is a 29-year-old chemistry teacher, enthusiastic and "
                        "direct, who cares about fairness in the classroom.",
                    ),
                ),
                {
                    "school": "Riverside Academy",
                    "child": "his daughter Lucia",
                    "pupil": "Lucia",
                    "subject": "chemistry",
                },
            ),
            CharacterSet(
                3,
                (
                    (
                        "FionaMacleod",
                        "Fiona is a 52-year-old solicitor, articulate and demanding, "
                        "who expects clear answers and listens closely to them.",
                    ),
                    (
                        "BenjaminAsante",
                        "Benjamin is a 44-year-old history teacher, gentle and "
                        "thoughtful, who prefers listening to lecturing.",
                    ),
                ),
                {
                    "school": "St Mary's Grammar School",
                    "child": "her son Callum",
                    "pupil": "Callum",
                    "subject": "history",
                },
                # The teacher mostly listens here: a scene with receivers only.
                roles={"B": RECEIVER},
            ),
        ),
    ),
    Template(
        idx=5,
        scenario_type=SMALL,
        background="The four members of the {street} residents' association meet in the "
        "community centre, with {A} in the chair, to decide how to spend a small grant from "
        "the council.",
        description="{B} wants the money for {b_project}, {C} wants it for {c_project}, and the "
        "vote has to happen tonight.",
        slots=(
            Slot(
                "A",
                RECEIVER,
                (
                    (
                        CR,
                        "To settle the argument between {B} and {C} about how to spend the grant.",
                    ),
                    (CO, "To get all four members to sign one shared plan for the grant."),
                ),
                secret="{A} has privately promised the council that part of the grant will pay "
                "for new street lights.",
            ),
            Slot(
                "B",
                SENDER,
                (
                    (CP, "To win most of the grant for {b_project}."),
                    (IP, "To present the survey of residents that supports {b_project}."),
                ),
                secret="The survey that {B} ran only reached eleven households.",
            ),
            Slot(
                "C",
                SENDER,
                (
                    (CP, "To win most of the grant for {c_project}."),
                    (
                        IR,
                        "To be accepted by {A}, {B} and {D} as a full member of the association "
                        "despite being new to {street}.",
                    ),
                ),
                secret="{C} owns the company that would supply the materials for {c_project}.",
            ),
            Slot(
                "D",
                RECEIVER,
                (
                    (RB, "To get to know {C}, the newest member of the association."),
                    (
                        IA,
                        "To find out whether {A} has already promised part of the money to "
                        "someone.",
                    ),
                ),
            ),
        ),
        mcqs=(
            Mcq(
                "A",
                "C",
                "What conflict of interest is {C} hiding?",
                "{C} owns the firm that would supply the materials for {c_project}.",
                (
                    "{C} lives right next to the planned site.",
                    "{C} would be paid to manage {c_project}.",
                    "{C} is married to a member of the council.",
                ),
            ),
            Mcq(
                "B",
                "A",
                "What has {A} privately promised the council?",
                "That part of the grant will pay for new street lights.",
                (
                    "That the whole grant will go to {b_project}.",
                    "That the association will match the grant with its own savings.",
                    "That {A} will step down as chair after the vote.",
                ),
            ),
            Mcq(
                "C",
                "B",
                "What is weak about the survey that {B} is presenting?",
                "Only eleven households answered it.",
                (
                    "It was written before the grant was announced.",
                    "It asked about a different street.",
                    "Most answers came from relatives of {B}.",
                ),
            ),
            Mcq(
                "D",
                "A",
                "To whom has {A} already promised part of the grant?",
                "To the council, for new street lights.",
                (
                    "To {B}, for {b_project}.",
                    "To the local primary school, for new books.",
                    "To the parish church, for roof repairs.",
                ),
            ),
        ),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "RuthAbernathy",
                        "Ruth is a 66-year-old retired magistrate, even-handed and "
                        "firm, who believes rules exist to protect everyone.",
                    ),
                    (
                        "DesmondClarke",
                        "Desmond is a 50-year-old plumber, loud and practical, who "
                        "wants results he can see.",
                    ),
                    (
                        "LeilaFarah",
                        "Leila is a 34-year-old architect who moved to the street last "
                        "spring. She is ambitious and eager to belong.",
                    ),
                    (
                        "PeterNguyen",
                        "Peter is a 58-year-old postman, friendly and nosy, who knows "
                        "everyone on the street.",
                    ),
                ),
                {
                    "street": "Elm Road",
                    "b_project": "repairing the playground on the green",
                    "c_project": "a community garden",
                },
            ),
            CharacterSet(
                2,
                (
                    (
                        "HaroldJenkins",
                        "Harold is a 72-year-old retired bank manager, courteous and "
                        "cautious, who likes things done properly.",
                    ),
                    (
                        "TashaWilliams",
                        "Tasha is a 39-year-old hairdresser and mother of three, "
                        "warm and forceful, who puts children first.",
                    ),
                    (
                        "VictorPetrov",
                        "Victor is a 45-year-old builder who moved in recently. He is "
                        "confident and persuasive, and wants to be respected.",
                    ),
                    (
                        "JuneOkonkwo",
                        "June is a 61-year-old choir leader, kind and curious, who "
                        "loves to welcome newcomers.",
                    ),
                ),
                {
                    "street": "Mill Lane",
                    "b_project": "a safe crossing outside the school",
                    "c_project": "new benches and planters",
                },
            ),
            CharacterSet(
                3,
                (
                    (
                        "OliviaGrant",
                        "Olivia is a 49-year-old accountant, organised and tactful, "
                        "who hates wasted money.",
                    ),
                    (
                        "RajKapoor",
                        "Raj is a 56-year-old shopkeeper, shrewd and talkative, who "
                        "treats the street as his extended family.",
                    ),
                    (
                        "NoraQuinn",
                        "Nora is a 28-year-old landscape gardener who joined the street "
                        "last autumn. She is energetic and wants to prove herself.",
                    ),
                    (
                        "ErnestBlake",
                        "Ernest is a 77-year-old retired sailor, gruff but fair, who "
                        "values straight talk.",
                    ),
                ),
                {
                    "street": "Harbour Street",
                    "b_project": "fixing the broken pavements",
                    "c_project": "a wildflower strip along the seafront",
                },
            ),
        ),
    ),
    Template(
        idx=6,
        scenario_type=LARGE,
        background="Three members of an online forum about {hobby} are replying to each other in "
        "a heated public thread about {topic}.",
        description="{A} moderates the forum, {B} has posted there for years, and {C} joined last "
        "week and started the thread.",
        slots=(
            Slot(
                "A",
                SENDER,
                (
                    (CR, "To calm the argument between {B} and {C} and keep the thread civil."),
                    (
                        IP,
                        "To point {C} to the pinned beginner guide that already covers {topic}.",
                    ),
                ),
            ),
            Slot(
                "B",
                SENDER,
                (
                    (IR, "To have {C} recognise {B} as an experienced authority on {hobby}."),
                    (CP, "To win the argument with {C} about {topic}."),
                ),
            ),
            Slot(
                "C",
                RECEIVER,
                (
                    (
                        RB,
                        "To make a friendly first connection with the regulars, starting with {A}.",
                    ),
                    (IA, "To get a clear, practical answer about {topic}."),
                ),
            ),
        ),
        mcqs=(),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "CrustKeeper",
                        "CrustKeeper is the forum name of Irene, a 46-year-old bakery "
                        "owner who moderates patiently and values a friendly community.",
                    ),
                    (
                        "OldDough",
                        "OldDough is the forum name of Walter, a 68-year-old retired "
                        "baker, knowledgeable and touchy, who feels newcomers ignore experience.",
                    ),
                    (
                        "FlourNovice",
                        "FlourNovice is the forum name of Jade, a 24-year-old nursing "
                        "student, curious and easily discouraged, who wants to learn quickly.",
                    ),
                ),
                {
                    "hobby": "sourdough baking",
                    "topic": "whether a starter should be fed with rye flour",
                },
            ),
            CharacterSet(
                2,
                (
                    (
                        "StarGazerMod",
                        "StarGazerMod is the forum name of Paolo, an even-tempered 52-year-old "
                        "physics teacher who values accurate information.",
                    ),
                    (
                        "DeepFieldHugo",
                        "DeepFieldHugo is the forum name of Hugo, a 61-year-old "
                        "retired engineer who has photographed galaxies for thirty years; he is "
                        "proud and quick to correct others.",
                    ),
                    (
                        "FirstLightLina",
                        "FirstLightLina is the forum name of Lina, a 17-year-old "
                        "pupil, enthusiastic and impatient, who saved for a year to buy a "
                        "telescope.",
                    ),
                ),
                {
                    "hobby": "amateur astronomy",
                    "topic": "which first telescope a beginner should buy",
                },
            ),
            CharacterSet(
                3,
                (
                    (
                        "GearTalkAdmin",
                        "GearTalkAdmin is the forum name of Kofi, a laid-back 39-year-old "
                        "bike mechanic who values fair play.",
                    ),
                    (
                        "SteelFrameSue",
                        "SteelFrameSue is the forum name of Susan, a 58-year-old "
                        "collector, opinionated and precise, who believes originality is "
                        "everything.",
                    ),
                    (
                        "RustyRookie",
                        "RustyRookie is the forum name of Marek, a 30-year-old "
                        "delivery rider, friendly and practical, who bought his first old bicycle "
                        "at a flea market.",
                    ),
                ),
                {
                    "hobby": "vintage bicycle restoration",
                    "topic": "whether original paint should ever be stripped",
                },
            ),
        ),
    ),
    Template(
        idx=7,
        scenario_type=LARGE,
        background="Five delegates at an international conference on {topic} in {city} meet "
        "during a coffee break to draft a short joint statement.",
        description="The closing session starts in one hour, and the delegates still disagree "
        "about the deadline the statement should set.",
        slots=(
            Slot(
                "A",
                RECEIVER,
                (
                    (
                        CO,
                        "To get all five delegates to agree on the wording of the joint "
                        "statement before the closing session.",
                    ),
                ),
            ),
            Slot(
                "B",
                SENDER,
                (
                    (
                        IP,
                        "To share the latest figures on {topic} from {b_country} with the other "
                        "delegates.",
                    ),
                    (RB, "To set up a working contact with {E} for future projects."),
                ),
            ),
            Slot(
                "C",
                RECEIVER,
                ((IA, "To learn what commitments {D} is ready to make before signing."),),
            ),
            Slot(
                "D",
                RECEIVER,
                ((CR, "To resolve the disagreement with {E} over the deadline in the statement."),),
            ),
            Slot(
                "E",
                SENDER,
                (
                    (IR, "To have the group recognise {E} as the voice of {e_group}."),
                    (
                        CP,
                        "To have the earlier deadline proposed by {E} adopted instead of the "
                        "later one that {D} wants.",
                    ),
                ),
            ),
        ),
        mcqs=(),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "HelenaVoss",
                        "Helena is a 57-year-old German diplomat chairing the session, "
                        "composed and exacting, who values consensus.",
                    ),
                    (
                        "RafaelCosta",
                        "Rafael is a 44-year-old Brazilian marine biologist, "
                        "passionate and talkative, who trusts data more than speeches.",
                    ),
                    (
                        "AhmedKhalil",
                        "Ahmed is a 50-year-old Egyptian trade negotiator, cautious "
                        "and observant, who never signs what he has not fully understood.",
                    ),
                    (
                        "KatrinJohansson",
                        "Katrin is a 46-year-old Swedish policy adviser, "
                        "pragmatic and firm, who believes only realistic deadlines are kept.",
                    ),
                    (
                        "TevitaFonua",
                        "Tevita is a 39-year-old Tongan environment minister, "
                        "eloquent and determined, who will not let small nations be overlooked.",
                    ),
                ),
                {
                    "topic": "ocean plastic pollution",
                    "city": "Lisbon",
                    "b_country": "Brazil",
                    "e_group": "the small island states",
                },
            ),
            CharacterSet(
                2,
                (
                    (
                        "MarieLefevre",
                        "Marie is a 61-year-old French former ambassador, gracious "
                        "and strategic, who believes good statements are short.",
                    ),
                    (
                        "ArjunMehta",
                        "Arjun is a 38-year-old Indian climate scientist, precise and "
                        "earnest, who wants evidence to guide policy.",
                    ),
                    (
                        "LucyHarper",
                        "Lucy is a 42-year-old Australian city planner, friendly and "
                        "sceptical, who asks many questions before agreeing.",
                    ),
                    (
                        "HiroshiSato",
                        "Hiroshi is a 55-year-old Japanese ministry official, polite "
                        "and unhurried, who dislikes promises he cannot keep.",
                    ),
                    (
                        "ZaraMwangi",
                        "Zara is a 36-year-old Kenyan mayor, outspoken and energetic, "
                        "who fights for cities that are growing fast with little money.",
                    ),
                ),
                {
                    "topic": "urban heat waves",
                    "city": "Singapore",
                    "b_country": "India",
                    "e_group": "the fast-growing cities of Africa",
                },
            ),
            CharacterSet(
                3,
                (
                    (
                        "ErikSolberg",
                        "Erik is a 63-year-old Norwegian diplomat, dry-humoured and "
                        "patient, who has chaired dozens of such meetings.",
                    ),
                    (
                        "FatimaBenali",
                        "Fatima is a 41-year-old Moroccan education researcher, warm "
                        "and persuasive, who values practical solutions.",
                    ),
                    (
                        "GabrielRossi",
                        "Gabriel is a 48-year-old Italian diplomat, charming and "
                        "calculating, who always wants to know the other side's bottom line.",
                    ),
                    (
                        "OksanaMelnyk",
                        "Oksana is a 45-year-old Ukrainian ministry adviser, direct "
                        "and tireless, who values commitments that can be measured.",
                    ),
                    (
                        "DiegoQuispe",
                        "Diego is a 37-year-old Peruvian teacher and activist, "
                        "passionate and stubborn, who has spent his career in village schools.",
                    ),
                ),
                {
                    "topic": "education for refugee children",
                    "city": "Geneva",
                    "b_country": "Morocco",
                    "e_group": "rural and indigenous schools",
                },
            ),
        ),
    ),
    Template(
        idx=8,
        scenario_type=PERSONAL,
        background="{A} and {B} have lived together in {home_city} for {years} years; tonight they "
        "sit at the kitchen table after dinner.",
        description="{A} has been offered a job in {city}, and they promised each other to decide "
        "together whether to move.",
        slots=(
            Slot(
                "A",
                SENDER,
                (
                    (CO, "To work out with {B} a plan for the move that suits both of them."),
                    (IP, "To make {B} understand how much the job in {city} means to {A}."),
                ),
                secret="{A} has already accepted the job offer in {city} by email.",
            ),
            Slot(
                "B",
                RECEIVER,
                (
                    (IA, "To find out how soon {A} would have to start in {city}."),
                    (RM, "To make sure the decision does not damage the relationship with {A}."),
                ),
                secret="{B} has been offered a promotion that would mean staying in {home_city}.",
            ),
        ),
        mcqs=(
            Mcq(
                "A",
                "B",
                "What news has {B} not shared with {A}?",
                "{B} has been offered a promotion that requires staying in {home_city}.",
                (
                    "{B} is thinking of going back to university.",
                    "{B} has just been made redundant.",
                    "{B} has found a flat in {city} already.",
                ),
            ),
            Mcq(
                "B",
                "A",
                "What has {A} already done without telling {B}?",
                "Said yes to the job in {city} in an email.",
                (
                    "Turned the job offer down.",
                    "Asked for a pay rise at the current job.",
                    "Told the landlord that they will move out.",
                ),
            ),
        ),
        scenes=(
            CharacterSet(
                1,
                (
                    (
                        "LucasMartin",
                        "Lucas is a 33-year-old marine engineer, optimistic and "
                        "restless, who values adventure.",
                    ),
                    (
                        "NinaPetersen",
                        "Nina is a 32-year-old primary school teacher, steady and "
                        "thoughtful, who values roots and close friends.",
                    ),
                ),
                {"home_city": "Bristol", "years": "six", "city": "Aberdeen"},
            ),
            CharacterSet(
                2,
                (
                    (
                        "AishaRahman",
                        "Aisha is a 36-year-old medical researcher, driven and warm, "
                        "who wants her work to matter.",
                    ),
                    (
                        "JamesHolloway",
                        "James is a 38-year-old carpenter, easy-going and loyal, who "
                        "loves the workshop he built himself.",
                    ),
                ),
                {"home_city": "Leeds", "years": "nine", "city": "Toronto"},
            ),
            CharacterSet(
                3,
                (
                    (
                        "MateoGarcia",
                        "Mateo is a 27-year-old junior lawyer, eager and anxious to "
                        "impress, who measures himself by success.",
                    ),
                    (
                        "ElifYilmaz",
                        "Elif is a 28-year-old nurse, caring and frank, who wants to "
                        "live near her family.",
                    ),
                ),
                {"home_city": "Valencia", "years": "three", "city": "London"},
            ),
        ),
    ),
)


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def _fill(text: str, context: Mapping[str, str]) -> str:
    return text.format_map(context)


def _context(template: Template, scene: CharacterSet) -> dict[str, str]:
    """Names by slot key, then the scene's values (which may themselves mention names)."""
    names = {slot.key: name for slot, (name, _) in zip(template.slots, scene.people, strict=True)}
    context = dict(names)
    for key, value in scene.values.items():
        context[key] = _fill(value, names)
    return context


def _eval_questions(name: str, goal: str, others: Sequence[str]) -> dict[str, list[dict[str, str]]]:
    return {
        "self": [{"obj": name, "question": SELF_QUESTION.format(name=name, goal=goal)}],
        "others": [
            {"obj": other, "question": OTHERS_QUESTION.format(name=name, goal=goal)}
            for other in others
        ],
        "judge": [{"obj": "judge", "question": JUDGE_QUESTION.format(name=name, goal=goal)}],
    }


def _answer_position(template: Template, scene: CharacterSet, ordinal: int) -> int:
    """Where the right option goes: rotates over questions, scenes and templates."""
    return (template.idx + scene.number + ordinal) % 4


def build_record(template: Template, scene: CharacterSet) -> dict[str, Any]:
    context = _context(template, scene)
    names = [name for name, _ in scene.people]
    mcqs_by_asker: dict[str, list[dict[str, Any]]] = {slot.key: [] for slot in template.slots}
    for ordinal, mcq in enumerate(template.mcqs):
        options = [_fill(text, context) for text in mcq.wrong]
        position = _answer_position(template, scene, ordinal)
        options.insert(position, _fill(mcq.correct, context))
        mcqs_by_asker[mcq.asker].append(
            {"question": _fill(mcq.question, context), "options": options, "answer_label": position}
        )
    characters = []
    for slot, (name, profile) in zip(template.slots, scene.people, strict=True):
        others = [other for other in names if other != name]
        goals = []
        for category, text in slot.goals:
            goal = _fill(text, context)
            goals.append(
                {
                    "goal": goal,
                    "eval_questions": _eval_questions(name, goal, others),
                    "category": category,
                }
            )
        characters.append(
            {
                "name": name,
                "profile": profile,
                "goals": goals,
                "private_info": _fill(slot.secret, context) if slot.secret else None,
                "info_reason_questions": mcqs_by_asker[slot.key],
            }
        )
    roles = {
        name: scene.roles.get(slot.key, slot.role)
        for slot, (name, _) in zip(template.slots, scene.people, strict=True)
    }
    return {
        "sample_idx": template.idx * 100 + scene.number,
        "template_idx": template.idx,
        "scenario_type": template.scenario_type,
        "background": _fill(template.background, context),
        "description": _fill(template.description, context),
        "characters": characters,
        "roles": roles,
    }


def _validate(template: Template, record: Mapping[str, Any]) -> None:
    """Fail loudly if the content breaks the rules the demo set promises (see README.md)."""
    where = f"sample {record['sample_idx']}"
    if template.scenario_type not in SCENARIO_TYPES:
        raise ValueError(f"{where}: unknown scenario type {template.scenario_type!r}")
    characters = record["characters"]
    names = [character["name"] for character in characters]
    if not 2 <= len(names) <= 5 or len(set(names)) != len(names):
        raise ValueError(f"{where}: need 2-5 characters with unique names, got {names}")
    if set(record["roles"]) != set(names) or not set(record["roles"].values()) <= {
        SENDER,
        RECEIVER,
    }:
        raise ValueError(f"{where}: roles must label every character sender or receiver")
    secrets = {character["name"] for character in characters if character["private_info"]}
    for character in characters:
        name = character["name"]
        if not NAME_PATTERN.match(name):
            raise ValueError(f"{where}: bad name {name!r}")
        goals = [goal["goal"] for goal in character["goals"]]
        if not 1 <= len(goals) <= 3 or len(set(goals)) != len(goals):
            raise ValueError(f"{where}: {name} needs 1-3 distinct goals")
        for goal in character["goals"]:
            text = goal["goal"]
            if goal["category"] not in CATEGORIES:
                raise ValueError(f"{where}: unknown category {goal['category']!r}")
            if not (text.startswith("To ") and text.endswith(".")) or "'" in text or "{" in text:
                raise ValueError(f"{where}: badly formed goal {text!r}")
            others = [entry["obj"] for entry in goal["eval_questions"]["others"]]
            if others != [other for other in names if other != name]:
                raise ValueError(f"{where}: others questions of {name} do not match the scene")
        mcqs = character["info_reason_questions"]
        if secrets and not mcqs:
            raise ValueError(f"{where}: {name} has no MCQ in a scene with secrets")
        if not secrets and (mcqs or character["private_info"] is not None):
            raise ValueError(f"{where}: {name} has MCQs or a secret in a scene without secrets")
        for mcq in mcqs:
            options = mcq["options"]
            if len(options) != 4 or len(set(options)) != 4 or not 0 <= mcq["answer_label"] < 4:
                raise ValueError(f"{where}: bad options for {name}: {options}")
    for mcq in template.mcqs:
        if mcq.asker == mcq.about:
            raise ValueError(f"{where}: an MCQ asks {mcq.asker} about its own secret")
        about = next(slot for slot in template.slots if slot.key == mcq.about)
        if about.secret is None:
            raise ValueError(f"{where}: an MCQ asks about slot {mcq.about}, which has no secret")


def build_records() -> list[dict[str, Any]]:
    records = []
    for template in TEMPLATES:
        for scene in template.scenes:
            record = build_record(template, scene)
            _validate(template, record)
            records.append(record)
    indices = [record["sample_idx"] for record in records]
    if len(set(indices)) != len(indices):
        raise ValueError("duplicate sample_idx")
    return records


def render() -> str:
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in build_records())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="exit 1 if the file differs from what would be written"
    )
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.exists() else None
        if current != text:
            print(f"{OUTPUT} is out of date: run python scripts/build_demo.py", file=sys.stderr)
            return 1
        print(f"{OUTPUT} is up to date")
        return 0
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {text.count(chr(10))} records to {OUTPUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
