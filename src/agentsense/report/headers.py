"""The headers of the report's table columns: score key -> header.

Score keys are headed as `score_keys.HEADERS` declares them (a declared key is headed without an
edit here); the columns the report computes itself are headed here.
"""

from agentsense.sense.score_keys import HEADERS as SCORE_HEADERS

HEADERS = {
    "kind": "Run",
    **SCORE_HEADERS,
    "goal_psi": "Goal PSI ↓",
    "mcq_psi": "MCQ PSI ↓",
    "gain_over_blind": "MCQ − blind (paired)",
    "attack": "Attack",
    "defence": "Defence",
    "overconfidence": "Self − judge majority",
}
