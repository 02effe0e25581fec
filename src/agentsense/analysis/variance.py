"""Where the spread comes from: a nested variance decomposition of scene scores (docs/analysis.md,
"Variance components"). For the score y of scene s of template t, epoch e, judge repeat k:

    y = mu + T_t + S_ts + C_tse + J_tsek

The components are method-of-moments estimates of the nested ANOVA, level by level from the
bottom, with unweighted means at each level and negative estimates set to 0. A level with no
replication is not estimable: its variance is carried by the level above, named for both.
Intervals of the shares: the percentile bootstrap over templates (`stats.template_bootstrap`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import takewhile

import numpy as np
import pandas as pd
from scipy import stats

from agentsense.analysis.stats import template_bootstrap

# Bottom-up: the column that identifies a unit at each level, and the level's name.
LEVELS = (
    ("repeat", "judging"),
    ("epoch", "conversations"),
    ("scene", "scenes"),
    ("template", "templates"),
)
COMPONENTS = tuple(name for _, name in reversed(LEVELS))  # templates, scenes, ...
COLUMNS = ("template", "scene", "epoch", "repeat", "value")
# What to do to make a level estimable.
REMEDY = {
    "judging": "judge the log twice (inspect score LOG -S repeat=1 --action append)",
    "conversations": "run with --epochs >= 2",
    "scenes": "use templates with 2 or more scenes",
    "templates": "use 2 or more templates",
}
CONFIDENCE = 0.95
RESAMPLES = 1000


@dataclass
class Decomposition:
    """Variance components (None: not estimable, carried by the level above) and the design."""

    variances: dict[str, float | None]
    templates: int
    scenes: int
    mean_scenes: float  # per template
    mean_epochs: float  # per scene
    mean_repeats: float  # per conversation
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)  # shares
    # The clustered half-width the data give at this design (scene means over all epochs and
    # repeats, clustered by template), for comparison with the model's; set by the caller.
    observed_half_width: float = float("nan")

    def total(self) -> float:
        return float(sum(v for v in self.variances.values() if v is not None))

    def shares(self) -> dict[str, float | None]:
        total = self.total()
        return {
            name: (None if v is None else (v / total if total > 0 else 0.0))
            for name, v in self.variances.items()
        }

    def carried_by(self, name: str) -> list[str]:
        """The levels whose variance component `name` carries (itself and the ones below it
        that are not estimable)."""
        below = COMPONENTS[COMPONENTS.index(name) + 1 :]
        return [name, *takewhile(lambda level: self.variances[level] is None, below)]


def _codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit codes 0..n-1 of each row, and the first row of each unit."""
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return inverse.ravel(), first


def _nested(value: np.ndarray, keys: Sequence[np.ndarray]) -> Decomposition:
    """The decomposition of observations `value`, whose units at each level (bottom-up:
    conversation, scene, template) have the integer keys `keys` (unique across parents)."""
    variances: dict[str, float | None] = {}
    sizes: dict[str, float] = {}
    parent_of_row = [_codes(k) for k in keys]
    # `below`: the expected variance a unit's value carries from the levels below it.
    values, below = value.astype(float), np.zeros(len(value))
    parents, first = parent_of_row[0]
    for depth, (unit, name) in enumerate(LEVELS):
        size = np.bincount(parents).astype(float)
        means = np.bincount(parents, values) / size
        df = len(values) - len(size)
        if df > 0:
            mean_square = float(((values - means[parents]) ** 2).sum() / df)
            # Only units with siblings carry information about the spread within a parent.
            noise = float(below[size[parents] > 1].mean())
            variances[name] = max(mean_square - noise, 0.0)
        else:
            variances[name] = None
        sizes[unit] = float(size.mean())
        own = variances[name] or 0.0
        below = (own + np.bincount(parents, below) / size) / size
        values = means
        if depth + 1 < len(LEVELS) - 1:
            codes, next_first = parent_of_row[depth + 1]
            parents = codes[first]  # each unit's parent, through the unit's first row
            first = next_first
        else:
            parents = np.zeros(len(values), dtype=int)  # templates: the grand mean
    return Decomposition(
        variances={name: variances[name] for name in COMPONENTS},
        templates=len(np.unique(keys[-1])),
        scenes=len(np.unique(keys[-2])),
        mean_scenes=sizes["scene"],
        mean_epochs=sizes["epoch"],
        mean_repeats=sizes["repeat"],
    )


def _prepared(frame: pd.DataFrame) -> tuple[np.ndarray, list[np.ndarray]]:
    """One value per (template, scene, epoch, repeat) and the integer keys of its units."""
    missing = [column for column in COLUMNS if column not in frame.columns]
    if missing:
        raise ValueError(f"variance frame lacks columns {missing}; it needs {list(COLUMNS)}")
    keys = ["template", "scene", "epoch", "repeat"]
    data = frame.dropna(subset=["value"]).groupby(keys, sort=False)["value"].mean().reset_index()
    codes = [
        data.groupby(keys[:n], sort=False).ngroup().to_numpy() for n in (3, 2, 1)
    ]  # conversation, scene, template
    return data["value"].to_numpy(dtype=float), codes


def decompose(frame: pd.DataFrame) -> Decomposition:
    """Estimate the four components from one row per (template, scene, epoch, repeat)."""
    value, keys = _prepared(frame)
    if len(value) == 0:
        raise ValueError("no finite value to decompose")
    return _nested(value, keys)


# Rows of copied data one bootstrap batch may hold (a few arrays of this many numbers): bounds the
# memory of a 1,225-scene decomposition's draws, a few MB a batch.
BATCH_ROWS = 500_000


