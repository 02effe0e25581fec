"""From frames to findings: `agentsense report` (tables, figures, statistics), `compare`,
`annotate`, `labels` and `stats`.

Modules (the logs are read into frames by `analysis.log_reader`): `frames` (which runs are
comparable, their row labels and the analysis units, epochs averaged), `tables`, `plots`,
`render`, `assemble` (the report: `SECTIONS`, each in `sections/`), `document` (what a section
gets and writes), `other_logs` (the logs that are not model runs), `compare`, `annotate`,
`labels`, `dataset_counts`, `out_folder`, `paper` (the paper beside a run) and `register` (the
Register's evaluation report). Import the submodules directly; this package stays import-light.
"""
