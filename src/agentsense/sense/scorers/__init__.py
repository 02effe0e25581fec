from agentsense.sense.scorers.scoring import goal_and_mcq, goal_completion, mcq_accuracy

__all__ = ["goal_and_mcq", "goal_completion", "mcq_accuracy"]
