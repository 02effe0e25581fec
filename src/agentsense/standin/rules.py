"""Deterministic reply rules for stand-in models: each reply depends only on the request.

- `parity`: the stand-in model that produced the recorded official fixtures
  (`sense-parity/README.md`); replaying a fixture scene with it must give identical requests.
- `persona`: answers like a plausible chat model: one in-character paragraph per turn, Yes/No to
  interview questions, an option to MCQs, varied by the request so scores are not constant;
  JSON derived from the input to every scenario-construction prompt (`construction_rules.py`);
  to script prediction, the title a background quotes (a leak), else a stock guess.
  Its yes/no depends on the model name, the system prompt and the question only, never on the
  conversation: a persona judge is transcript-blind (on `agentsense/judge_check` it answers all
  items of one goal alike, so its consistency is 1 and its accuracy near chance).
- `yes`: persona, but "Yes." to every yes/no question (an always-yes judge).
- `keyword`: persona, but a yes/no question is answered "Yes." when an earlier message contains
  an acceptance word (`KEYWORDS`, anywhere, small talk included), else "No.": a judge that
  reads the transcript naively and so is fooled by claims and by utterances that tell it to
  answer yes.
- `messy`: `persona`, with a deterministic share of broken construction replies.
- `flaky`: persona, but each yes/no answer is flipped with probability p (`-pNN` at the end of
  the name, in %, default 20), drawn from a hash of the whole request and the call's seed: a judge
  that, like a real one, answers a borderline question differently when asked again
  (`-S repeat=K` sends a new seed) or about another conversation. Deterministic given the seed.
- `gca`: CoSER's participants (`agentsense/gca`): characters answer `[thought] (action) speech`
  (each thought carries a marker `hidden-<name>-<k>` that tests look for in other requests), the
  Environment narrates, the next-speaker predictor names someone of its list (or `random`,
  `<END CHAT>`), critics list flaws as JSON. Model names select faults: a critic whose name
  contains `broken` never answers JSON; one containing `fenced` wraps it in a code fence.
  `persona` answers CoSER critic prompts the same way (`agentsense/critics`).
- Sotopia (`agentsense/sotopia`): `persona` answers its agent prompt with an action JSON and its
  evaluator prompt with scores in range (`sotopia_rules.py`, which lists the faults a model
  name selects: `broken`, `fenced`, `outofrange`).

The same rules back the `standin/` Inspect model provider and the local HTTP stub server.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentsense.engine.errors import PrerequisiteError
from agentsense.standin.construction_rules import construction_reply
from agentsense.standin.sotopia_rules import sotopia_reply


@dataclass(frozen=True)
class Request:
    """What a rule sees: the model name and the (role, content) of every message."""

    model: str
    messages: Sequence[tuple[str, str]]
    seed: int | None = None  # the call's generation seed (GenerateConfig.seed), if any

    @property
    def system(self) -> str:
        return self.messages[0][1] if self.messages and self.messages[0][0] == "system" else ""

    @property
    def last(self) -> str:
        return self.messages[-1][1] if self.messages else ""

    def digest(self) -> int:
        key = f"{self.model}\x1f{self.system}\x1f{self.last}".encode()
        return int(hashlib.sha256(key).hexdigest(), 16)

    @property
    def speaker(self) -> str:
        """The persona's name (`You are X.`), or the model name for judges and other prompts."""
        if self.system.startswith("You are ") and not self.system.startswith("You are skilled"):
            return self.system[len("You are ") :].split(".", 1)[0]
        return self.model


Rule = Callable[[Request], str]

_PARITY_MCQ = ("(B)", "B", "(C) I think so.", "A.", "I am not sure about this one.")
_PARITY_YES_NO = (
    "Yes.",
    "No.",
    "yes, definitely.",
    "Yes\nbecause the conversation shows it.",
    "No, but they tried.",
)


def parity(request: Request) -> str:
    """The fixture stand-in, to the letter (sense-parity/README.md, 'The stand-in model')."""
    h = request.digest()
    last = request.last
    if "only output your choice" in last:
        return _PARITY_MCQ[h % 5]
    if "Answer Yes or No" in last:
        return _PARITY_YES_NO[h % 5]
    speaker, k = request.speaker, len(request.messages) - 1
    choice = h % 6
    if choice == 0:
        return f"\n({speaker} turn {k}) starts with a blank line."
    if choice == 1:
        return f"{speaker}: ({speaker} turn {k}) already carries my name."
    return (
        f"({speaker} turn {k}) I would like to talk about the plan.\n"
        "A second paragraph that the others never see."
    )


