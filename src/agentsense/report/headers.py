"""The headers of the report's table columns: score key -> header."""

HEADERS = {
    "kind": "Run",
    "self": "Self",
    "other": "Other",
    "judge_mean": "Judge mean",
    "judge_majority": "Judge majority",
    "goal_psi": "Goal PSI ↓",
    "mcq_accuracy": "MCQ acc.",
    "mcq_psi": "MCQ PSI ↓",
    "blind_mcq_accuracy": "Blind acc.",
    "script_accuracy": "Script acc.",
    "gain_over_blind": "MCQ − blind (paired)",
    "attack": "Attack",
    "defence": "Defence",
    "overconfidence": "Self − judge majority",
    "type_agreement": "Scenario type",
    "category_agreement": "Goal category",
    "role_agreement": "Role",
}
