"""The paper's leakage checks (§4.3, Table 2): can a model name the script a scenario came from,
and answer its MCQs without the conversation?

- `titles`: the truth, the title of each scenario's original script (its `source`, or a mapping
  file `template_idx -> title`);
- `script_answers`: the answer rule, tolerant of case, articles and punctuation;
- `script_prediction`: the samples and the scorer of `agentsense/script_prediction`;
- `blind_test`: the solver, store and scorer of `agentsense/blind` (MCQs with no conversation).
"""
