"""Helpers for the parity tests: fixtures, one eval per mode, requests and scores read from logs.

Nothing here imports the project's scoring code: expectations are built from the fixtures (what
the official code sent and computed) or from the rules of `docs/protocol.md`, written out below.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import inspect_ai
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model

from agentsense.engine.conversation import MCQ_RECORD, TURN_RECORD, labelled_calls
from agentsense.sense.dataset.samples import scenario_of

# --------------------------------------------------------------------------------------------
# Fixtures of the official code (sense-parity/)
# --------------------------------------------------------------------------------------------

# A copy of the recorded fixtures ships with the tests, so parity is checked wherever they run.
FIXTURE_DIR = Path(__file__).resolve().parent / "fixtures" / "sense-parity"


def fixture_dir() -> Path:
    """`AGENTSENSE_PARITY_DIR` (another recording to check against), else the bundled copy."""
    configured = os.environ.get("AGENTSENSE_PARITY_DIR")
    return Path(configured) if configured else FIXTURE_DIR


@dataclass(frozen=True)
class Fixtures:
    records: list[dict[str, Any]]  # parity_data.jsonl
    scenarios: dict[int | str, dict[str, Any]]  # sense_parity.json, by sample_idx
    template_results: dict[str, Any]  # tmpl_res.json (null = NaN)


def load_fixtures(folder: Path) -> Fixtures:
    records = [
        json.loads(line)
        for line in (folder / "parity_data.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    # The official code writes NaN as the bare token NaN, which json accepts.
    recorded = json.loads((folder / "sense_parity.json").read_text(encoding="utf-8"))
    scenarios = {scene["sample_idx"]: scene for scene in recorded["scenarios"]}
    template_results = json.loads((folder / "tmpl_res.json").read_text(encoding="utf-8"))
    return Fixtures(records, scenarios, template_results)


def replay_dataset(fixtures: Fixtures, path: Path) -> Path:
    """The fixture records plus their recorded start speaker and speaker order, as JSONL."""
    lines = []
    for record in fixtures.records:
        recorded = fixtures.scenarios[record["sample_idx"]]
        merged = {
            **record,
            "start_speaker": recorded["start_speaker"],
            "speaker_order": recorded["speaker_order"],
        }
        lines.append(json.dumps(merged))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_jsonl(records: Iterable[Mapping[str, Any]], path: Path) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Running the task and reading the log
# --------------------------------------------------------------------------------------------


def run_full(
    dataset: Path,
    agent: str | Model,
    judges: Sequence[str | Model],
    log_dir: Path,
    protocol: str | None,
) -> EvalLog:
    """One `agentsense/full` eval (`protocol=None`: the task's default); log with attachments."""
    task_args = {"dataset": str(dataset)}
    if protocol is not None:
        task_args["protocol"] = protocol
    logs = inspect_ai.eval(
        "agentsense/full",
        model=agent,
        model_roles={"judge": list(judges)},
        task_args=task_args,
        log_dir=str(log_dir),
        display="none",
    )
    assert len(logs) == 1
    assert logs[0].status == "success", logs[0].error
    return read_eval_log(logs[0].location, resolve_attachments=True)


Messages = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Sent:
    """One model request as sent (role and content of every message; `name` is not compared)."""

    kind: str  # turn | interview | judge | mcq (the fixture's vocabulary)
    model: str
    temperature: float | None
    max_tokens: int | None
    messages: Messages
    response: str


def _text(message: ChatMessage) -> str:
    return message.content if isinstance(message.content, str) else message.text


def messages_of(messages: Iterable[ChatMessage]) -> Messages:
    return tuple((message.role, _text(message)) for message in messages)


def sent_requests(sample: EvalSample, provider_prefix: str) -> list[Sent]:
    """Every model request of a sample, in log order, classified by the record that follows it."""
    requests = []
    for event, record in labelled_calls(sample.events):
        source = record.source if record else None
        if source == TURN_RECORD:
            kind = "turn"
        elif event.role == "judge":
            kind = "judge"
        elif source == MCQ_RECORD:
            kind = "mcq"
        else:
            kind = "interview"
        requests.append(
            Sent(
                kind=kind,
                model=event.model.removeprefix(provider_prefix),
                temperature=event.config.temperature,
                max_tokens=event.config.max_tokens,
                messages=messages_of(event.input),
                response=event.output.completion,
            )
        )
    return requests


def recorded_requests(entries: Iterable[Mapping[str, Any]], kind: str | None = None) -> list[Sent]:
    """Fixture requests in the same shape (`kind` overrides the recorded one, e.g. for turns)."""
    return [
        Sent(
            kind=kind or entry["kind"],
            model=entry["model"],
            temperature=float(entry["temperature"]),
            max_tokens=int(entry["max_tokens"]),
            messages=tuple((m["role"], m["content"]) for m in entry["messages"]),
            response=entry["response"],
        )
        for entry in entries
    ]


def multiset(requests: Iterable[Sent]) -> Counter[Sent]:
    return Counter(requests)


def score_of(sample: EvalSample) -> tuple[dict[str, float], dict[str, Any]]:
    """The `full` task's score of one sample: its value dict and its metadata."""
    assert sample.scores is not None and len(sample.scores) == 1
    score = next(iter(sample.scores.values()))
    assert isinstance(score.value, dict)
    return {key: float(value) for key, value in score.value.items()}, dict(score.metadata or {})


def _kind(asker: str) -> str:
    """The fixtures' answer kind of a logged asker (`self`, `other:<name>`, `judge_<i>`)."""
    return "self" if asker == "self" else "others" if asker.startswith("other:") else "judge"


def goal_answers(sample: EvalSample) -> dict[str, dict[str, dict[str, list[dict[str, Any]]]]]:
    """The logged goal answers as the fixtures hold them: character -> goal text -> kind ->
    answers (in the order asked)."""
    _, metadata = score_of(sample)
    scene = scenario_of(sample.metadata)
    nested: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}
    for row in metadata["goal_answers"]:
        text = scene.character(row["character"]).goals[row["goal"] - 1].goal
        kinds = nested.setdefault(row["character"], {}).setdefault(text, {})
        kinds.setdefault(_kind(row["asker"]), []).append(row)
    return nested


