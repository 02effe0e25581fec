from .blind import blind
from .construct import construct
from .gca import gca
from .homogeneous import full, goal, info
from .judge_check import judge_check
from .labelling import labelling
from .pairwise import pairwise
from .script_prediction import script_prediction

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
