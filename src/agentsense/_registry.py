"""Inspect's entry point: importing this module registers every task, scorer, metric, solver and
provider of the package by name, loading none of the code behind them.

The tasks come from the task table (`agentsense.tasks`). The scorers, metrics and solvers a log
names (`inspect score LOG`, `--scorer agentsense/critics`, a metric recomputed from a log) are
registered by `lazy`, which imports the defining module when the object is first made; that
module then registers the real object under the same name. The providers import their code in
the same way, as Inspect's own do. Not the hooks: Inspect lists every registered hook at the
start of every run, so AgentSense's are registered when one of its tasks is built.
"""

# ruff: noqa: F401
from agentsense.lazy import REGISTERED
from agentsense.tasks import *  # every @task of the table  # noqa: F403
