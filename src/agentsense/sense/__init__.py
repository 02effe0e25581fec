"""AgentSense (Mou et al., 2024): its tasks, prompts, dataset and schema, scorers, PSI and
template metrics, leakage tests and the paper's published numbers."""
