"""What every benchmark here runs on: the scene loop, who sees which message, speaker choice,
request format, judge panel, transcript, seeding, model roles and errors."""
