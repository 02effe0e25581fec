"""AgentSense (Mou et al., arXiv 2410.19346) as an Inspect AI task suite."""

__version__ = "0.1.0"
