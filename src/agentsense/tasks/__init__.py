from .blind import blind
from .construct import construct
from .homogeneous import full, goal, info
from .judge_check import judge_check
from .labelling import labelling
from .pairwise import pairwise

__all__ = [
    "blind",
    "construct",
    "full",
    "goal",
    "info",
    "judge_check",
    "labelling",
    "pairwise",
]
