"""Inspect entry point: importing this module registers every task, scorer, metric and provider."""

# ruff: noqa: F401
from .gca.reference_free import critics
from .gca.scorer import gca_critics
from .metrics import psi, template_mean
from .models.smollm import smollm
from .models.standin import standin
from .request_format import RequestFormatCheck
from .scorers import goal_and_mcq, goal_completion, mcq_accuracy
from .scorers.judge_panel import SelfJudgingCheck
from .solvers import simulation
from .tasks import blind, construct, full, gca, goal, info, judge_check, labelling, pairwise
