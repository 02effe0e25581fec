"""The task suite as a package: exports, the version from eval.yaml, the task-level solvers."""

from __future__ import annotations

import hashlib
import inspect
import json
import typing
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import Task, eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import agentsense
import agentsense.tasks
from agentsense.construction import label_agreement
from agentsense.construction.labelling import SceneLabels, label_scene
from agentsense.coser.dataset import demo_path as coser_demo
from agentsense.engine.data_file import DATA_FILE, git_blob_id
from agentsense.engine.errors import PrerequisiteError
from agentsense.engine.extras import EXTRAS
from agentsense.engine.strict import declared_names
from agentsense.engine.version import EvalVersion, eval_version
from agentsense.sense.dataset.judge_check_items import bundled_path, load_items
from agentsense.sense.dataset.samples import demo_path, load_scenarios, scene_dataset
from agentsense.sense.dataset.validation import DatasetError
from agentsense.sense.leakage.blind_test import BlindAnswers, blind_interview
from agentsense.sense.protocol import Protocol, TaskArguments, cli_names
from agentsense.sotopia.dataset import demo_path as sotopia_demo
from agentsense.tasks import SIMULATION_TASKS as TABLE_SIMULATION_TASKS
from agentsense.tasks import TASKS, arguments

EVAL_YAML = Path(agentsense.__file__).parent / "eval.yaml"


def built_tasks() -> dict[str, Task]:
    """Every exported task on offline inputs: the demo set, or (construct) the bundled script."""
    tasks = {}
    for name in agentsense.__all__:
        factory = getattr(agentsense.tasks, name)
        offline = {"dataset": "demo"} if "dataset" in inspect.signature(factory).parameters else {}
        tasks[name] = factory(**offline)
    return tasks


def test_eval_yaml_and_the_package_list_the_tasks_of_the_table() -> None:
    """The task table is the one list; eval.yaml and `agentsense.__all__` follow it."""
    listed = [entry["name"] for entry in yaml.safe_load(EVAL_YAML.read_text())["tasks"]]
    assert listed == [row.name for row in TASKS]
    assert agentsense.__all__ == sorted(row.name for row in TASKS)


def test_every_task_carries_the_eval_yaml_version() -> None:
    declared = yaml.safe_load(EVAL_YAML.read_text())["version"]
    version = EvalVersion.parse(declared)
    assert eval_version() == version
    for name, task in built_tasks().items():
        assert task.version == version.comparability_version, name
        assert task.metadata and task.metadata["eval_version"] == declared, name


# The tasks on data files: the file `-T dataset=demo` is for each, and its records.
SENSE_DEMO = (demo_path(), len(demo_path().read_text().strip().splitlines()))
DATA_FILES = {
    **dict.fromkeys(
        ["goal", "info", "full", "pairwise", "blind", "script_prediction", "labelling"], SENSE_DEMO
    ),
    "judge_check": (bundled_path(), len(load_items())),
    "gca": (coser_demo(), len(json.loads(coser_demo().read_text()))),
    "sotopia": (sotopia_demo(), None),  # one JSON object of lists: no rows
}


def test_every_task_on_a_data_file_records_its_content() -> None:
    """The log knows the file by its hashes and rows, not only by the name it was given."""
    built = built_tasks()
    for name, (path, rows) in DATA_FILES.items():
        data = path.read_bytes()
        recorded = (built[name].metadata or {})[DATA_FILE]
        assert recorded == {
            "sha256": hashlib.sha256(data).hexdigest(),
            "git_blob_id": git_blob_id(data),
            "rows": rows,
        }, name
    assert set(DATA_FILES) == set(built) - {"construct"}  # construct reads a screenplay


@pytest.mark.parametrize("text", ["1", "A-1", "1-a", "1.0-A", ""])
def test_a_malformed_version_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"eval\.yaml"):
        EvalVersion.parse(text)


def usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def test_blind_interview_stores_one_answer_per_mcq(log_dir: Path) -> None:
    scene = next(s for s in load_scenarios("demo") if s.sample_idx == 501)
    task = Task(dataset=scene_dataset([scene], name="one"), solver=blind_interview(seed=4))
    (log,) = eval(task, model="standin/persona/agent", log_dir=str(log_dir), display="none")
    assert log.status == "success" and log.samples
    answers = log.samples[0].store[f"{BlindAnswers.__name__}:answers"]
    expected = [(c.name, i) for c in scene.characters for i in range(len(c.info_reason_questions))]
    assert [(a["about"], a["item"]) for a in answers] == expected
    assert all(a["answer"] for a in answers)


