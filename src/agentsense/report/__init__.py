"""From logs to findings: `agentsense report` (tables, figures, statistics) and `compare`.

Modules (the logs are read into frames by `analysis.log_reader`): `settings` (which runs
are comparable, row labels), `frames` (analysis units, epochs averaged), `stats` (intervals and
tests), `tables`, `sensitivity` (App. D.6), `plots`, `render`, `assemble` (the report: `SECTIONS`,
each in `sections/`), `document` (what a section gets and writes) and `compare`.
Import the submodules directly; this package stays import-light.
"""
