"""Inspect entry point: importing this module registers every task, scorer, metric and provider.

Not the hooks: Inspect lists every registered hook at the start of every run, so AgentSense's are
registered when one of its tasks is built (`tasks/strict.py`).
"""

# ruff: noqa: F401
from agentsense.coser.reference_free import critics
from agentsense.coser.scorer import gca_critics
from agentsense.sense.leakage.script_prediction import script_title
from agentsense.sense.metrics import psi, template_mean
from agentsense.sense.scorers import goal_and_mcq, goal_completion, mcq_accuracy
from agentsense.sense.simulation import simulation
from agentsense.smollm.provider import smollm
from agentsense.standin.provider import standin
from agentsense.tasks import *  # every @task of tasks.__all__  # noqa: F403
