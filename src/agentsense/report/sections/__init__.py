"""The sections of `agentsense report`, one module per group of related sections.

A section is a function of the `document.Inputs` that returns its Markdown (writing its CSVs and
figures through `inputs.report`), or `Absent(why)` when its inputs are missing; it must not raise
on missing data. The sections of the logs that are not model runs (`other_tasks`) take the other
logs and the report instead. `report.assemble.SECTIONS` lists them in report order, by title.
"""
