from agentsense.construction.construct_task import construct
from agentsense.construction.labelling_task import labelling
from agentsense.coser.task import gca
from agentsense.sense.tasks.blind import blind
from agentsense.sense.tasks.homogeneous import full, goal, info
from agentsense.sense.tasks.judge_check import judge_check
from agentsense.sense.tasks.pairwise import pairwise
from agentsense.sense.tasks.script_prediction import script_prediction

__all__ = [
    "blind",
    "construct",
    "full",
    "gca",
    "goal",
    "info",
    "judge_check",
    "labelling",
    "pairwise",
    "script_prediction",
]
