"""Scenario construction from screenplays (paper section 3.2, App. A): `agentsense/construct`."""
