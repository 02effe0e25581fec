"""The paper's published numbers (Tables 1, 2, 6, 7) and its model names, for the report.

No task run imports this package; docs/reference.md describes the data files.
"""
