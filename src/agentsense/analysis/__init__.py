"""Analysis of AgentSense logs beyond the headline scores: judge-panel agreement, uncertainty
clustered by template, and the power of paired comparisons.

Each function takes a tidy pandas frame (see `sample_rows.ANSWER_COLUMNS`), so it works on the
frames the report builds and on frames a user builds with `inspect_ai.analysis`.
"""

from agentsense.analysis.agreement import panel_agreement
from agentsense.analysis.log_reader import goal_answers
from agentsense.analysis.sample_rows import ANSWER_COLUMNS

__all__ = ["ANSWER_COLUMNS", "goal_answers", "panel_agreement"]