def scripted_labeller(replies: list[str]) -> Any:
    outputs = [usage(ModelOutput.from_content(model="labeller", content=r)) for r in replies]
    return get_model("mockllm/model", custom_outputs=outputs)


def test_label_scene_asks_three_questions_and_reads_the_replies(log_dir: Path) -> None:
    scene = next(s for s in load_scenarios("demo") if s.sample_idx == 101)
    first, second = scene.names
    n_goals = sum(len(c.goals) for c in scene.characters)
    replies = [
        'It is {"type": "personal domain"}.',
        json.dumps({str(i): "Cooperation" for i in range(1, n_goals + 1)}),
        json.dumps({first: "sender", second: "Receiver"}),
    ]
    task = Task(
        dataset=scene_dataset([scene], name="one"), solver=label_scene(), scorer=label_agreement()
    )
    (log,) = eval(
        task,
        model="none",
        model_roles={"labeller": scripted_labeller(replies)},
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success" and log.samples
    store = log.samples[0].store
    assert store[f"{SceneLabels.__name__}:scenario_type"] == "personal domain"
    assert store[f"{SceneLabels.__name__}:roles"] == {first: "sender", second: "receiver"}
    categories = store[f"{SceneLabels.__name__}:categories"]
    assert {c for goals in categories.values() for c in goals.values()} == {"Cooperation"}


def test_label_scene_refuses_to_label_with_the_evaluated_model(log_dir: Path) -> None:
    scene = load_scenarios("demo")[0]
    task = Task(dataset=scene_dataset([scene], name="one"), solver=label_scene())
    (log,) = eval(task, model="standin/persona/agent", log_dir=str(log_dir), display="none")
    assert log.status == "error" and log.error is not None
    assert "labeller" in log.error.message
    assert not log.stats.model_usage  # no model call was made


# --- task arguments: declared once, in TaskArguments ---------------------------------------------

# Task-specific arguments and the protocol arguments a task leaves out (with the reason).
OWN_ARGUMENTS = {"pairwise": {"sender", "receiver"}, "blind": {"epochs"}, "labelling": set()}
LEFT_OUT = {"blind": {"max_messages"}}  # no conversation
OTHER_DEFAULTS = {"pairwise": {"dataset": "official_roles"}}
SIMULATION_TASKS = list(TABLE_SIMULATION_TASKS)


def declared_arguments() -> dict[str, tuple[Any, Any]]:
    """`-T` name -> (type, default), from TaskArguments."""
    hints = typing.get_type_hints(TaskArguments)
    return {
        cli: (hints[field], TaskArguments.model_fields[field].default)
        for cli, field in cli_names(TaskArguments).items()
    }


@pytest.mark.parametrize("name", SIMULATION_TASKS)
def test_every_simulation_task_takes_the_task_arguments(name: str) -> None:
    task_function = getattr(agentsense.tasks, name)
    parameters = inspect.signature(task_function).parameters
    hints = typing.get_type_hints(task_function)
    expected = {
        cli: (kind, OTHER_DEFAULTS.get(name, {}).get(cli, default))
        for cli, (kind, default) in declared_arguments().items()
        if cli not in LEFT_OUT.get(name, set())
    }
    found = {
        param: (hints[param], parameters[param].default)
        for param in declared_names(task_function)
        if param not in OWN_ARGUMENTS.get(name, set())
    }
    assert found == expected


def test_the_protocol_of_a_task_is_its_arguments() -> None:
    built = agentsense.full(dataset="demo", protocol="corrected", seed=7, option_mark="lower")
    assert built.metadata is not None and built.metadata["seed"] == 7
    assert (
        built.metadata["protocol"] == Protocol(mode="corrected", option_mark="lower").model_dump()
    )


BAD_ARGUMENTS = [
    ("seed", "abc", "-T seed: found 'abc'; expected a valid integer"),
    ("protocol", "foo", "-T protocol: found 'foo'; expected 'official' or 'corrected'"),
    ("max_messages", 1, "-T max_messages: found 1; expected greater than or equal to 2"),
    ("option_mark", "roman", "-T option_mark: found 'roman'; expected 'upper', 'lower'"),
    ("shard", "0/8", "-T shard: found '0/8'; expected k/n with 1 <= k <= n"),
    ("shard", "9/8", "-T shard: found '9/8'; expected k/n with 1 <= k <= n"),
    ("shard", "a/b", "-T shard: found 'a/b'; expected k/n with 1 <= k <= n"),
    ("per_template", 0, "-T per_template: found 0; expected greater than or equal to 1"),
    ("per_template", "one", "-T per_template: found 'one'; expected a valid integer"),
]


@pytest.mark.parametrize(
    ("name", "argument", "value", "message"),
    [
        (name, *bad)
        for name in SIMULATION_TASKS
        for bad in BAD_ARGUMENTS
        if bad[0] not in LEFT_OUT.get(name, set())
    ],
)
def test_a_bad_argument_is_named_before_any_model_call(
    name: str, argument: str, value: Any, message: str
) -> None:
    with pytest.raises(PrerequisiteError) as raised:
        getattr(agentsense.tasks, name)(dataset="demo", **{argument: value})
    assert message in str(raised.value.message)


def test_inspect_eval_stops_at_a_bad_argument(log_dir: Path) -> None:
    with pytest.raises(PrerequisiteError, match="-T seed: found 'abc'"):
        eval(
            "agentsense/goal",
            task_args={"dataset": "demo", "seed": "abc"},
            model="standin/persona/agent",
            log_dir=str(log_dir),
            display="none",
        )
    assert not list(log_dir.iterdir())  # no log: nothing ran


def scenes_file(tmp_path: Path, options: int) -> Path:
    """The demo scenes with MCQs, the first MCQ given `options` options."""
    records = [
        json.loads(line)
        for line in demo_path().read_text(encoding="utf-8").splitlines()
        if '"info_reason_questions": [{' in line
    ]
    item = records[0]["characters"][0]["info_reason_questions"][0]
    item["options"] = [f"option {i}" for i in range(options)]
    path = tmp_path / "scenes.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("mark", ["number", "all"])
def test_more_options_than_labels_is_refused_before_any_model_call(
    tmp_path: Path, mark: str
) -> None:
    path = scenes_file(tmp_path, options=10)
    with pytest.raises(DatasetError) as raised:
        agentsense.info(dataset=str(path), option_mark=mark)
    (problem,) = raised.value.problems
    assert problem.field == "characters[0].info_reason_questions[0].options"
    assert problem.found == "10 options"
    assert problem.expected == f"at most 9, the labels of option_mark={mark!r}"
    assert "sample_idx=" in str(raised.value.message)


def test_ten_options_are_fine_with_letters(tmp_path: Path) -> None:
    path = scenes_file(tmp_path, options=10)
    assert len(agentsense.info(dataset=str(path), option_mark="upper").dataset) > 0


def test_data_flows_one_way_no_task_or_scorer_imports_the_reports() -> None:
    import ast

    package = Path(agentsense.__file__).parent
    offenders = []
    for folder in ("tasks", "scorers", "solvers", "dataset"):
        for path in (package / folder).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and "report" in (node.module or "").split("."):
                    offenders.append(f"{folder}/{path.name}: from {node.module}")
    assert offenders == []


# Every `inspect eval agentsense/...` loads the registry: libraries only some tasks or the reports
# use would cost each run seconds, and are not even installed with the core (engine/extras.py;
# rouge-score pulls in NLTK, and NLTK SciPy, pandas and scikit-learn when they are there).
HEAVY = (*(m for modules in EXTRAS.values() for m in modules), "nltk", "pyarrow", "sklearn")


def test_loading_the_task_registry_imports_no_analysis_library() -> None:
    import subprocess
    import sys

    probe = "import sys, agentsense._registry; print(' '.join(sorted(sys.modules)))"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    assert [name for name in HEAVY if name in loaded] == []


def test_every_argument_of_every_task_has_its_meaning() -> None:
    """The table's docs (or `TaskArguments`' descriptions) cover every declared argument."""
    for row in TASKS:
        assert all(argument.doc for argument in arguments(row.name)), row.name
        assert set(row.docs) <= set(declared_names(getattr(agentsense.tasks, row.name))), row.name