_OPENERS = (
    "That is a fair point, {other}.",
    "I hear you, {other}, but let me add something.",
    "Honestly, {other}, I have been thinking about this all day.",
    "Before we go further, {other}, I want to be clear.",
    "Thanks for saying that, {other}.",
    "Let us slow down for a moment, {other}.",
)
_MOVES = (
    "I would really like {goal}",
    "What matters most to me right now is {goal}",
    "I hope we can find a way {goal}",
    "Could you help me? I am trying {goal}",
)
_CLOSERS = (
    "What do you think?",
    "I am open to your ideas.",
    "Tell me honestly where you stand.",
    "Let us decide together.",
    "",
)
_GOALS = re.compile(r"SOCIAL GOALS: (.*)")
_LABELS = re.compile(r"\(([A-Za-z1-9])\) ")


def _goal_phrase(system: str, h: int) -> str:
    match = _GOALS.search(system)
    goals = [g.strip() for g in match.group(1).split(". ") if g.strip()] if match else []
    if not goals:
        return "to get along with everyone here."
    goal = goals[h % len(goals)].rstrip(".")
    # "To reassure Leo ..." -> "to reassure Leo ..."
    return (goal[0].lower() + goal[1:] if goal else goal) + "."


def _last_speaker(request: Request) -> str:
    for role, content in reversed(request.messages[1:]):
        if role == "user" and ": " in content:
            return content.split(": ", 1)[0]
    return "everyone"


# Script prediction (`agentsense/script_prediction`): a background that quotes a title leaks it,
# and the stand-in names that title; otherwise it guesses one of these, in one of these forms.
_SCRIPT_QUESTION = "Guess which script it comes from."
_QUOTED_TITLE = re.compile(r'"([^"\n]+)"')
_STOCK_TITLES = ("Friends", "The Office", "Casablanca", "Pride and Prejudice", "Succession")
_TITLE_FORMS = ("{}", '"{}"', "I think it is *{}*.", "Title: {}", "I am not sure which script.")


def _script_guess(prompt: str, h: int) -> str:
    background = prompt.split("###Background: ", 1)[-1]
    leaked = _QUOTED_TITLE.search(background)
    if leaked:
        return f'It must be "{leaked.group(1).lower()}".'
    title = _STOCK_TITLES[h % len(_STOCK_TITLES)]
    return _TITLE_FORMS[(h >> 4) % len(_TITLE_FORMS)].format(title)


def persona(request: Request) -> str:
    """A plausible, deterministic chat model for smoke runs, tests and benchmarks."""
    built = construction_reply(list(request.messages), request.model, messy=False)
    if built is not None:
        return built
    acted = sotopia_reply(request.model, request.last)
    if acted is not None:
        return acted
    h = request.digest()
    last = request.last
    if request.system.startswith("You are a literary critic"):
        return _gca_critic(request, h)
    if _SCRIPT_QUESTION in last:
        return _script_guess(last, h)
    if "only output your choice" in last:
        labels = _LABELS.findall(last) or ["A", "B", "C", "D"]
        label = labels[h % len(labels)]
        return (f"({label})", label, f"({label}) That seems most likely.")[(h >> 8) % 3]
    if "yes or no" in last.lower():
        # Lean towards yes, as chat models do, but not always.
        yes = (h % 100) < 65
        return (
            ("Yes." if yes else "No.")
            if (h >> 8) % 4
            else ("Yes, I believe so." if yes else "No, not really.")
        )
    other = _last_speaker(request)
    parts = (
        _OPENERS[h % len(_OPENERS)].format(other=other),
        _MOVES[(h >> 4) % len(_MOVES)].format(goal=_goal_phrase(request.system, h >> 12)),
        _CLOSERS[(h >> 8) % len(_CLOSERS)],
    )
    return " ".join(part for part in parts if part)


_LIST = re.compile(r"Choose a name from this list: (\[.*?\])\.")
_CHARACTER = re.compile(r"You are (.+?) from (.+?)\.\n")
_DIMENSION = re.compile(r"in terms of (.+?), i\.e\.,")
_FLAW_TYPES = {
    "Storyline Consistency": ("Storyline Consistency",),
    "Anthropomorphism": ("Self-identity", "Emotional Depth", "Persona Coherence"),
    "Character Fidelity": ("Character Language", "Knowledge & Background"),
    "Storyline Quality": ("Flow & Progression", "Logical Consistency"),
}


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _gca_character(request: Request, name: str, h: int) -> str:
    k = len(request.messages)
    thought = f"[{name} keeps this hidden-{_slug(name)}-{k}.]"
    action = ("(looks away)", "(steps closer)", "(folds her arms)", "(pauses)")[h % 4]
    speech = ("We cannot wait any longer.", "Tell me what you saw.", "I am not afraid.")[
        (h >> 4) % 3
    ]
    return f"{thought} {action} {speech}"


