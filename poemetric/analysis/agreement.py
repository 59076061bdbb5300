"""Two-rater and coders x units agreement statistics (paper Sec. 6.4, App. D).

Thin entry points over `poemetric.reliability` (which computes every coefficient from
contingency tables, coincidence matrices and Gwet's unit terms) for callers holding plain
arrays. Ratings are float arrays with NaN for "not rated". Two-rater statistics take two aligned
arrays (one entry per rated unit); Krippendorff's alpha takes a coders x units matrix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from poemetric.reliability import coefficients as co

Level = co.Level
Weights = Literal["linear", "quadratic"] | None

ArrayLike = Sequence[float] | np.ndarray


def _pair(a: ArrayLike, b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"two raters need aligned 1-D ratings, got shapes {x.shape} and {y.shape}")
    return x, y


def pao(a: ArrayLike, b: ArrayLike) -> float:
    """Observed proportion agreement PAo = 2A / (nA + nB) (Neuendorf 2017).

    nA and nB count each rater's ratings (NaN = not rated); A counts units both rated alike.
    With complete pairs it is the share of identical ratings. With missing ratings it is the
    literal formula, a unit only one rater rated counting against agreement; the agreement
    tables (`poemetric agree`, `analyze`) take PAo over the units both rated, the paper's use
    (docs/agreement.md): pass only the complete pairs for their number.
    """
    x, y = _pair(a, b)
    n_a, n_b = int(np.isfinite(x).sum()), int(np.isfinite(y).sum())
    if n_a + n_b == 0:
        return math.nan
    agreements = int(np.sum(np.isfinite(x) & np.isfinite(y) & (x == y)))
    return 2 * agreements / (n_a + n_b)


def _complete(a: ArrayLike, b: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x, y = _pair(a, b)
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


def _positions(values: np.ndarray, cats: np.ndarray) -> np.ndarray:
    index = np.clip(np.searchsorted(cats, values), 0, len(cats) - 1)
    unknown = cats[index] != values
    if unknown.any():
        raise ValueError(f"rating {values[unknown][0]} is not among the categories {cats}")
    return index


def _scale(categories: ArrayLike) -> np.ndarray:
    """The categories as a scale: its distinct values in increasing order, as `--scale` and
    `Ratings` read one. Given as listed, `[5, 4, 3, 2, 1]` refused every rating (the positions
    were searched in a descending array) and a repeated value counted as a category of its own
    (Gwet's q)."""
    return np.unique(np.asarray(categories, dtype=float))


def _table(
    x: np.ndarray, y: np.ndarray, categories: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray]:
    """The two raters' contingency table (counts) over the categories, and the categories."""
    cats = np.unique(np.concatenate([x, y])) if categories is None else _scale(categories)
    table = np.zeros((len(cats), len(cats)))
    np.add.at(table, (_positions(x, cats), _positions(y, cats)), 1)
    return table, cats


def cohen_kappa(
    a: ArrayLike, b: ArrayLike, *, weights: Weights = None, categories: ArrayLike | None = None
) -> float:
    """Cohen's kappa for two raters, optionally linear- or quadratic-weighted.

    `categories` fixes the scale (default: the values seen), in increasing order of value
    whatever order it is listed in; weights depend on category positions, so pass the full
    scale (e.g. 1..5) to compare runs.
    """
    x, y = _complete(a, b)
    if x.size == 0:
        return math.nan
    table, _ = _table(x, y, categories)
    return float(co.kappa(table, weights or "identity"))


def gwet_ac(
    a: ArrayLike, b: ArrayLike, *, weights: Weights = None, categories: ArrayLike | None = None
) -> float:
    """Gwet's AC1 (weights=None) or AC2 (weighted) for two raters over the units both rated
    (Gwet 2014, ch. 2-3). For many raters with missing ratings see `gwet_ac_raters`."""
    x, y = _complete(a, b)
    if x.size == 0:
        return math.nan
    return gwet_ac_raters(np.vstack([x, y]), weights=weights, categories=categories)


def gwet_ac_raters(
    ratings: ArrayLike | Sequence[Sequence[float]],
    *,
    weights: Weights = None,
    categories: ArrayLike | None = None,
) -> float:
    """Gwet's AC1/AC2 for a raters x units matrix with missing ratings (NaN), as Gwet defines
    it: p_a over the units rated at least twice, the category shares over all rated units."""
    data = np.asarray(ratings, dtype=float)
    if data.ndim != 2:
        raise ValueError("ratings must be a raters x units matrix")
    seen = np.unique(data[np.isfinite(data)])
    cats = seen if categories is None else _scale(categories)
    if cats.size < 2:
        return math.nan
    counts = _unit_counts(data, cats)
    agreement_weights = co.gwet_weights(cats, weights or "identity")
    raters = counts.sum(axis=1)
    shares = co.safe_divide(counts, raters[:, None])
    return float(
        co.gwet_ac(
            co.unit_gwet_terms(counts, agreement_weights).sum(),
            (raters >= 2).sum(),
            np.nan_to_num(shares).sum(axis=0),
            (raters >= 1).sum(),
            agreement_weights,
        )
    )


def _unit_counts(data: np.ndarray, cats: np.ndarray) -> np.ndarray:
    """units x categories: how many raters gave each category to each unit."""
    finite = data[np.isfinite(data)]
    _positions(finite, cats)  # raises for a value outside the categories
    return np.stack([(data == v).sum(axis=0) for v in cats], axis=1).astype(float)


def spearman(a: ArrayLike, b: ArrayLike) -> float:
    """Spearman's rank correlation over the units both raters rated (NaN if constant)."""
    x, y = _complete(a, b)
    if x.size < 3:
        return math.nan
    table, _ = _table(x, y, None)
    return float(co.spearman(table))


def kendall(a: ArrayLike, b: ArrayLike) -> float:
    """Kendall's tau-b over the units both raters rated (NaN if constant)."""
    x, y = _complete(a, b)
    if x.size < 2:
        return math.nan
    table, _ = _table(x, y, None)
    return float(co.kendall_tau_b(table))


def krippendorff_alpha(
    reliability_data: ArrayLike | Sequence[Sequence[float]], *, level: Level = "interval"
) -> float:
    """Krippendorff's alpha for any number of coders with missing values (NaN).

    `reliability_data` is coders x units. Units with fewer than two values are not pairable and
    are ignored. Uses the coincidence-matrix formulation of Krippendorff (2011).
    """
    data = np.asarray(reliability_data, dtype=float)
    if data.ndim != 2:
        raise ValueError("reliability data must be a coders x units matrix")
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"unknown level {level!r}; use nominal, ordinal, interval or ratio")
    values = np.unique(data[np.isfinite(data)])
    if values.size < 2:
        return math.nan
    coincidences = co.unit_coincidences(_unit_counts(data, values)).sum(axis=0)
    return float(co.alpha(coincidences, values, level))
