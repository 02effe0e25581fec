"""Transcript scanners for agentsense logs, run with Inspect Scout (`pip install agentsense[scout]`,
Python 3.11+): `scout scan src/agentsense/scanners/scanjob.py -T LOGS` (docs/scanners.md).

`detect` holds the pattern rules (no Scout import), `patterns` and `llm` the Scout scanners,
`scanjob` all of them in one scan job, `validate` their precision and recall on the labelled
turns in `validation/`. Nothing here is imported by a run.
"""
