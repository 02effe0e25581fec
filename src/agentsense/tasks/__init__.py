from .homogeneous import full, goal, info

__all__ = ["full", "goal", "info"]
