"""Inspect entry point: importing this module registers every task, scorer, metric and provider.

Not the hooks: Inspect lists every registered hook at the start of every run, so AgentSense's are
registered when one of its tasks is built (`tasks/strict.py`).
"""

# ruff: noqa: F401
from .gca.reference_free import critics
from .gca.scorer import gca_critics
from .leakage.script_prediction import script_title
from .metrics import psi, template_mean
from .models.smollm import smollm
from .models.standin import standin
from .scorers import goal_and_mcq, goal_completion, mcq_accuracy
from .solvers import simulation
from .tasks import *  # every @task of tasks.__all__  # noqa: F403
