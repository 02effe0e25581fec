from .blind import blind
from .homogeneous import full, goal, info
from .labelling import labelling
from .pairwise import pairwise

__all__ = ["blind", "full", "goal", "info", "labelling", "pairwise"]