def _copies(
    rows_of: Sequence[np.ndarray], picks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rows of every drawn template copy, in draw order: the row index, the copy's number
    (draw x templates + position) and the draw of each copied row."""
    counts = np.array([len(rows) for rows in rows_of])
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    ordered = np.concatenate(rows_of)
    flat = picks.ravel()
    lengths = counts[flat]
    copy = np.repeat(np.arange(flat.size), lengths)
    within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return ordered[starts[flat][copy] + within], copy, copy // picks.shape[1]


def _batched_shares(
    value: np.ndarray, keys: Sequence[np.ndarray], rows_of: Sequence[np.ndarray], picks: np.ndarray
) -> np.ndarray:
    """`_nested(...).shares()` of every draw of templates in `picks` (draws x templates), as one
    array operation: draws x COMPONENTS, NaN where a level is not estimable. The data of all
    draws are stacked, each copy's units offset to be units of their own, and every per-draw sum
    is a `bincount` over the draw of each unit; the units' means are `_nested`'s, a draw's sums
    of squares may differ from its in the last binary digit (summation order)."""
    draws = picks.shape[0]
    rows, copy, draw_of_row = _copies(rows_of, picks)
    widths = [int(k.max()) + 1 for k in keys]
    codes = [_codes(k[rows] + copy * w) for k, w in zip(keys, widths, strict=True)]
    values, below = value[rows].astype(float), np.zeros(len(rows))
    parents, first = codes[0]
    unit_draw = draw_of_row
    variances = np.full((draws, len(LEVELS)), np.nan)
    for depth in range(len(LEVELS)):
        top = depth + 1 == len(LEVELS)
        # The parent units' draw; templates' parent is the draw's grand mean.
        parent_draw = np.arange(draws) if top else draw_of_row[first]
        if top:
            parents = unit_draw
        size = np.bincount(parents).astype(float)
        means = np.bincount(parents, values) / size
        df = np.bincount(unit_draw, minlength=draws) - np.bincount(parent_draw, minlength=draws)
        squares = np.bincount(unit_draw, (values - means[parents]) ** 2, minlength=draws)
        sibling = size[parents] > 1
        # (float: with no unit that has siblings, `bincount` of no weights is of integers)
        noise = np.bincount(unit_draw[sibling], below[sibling], minlength=draws).astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            noise /= np.bincount(unit_draw[sibling], minlength=draws)
            level = np.where(df > 0, np.maximum(squares / df - noise, 0.0), np.nan)
        variances[:, depth] = level
        own = np.nan_to_num(level)[parent_draw]
        below = (own + np.bincount(parents, below) / size) / size
        values, unit_draw = means, parent_draw
        if depth + 1 < len(LEVELS) - 1:
            next_codes, next_first = codes[depth + 1]
            parents, first = next_codes[first], next_first
    total = np.nansum(variances, axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.where(total > 0, variances / total, np.where(np.isnan(variances), np.nan, 0.0))
    return shares[:, ::-1]  # bottom-up levels to COMPONENTS' top-down order


def with_intervals(
    frame: pd.DataFrame, seed: int = 0, resamples: int = RESAMPLES, level: float = CONFIDENCE
) -> Decomposition:
    """`decompose`, with percentile-bootstrap intervals of the shares (`stats.template_bootstrap`:
    templates resampled with replacement, each copy a template of its own); none with fewer than
    2 templates. The draws are decomposed together (`_batched_shares`), BATCH_ROWS rows at most
    at a time."""
    value, keys = _prepared(frame)
    result = _nested(value, keys)
    template = keys[-1]
    rows_of = [np.flatnonzero(template == t) for t in range(template.max() + 1)]
    if len(rows_of) < 2:
        return result
    per_draw = max(1, BATCH_ROWS // len(value))

    def shares(picks: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [
                _batched_shares(value, keys, rows_of, picks[k : k + per_draw])
                for k in range(0, len(picks), per_draw)
            ]
        )

    low, high = template_bootstrap(shares, len(rows_of), resamples, level, seed)
    result.intervals = {
        name: (float(low[k]), float(high[k]))
        for k, name in enumerate(COMPONENTS)
        if math.isfinite(low[k]) and result.variances[name] is not None
    }
    return result


def projected_half_width(
    result: Decomposition, epochs: float, repeats: float, level: float = CONFIDENCE
) -> float:
    """The half-width of the clustered interval of the mean over the same templates and
    scenes, with `epochs` epochs per scene and `repeats` judge repeats per conversation.
    A component that is not estimable is carried by the level above, so it shrinks with that
    level's replication only (conservative)."""
    v = {name: value or 0.0 for name, value in result.variances.items()}
    within = v["scenes"] + v["conversations"] / epochs + v["judging"] / (epochs * repeats)
    if result.templates < 2:
        return float("nan")
    variance = (v["templates"] + within / result.mean_scenes) / result.templates
    return float(stats.t.ppf((1 + level) / 2, result.templates - 1) * np.sqrt(variance))


def projection(
    result: Decomposition,
    epochs: Sequence[int] = (1, 2, 4, 8),
    repeats: Sequence[int] = (1, 2, 4),
) -> pd.DataFrame:
    """Projected half-widths: one row per number of epochs, one column per number of repeats.
    A count that cannot be projected (its level not estimable) is left out."""
    if result.variances["conversations"] is None:
        epochs = [round(result.mean_epochs)]
    if result.variances["judging"] is None:
        repeats = [round(result.mean_repeats)]
    return pd.DataFrame(
        {k: [projected_half_width(result, e, k) for e in epochs] for k in repeats},
        index=pd.Index(list(epochs), name="epochs"),
    )
