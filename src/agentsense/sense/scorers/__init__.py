"""AgentSense's scorers: the interview (goals and MCQs) and how its answers are read; the
scorers are registered by name in `agentsense.sense`."""
