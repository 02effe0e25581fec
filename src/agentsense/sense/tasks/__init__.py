"""AgentSense tasks: the simulation tasks and the leakage and judge checks."""