def _gca_next_speaker(request: Request, h: int) -> str:
    match = _LIST.search(request.system)
    names: list[str] = []
    if match:
        names = [n.strip().strip("'\"") for n in match.group(1).strip("[]").split(",")]
    heard = sum(
        content.count("\n\n") + 1 for role, content in request.messages[1:] if role == "user"
    )
    if heard >= 7 and h % 3 == 0:
        answer = "<END CHAT>"
    elif h % 7 == 1 or not names:
        answer = "random"
    else:
        answer = names[(h >> 3) % len(names)]
    if "===Output Format===" in request.system:
        return f"1. Reasoning: the scene moves on.\n2. Next Speaker: {answer}"
    return answer


def _gca_critic(request: Request, h: int) -> str:
    match = _DIMENSION.search(request.system)
    dimension = match.group(1) if match else "Storyline Quality"
    types = _FLAW_TYPES.get(dimension, ("Flow & Progression",))
    flaws = []
    for i in range((h >> 2) % 4):
        flaw: dict[str, object] = {
            "instance": f"message {i + 1} feels off",
            "type": types[(h >> (i + 5)) % len(types)],
        }
        if (h >> (i + 9)) % 6:  # now and then no severity: CoSER counts it as 1
            flaw["severity"] = 1 + (h >> (i + 12)) % 5
        flaws.append(flaw)
    body = json.dumps({dimension: {"flaws": flaws}}, indent=2)
    if "broken" in request.model:
        return "I found a few flaws, mostly minor ones, but I cannot put them in JSON."
    if "fenced" in request.model or h % 5 == 0:
        return f"Here is my evaluation.\n```json\n{body}\n```"
    return body


def gca(request: Request) -> str:
    """CoSER's participants, told apart by their prompts; deterministic per request."""
    # The history's length is mixed in: the last message alone often repeats.
    key = f"{request.digest()}:{len(request.messages)}".encode()
    h = int(hashlib.sha256(key).hexdigest(), 16)
    system = request.system
    if system.startswith("Your task is to predict the next speaker"):
        return _gca_next_speaker(request, h)
    if "Your task is to provide the environmental feedback" in system:
        weather = ("The wind rises against the windows.", "Somewhere below, a door bangs shut.")
        return weather[h % 2]
    if system.startswith("You are a literary critic"):
        return _gca_critic(request, h)
    if request.last.startswith("I will provide you with a JSON string"):
        return "I cannot repair this."
    character = _CHARACTER.match(system)
    if character:
        return _gca_character(request, character.group(1), h)
    return persona(request)


def always_yes(request: Request) -> str:
    return "Yes." if "yes or no" in request.last.lower() else persona(request)


# Acceptance words of the `keyword` judge, matched as whole words anywhere in the conversation.
KEYWORDS = re.compile(r"\b(agree\w*|thank you|understand\w*|yes)\b", re.IGNORECASE)


def keyword(request: Request) -> str:
    if "yes or no" not in request.last.lower():
        return persona(request)
    history = " ".join(content for _, content in request.messages[1:-1])
    return "Yes." if KEYWORDS.search(history) else "No."


FLAKY_DEFAULT = 0.2
_FLIP = re.compile(r"-p(\d{1,2})$")


def flip_probability(name: str) -> float:
    """The flip probability a `flaky` stand-in's name asks for (`judge-a-p35`: 0.35)."""
    match = _FLIP.search(name)
    return int(match.group(1)) / 100 if match else FLAKY_DEFAULT


def flaky(request: Request) -> str:
    reply = persona(request)
    if "yes or no" not in request.last.lower():
        return reply
    key = "\x1f".join([request.model, str(request.seed), *(text for _, text in request.messages)])
    draw = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 16**8
    if draw >= flip_probability(request.model):
        return reply
    return "No." if reply.startswith("Yes") else "Yes."


def messy(request: Request) -> str:
    """`persona`, but construction replies are often broken JSON (to exercise the repairs)."""
    built = construction_reply(list(request.messages), request.model, messy=True)
    return built if built is not None else persona(request)


RULES: dict[str, Rule] = {
    "parity": parity,
    "persona": persona,
    "yes": always_yes,
    "keyword": keyword,
    "messy": messy,
    "flaky": flaky,
    "gca": gca,
}


def rule_for(model: str) -> tuple[Rule, str]:
    """Split a served model name `rule/name` (or just `name`, persona) into its rule and name.

    Lenient, for the stub server, which is sent whatever name a client is configured with."""
    head, _, rest = model.partition("/")
    if head in RULES and rest:
        return RULES[head], rest
    return RULES["persona"], model


def standin_rule(model: str) -> tuple[Rule, str]:
    """The rule and name of a `standin/<rule>/<name>` model; an unknown rule is refused."""
    head, _, rest = model.partition("/")
    if head in RULES and rest:
        return RULES[head], rest
    found = f"no stand-in rule {head!r}" if rest else "no rule and name"
    raise PrerequisiteError(
        f"standin/{model}: {found}. A stand-in model is standin/<rule>/<name>, the rule one of "
        f"{', '.join(RULES)} (docs/usage.md, 'Stand-in models'); the name is free."
    )
