"""The *Statistics* section: how the report's intervals and tests are computed."""

from __future__ import annotations

from ...analysis.stats import MIN_TEMPLATES
from ..content import Absent, Content
from ..document import Inputs
from .shared import scored_scenes

STATISTICS = f"""## Statistics

- Intervals are 95% and **clustered by template**: the scenes of one template share background,
  goals and questions, so they are not independent. A mean's interval never leaves the metric's
  range ([0, 1] for scores, [−1, 1] for differences): it is the Wilson interval at the
  Korn–Graubard effective sample size p(1 − p)/v, with v the cluster-robust variance of the mean
  (statsmodels OLS on a constant, `cov_type="cluster"` by `template_id`, correction C/(C − 1))
  and a t critical value on C − 1 degrees of freedom, C the number of templates. Inside the range
  it equals mean ± t(C − 1) · SE. Below {MIN_TEMPLATES} templates a cell says "too few
  templates (k)"; with 1 template the interval is "undefined (1 template)". n counts the units
  (scenes for scene scores, goals for goal categories, questions for attack/defence); a scene
  counts once per row, its conversations (epochs, and the same scene in several logs of the row)
  averaged first. The naive intervals (units independent) are in the Uncertainty section.
- PSI [95% percentile bootstrap] over templates (whole templates resampled with replacement,
  2000 resamples, fixed seed); PSI skips templates with fewer than 2 scored scenes (an
  official-mode log's own PSI metric is NaN then, as in the official code).
- Judge agreement: Fleiss' κ (statsmodels), Krippendorff's α (krippendorff), Cohen's κ
  (scikit-learn); see the Judge reliability section.
- Chi-square test of App. D.6: chi2 = (n − 1)·s²/σ0², two-sided, see `docs/analysis.md`."""


def statistics_section(inputs: Inputs) -> Content:
    if scored_scenes(inputs.units).empty:
        return Absent("no scored sample of a model run")
    return STATISTICS
