"""The scene core shared by simulation and scoring: conversation, personas, interviews, judges."""