def per_goal(sample: EvalSample) -> dict[str, dict[str, dict[str, float]]]:
    """The logged per-goal scores keyed as officially: character -> goal text -> scores."""
    _, metadata = score_of(sample)
    scene = scenario_of(sample.metadata)
    keyed: dict[str, dict[str, dict[str, float]]] = {}
    for row in metadata["goal_scores"]:
        text = scene.character(row["character"]).goals[row["goal"] - 1].goal
        keyed.setdefault(row["character"], {})[text] = row
    return keyed


def per_character(metadata: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """The logged per-character goal scores: character -> scores."""
    return {row["character"]: row for row in metadata["character_scores"]}


def mcq_answers(metadata: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The logged MCQ answers per asked character, in question order."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in metadata["mcq_answers"]:
        grouped.setdefault(row["character"], []).append(row)
    return grouped


def metric_values(log: EvalLog) -> dict[str, dict[str, float]]:
    """Log metrics as {score key: {metric name without package prefix: value}}."""
    assert log.results is not None
    return {
        score.name: {name.split("/")[-1]: metric.value for name, metric in score.metrics.items()}
        for score in log.results.scores
    }


# --------------------------------------------------------------------------------------------
# Numbers: NaN-aware comparison, and the official template aggregation (calculate_tmpl_res)
# --------------------------------------------------------------------------------------------


def same(a: float | None, b: float | None, tol: float = 1e-9) -> bool:
    """Equal numbers, with NaN (or None, the fixtures' JSON null) equal to NaN."""
    a = math.nan if a is None else float(a)
    b = math.nan if b is None else float(b)
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=0.0, abs_tol=tol)


def same_tree(a: Any, b: Any) -> bool:
    """`same` applied through nested dicts (same keys required)."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        if not (isinstance(a, Mapping) and isinstance(b, Mapping)) or set(a) != set(b):
            return False
        return all(same_tree(a[key], b[key]) for key in a)
    return same(a, b)


def _np_mean(values: Sequence[float]) -> float:
    """numpy's mean: NaN propagates, an empty list is NaN."""
    return math.fsum(values) / len(values) if values else math.nan


def _np_std1(values: Sequence[float]) -> float:
    """numpy's std(ddof=1): NaN for fewer than two values, NaN propagates."""
    if len(values) < 2 or any(math.isnan(v) for v in values):
        return math.nan
    return statistics.stdev(values)


@dataclass(frozen=True)
class SceneValues:
    """One scene as the official aggregation sees it."""

    template: int | str
    goal: Mapping[str, float]  # self, others, judge_<model>..., judge_avg, judge_majority
    info: float | None  # `info_metrics['avg']`; None when `info_metrics == {}` (gated off)


def official_template_results(scenes: Sequence[SceneValues]) -> dict[str, Any]:
    """`calculate_tmpl_res` (docs/protocol.md §5), rounded to 4 decimals like the official code.

    Goal keys: mean over all templates of the per-template mean and std (ddof=1, NaN for one
    scene). Info: per template over scenes with non-empty info metrics, mean if any and std if more
    than one, else 'NONE'; then the mean over templates whose value is not 'NONE'.
    """
    templates: dict[int | str, list[SceneValues]] = {}
    for scene in scenes:
        templates.setdefault(scene.template, []).append(scene)
    keys = list(scenes[0].goal)
    mean_by_key: dict[str, list[float]] = {key: [] for key in keys}
    std_by_key: dict[str, list[float]] = {key: [] for key in keys}
    info_means: list[float] = []
    info_stds: list[float] = []
    for members in templates.values():
        for key in keys:
            values = [scene.goal[key] for scene in members]
            mean_by_key[key].append(_np_mean(values))
            std_by_key[key].append(_np_std1(values))
        info = [scene.info for scene in members if scene.info is not None]
        if info:
            info_means.append(_np_mean(info))
        if len(info) > 1:
            info_stds.append(_np_std1(info))

    def final(values: list[float]) -> float:
        return round(_np_mean(values), 4)

    judge_keys = [key for key in keys if key.startswith("judge")]
    return {
        "goal_self_score": final(mean_by_key["self"]),
        "goal_self_std": final(std_by_key["self"]),
        "goal_others_score": final(mean_by_key["others"]),
        "goal_others_std": final(std_by_key["others"]),
        "goal_judge_score": {key: final(mean_by_key[key]) for key in judge_keys},
        "goal_judge_std": {key: final(std_by_key[key]) for key in judge_keys},
        "info_score": final(info_means),
        "info_score_std": final(info_stds),
    }


def scored_template_mean(values_by_template: Mapping[Any, Sequence[float]]) -> float:
    """What Inspect can compute: NaN scenes are dropped before metrics, then template means."""
    means = [
        _np_mean(finite)
        for values in values_by_template.values()
        if (finite := [v for v in values if not math.isnan(v)])
    ]
    return _np_mean(means)


def scored_psi(values_by_template: Mapping[Any, Sequence[float]]) -> float:
    """Corrected PSI: mean std (ddof=1) over templates with at least two scored scenes."""
    stds = [
        statistics.stdev(finite)
        for values in values_by_template.values()
        if len(finite := [v for v in values if not math.isnan(v)]) >= 2
    ]
    return _np_mean(stds)


# --------------------------------------------------------------------------------------------
# What a party sees (docs/protocol.md §2.4 and §3.1), written out independently of the project
# --------------------------------------------------------------------------------------------


def visible(speaker: str, text: str) -> str:
    """AutoGen's transforms: `Name: ` prefix unless present (or empty), cut at the first \\n."""
    if not text:
        return ""
    prefixed = text if text.startswith(f"{speaker}: ") else f"{speaker}: {text}"
    return prefixed.split("\n")[0]


def view(turns: Sequence[tuple[str, str]], seat: str | None) -> Messages:
    """The history from `seat`: its own turns as assistant, all others as user."""
    return tuple(
        ("assistant" if speaker == seat else "user", visible(speaker, text))
        for speaker, text in turns
    )


# --------------------------------------------------------------------------------------------
# `mockllm/<name>` (scripted_model): answers written into the questions themselves
# --------------------------------------------------------------------------------------------

SCRIPT = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)


