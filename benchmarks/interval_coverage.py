"""Coverage of the report's 95% intervals on simulated AgentSense-like scores (prints a table).

Each simulated run has C templates of 5 scenes; a template's success rate is drawn from a Beta
around the true mean (templates differ), and a scene's score is the share of 4 yes/no answers
(goals) at that rate. The true mean is known, so the share of intervals that contain it is the
coverage. Compared: the clustered t interval (mean ± t(C - 1) · SE, what the log's `ci` gives)
and the report's Wilson interval at the Korn-Graubard effective sample size
(`report.stats.clustered_mean_ci`), plus how often the t interval leaves [0, 1].

    python benchmarks/interval_coverage.py [--runs 1000]
"""

from __future__ import annotations

import argparse

import numpy as np

from agentsense.analysis.stats import cluster_fit, clustered_mean_ci

SCENES, GOALS, SPREAD = 5, 4, 8.0  # Beta(mean * SPREAD, (1 - mean) * SPREAD) per template


def simulate(
    rng: np.random.Generator, templates: int, mean: float
) -> tuple[list[float], list[int]]:
    rates = rng.beta(mean * SPREAD, (1 - mean) * SPREAD, size=templates)
    values = [rng.binomial(GOALS, rate) / GOALS for rate in rates for _ in range(SCENES)]
    return values, [t for t in range(templates) for _ in range(SCENES)]


def coverage(runs: int, templates: int, mean: float, seed: int = 0) -> tuple[float, float, float]:
    rng = np.random.default_rng(seed)
    t_hits = wilson_hits = t_outside = defined = 0
    for _ in range(runs):
        values, groups = simulate(rng, templates, mean)
        t_interval = cluster_fit(values, groups).interval()
        bounded = clustered_mean_ci(values, groups)
        if np.isnan(bounded.low):
            continue
        defined += 1
        t_hits += t_interval.low <= mean <= t_interval.high
        wilson_hits += bounded.low <= mean <= bounded.high
        t_outside += t_interval.low < 0 or t_interval.high > 1
    return t_hits / defined, wilson_hits / defined, t_outside / defined


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    args = parser.parse_args()
    print("| templates | true mean | t coverage | Wilson (report) coverage | t leaves [0, 1] |")
    print("|---|---|---|---|---|")
    for templates in (2, 3, 4, 5, 8, 20):
        for mean in (0.05, 0.2, 0.5):
            t_cov, w_cov, outside = coverage(args.runs, templates, mean)
            print(f"| {templates} | {mean} | {t_cov:.3f} | {w_cov:.3f} | {outside:.3f} |")


if __name__ == "__main__":
    main()
