"""The smallest Inspect task that calls a model: the start-up baseline of benchmarks/startup.py."""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.solver import generate


@task
def empty() -> Task:
    return Task(dataset=[Sample(input="Say hi.")], solver=generate())