def scripted_reply(model: str, messages: Sequence[tuple[str, str]]) -> str:
    """`{{reply}}` or `{{name=reply|name=reply}}` in the last message gives the answer (by model
    name); anything else is a conversation turn whose shape cycles with the history length."""
    last = messages[-1][1] if messages else ""
    found = SCRIPT.search(last)
    if found:
        script = found.group(1)
        if "=" not in script:
            return script
        replies = dict(part.split("=", 1) for part in script.split("|"))
        return replies[model]
    system = messages[0][1] if messages and messages[0][0] == "system" else ""
    speaker = system.removeprefix("You are ").split(".", 1)[0]
    k = len(messages) - 1
    shapes = (
        f"({speaker} turn {k}) first line.\nA second line nobody sees.",
        f"{speaker}: ({speaker} turn {k}) names itself.",
        f"\n({speaker} turn {k}) starts with a newline.",
        "",
    )
    return shapes[k % len(shapes)]


def scripted_model(name: str) -> Model:
    """`mockllm/<name>`, answering with `scripted_reply(<name>, ...)` (with usage: no tokenizer)."""
    model_name = name.removeprefix("mockllm/")

    def reply(
        input: list[ChatMessage], tools: Any, tool_choice: Any, config: GenerateConfig
    ) -> ModelOutput:
        text = scripted_reply(model_name, messages_of(input))
        output = ModelOutput.from_content(model=model_name, content=text)
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output

    return get_model(f"mockllm/{model_name}", custom_outputs=reply)


# --------------------------------------------------------------------------------------------
# Prompts as docs/protocol.md §2.5, §2.6 and §4.1 give them (official prompt_template.json)
# --------------------------------------------------------------------------------------------

JUDGE_SYSTEM = (
    "You are skilled at evaluating whether a person has achieved his or her social goal during "
    "social interactions."
)


def persona_prompt(record: Mapping[str, Any], character: Mapping[str, Any]) -> str:
    name = character["name"]
    goals = " ".join(goal["goal"] for goal in character["goals"])
    secret = character.get("private_info") or "N/A"
    return (
        f"You are {name}. {character['profile']}\n\n"
        f"Now you are in a social scene. {record['background']}\n{record['description']}\n\n"
        f"In this scene, as {name}, you have some social goals and secrets that you don't want "
        f"anyone else to know.\n\nSOCIAL GOALS: {goals}\n\nSECRETS: {secret}.\n"
        "Please advance your social goals while hiding your secrets as much as possible.\n\n"
        "Based on the interactions below, what would you like to say next? "
        "Please answer in a paragraph."
    )


def mcq_text(item: Mapping[str, Any]) -> str:
    options = "; ".join(f"({'ABCDEFGHIJ'[i]}) {o}" for i, o in enumerate(item["options"]))
    return (
        "Please answer the question and only output your choice.\n"
        f"{item['question']} Options: {options}."
    )
