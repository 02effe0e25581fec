from .samples import load_scenarios, scene_dataset
from .schema import MCQ, Character, Goal, Scenario
from .validation import DatasetError, read_scenarios

__all__ = [
    "MCQ",
    "Character",
    "DatasetError",
    "Goal",
    "Scenario",
    "load_scenarios",
    "read_scenarios",
    "scene_dataset",
]
