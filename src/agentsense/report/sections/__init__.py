"""The sections of `agentsense report`, one module per section or per group of related ones.

A section is a function of the `document.Inputs` that returns its Markdown (writing its CSVs and
figures through `inputs.report`), or `Absent(why)` when its inputs are missing; it must not raise
on missing data. `report.assemble.SECTIONS` lists them in report order, by title. Sections with
a computation of their own keep it in their module in `report/` (`table_two`, `repeated`,
`variance_components`, `usage`, `judge_check_section`, `construction`, `gca`).
"""
