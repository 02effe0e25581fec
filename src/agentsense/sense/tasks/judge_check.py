"""`agentsense/judge_check`: is a judge fit to judge? Yes/no questions whose truth is known.

The items are `dataset/judge_check_items.py`; the judges' request, the store, the solver, the
verdict reader, the scorer and the metrics (accuracy, false yes, consistency, unreadable, per
judge) are `scorers/judge_check_verdicts.py`.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from agentsense.engine.strict import strict_arguments
from agentsense.engine.version import eval_version
from agentsense.sense.dataset.judge_check_items import BUNDLED, load_items
from agentsense.sense.protocol import Mode
from agentsense.sense.scorers.judge_check_verdicts import ask_judges, judge_verdicts, to_sample
from agentsense.sense.tasks.common import TaskArguments, task_metadata

# No conversation and no MCQs: only the judges' settings apply.
JUDGE_CHECK_EXCLUDES = ("seed", "max_messages", "agent_temperature", "option_mark")


@task
@strict_arguments
def judge_check(
    dataset: str = BUNDLED,
    protocol: Mode = "official",
    judge_temperature: float = 0.0,
    max_tokens: int = 128,
) -> Task:
    """Judge meta-evaluation on transcripts whose yes/no truth is known by construction.

    Args:
        dataset: the bundled transcripts (default), or the path of a JSONL file of items.
    """
    settings = TaskArguments.parse(locals(), exclude=JUDGE_CHECK_EXCLUDES).settings
    items = load_items(dataset)
    name = "agentsense-judge_check" if dataset == BUNDLED else dataset
    return Task(
        dataset=MemoryDataset([to_sample(item, settings) for item in items], name=name),
        solver=ask_judges(settings),
        scorer=judge_verdicts(),
        version=eval_version().comparability_version,
        metadata=task_metadata(dataset, settings.model_dump(), seed=None),
    )
