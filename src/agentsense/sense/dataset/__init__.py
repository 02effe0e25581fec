from agentsense.sense.dataset.samples import load_scenarios, scene_dataset
from agentsense.sense.dataset.schema import MCQ, Character, Goal, Scenario
from agentsense.sense.dataset.validation import DatasetError, read_scenarios

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
