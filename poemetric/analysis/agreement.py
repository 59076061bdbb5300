"""Inter-rater agreement statistics (paper Sec. 6.4, App. D), implemented with numpy.

Ratings are float arrays with NaN for "not rated". Two-rater statistics take two aligned
arrays (one entry per rated unit); Krippendorff's alpha takes a coders x units matrix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval", "ratio"]
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
    With complete pairs it is the share of identical ratings.
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


def _table(
    x: np.ndarray, y: np.ndarray, categories: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray]:
    cats = (
        np.unique(np.concatenate([x, y])) if categories is None else np.asarray(categories, float)
    )
    positions = []
    for ratings in (x, y):
        index = np.clip(np.searchsorted(cats, ratings), 0, len(cats) - 1)
        unknown = cats[index] != ratings
        if unknown.any():
            raise ValueError(f"rating {ratings[unknown][0]} is not among the categories {cats}")
        positions.append(index)
    table = np.zeros((len(cats), len(cats)))
    np.add.at(table, (positions[0], positions[1]), 1)
    return table / table.sum(), cats


def _disagreement_weights(cats: np.ndarray, weights: Weights) -> np.ndarray:
    """0 on the diagonal, 1 for the farthest pair (linear or quadratic in category distance)."""
    position = np.arange(len(cats), dtype=float)
    distance = np.abs(position[:, None] - position[None, :])
    span = max(len(cats) - 1, 1)
    if weights is None:
        return (distance > 0).astype(float)
    if weights == "linear":
        return distance / span
    if weights == "quadratic":
        return (distance / span) ** 2
    raise ValueError(f"unknown weights {weights!r}; use None, 'linear' or 'quadratic'")


def cohen_kappa(
    a: ArrayLike, b: ArrayLike, *, weights: Weights = None, categories: ArrayLike | None = None
) -> float:
    """Cohen's kappa for two raters, optionally linear- or quadratic-weighted.

    `categories` fixes the ordered scale (default: the values seen); weights depend on category
    positions, so pass the full scale (e.g. 1..5) to compare runs.
    """
    x, y = _complete(a, b)
    if x.size == 0:
        return math.nan
    observed, cats = _table(x, y, categories)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    w = _disagreement_weights(cats, weights)
    expected_disagreement = float((w * expected).sum())
    if expected_disagreement == 0:
        return math.nan
    return 1 - float((w * observed).sum()) / expected_disagreement


def gwet_ac(
    a: ArrayLike, b: ArrayLike, *, weights: Weights = None, categories: ArrayLike | None = None
) -> float:
    """Gwet's AC1 (weights=None) or AC2 (weighted) for two raters (Gwet 2014, ch. 2-3)."""
    x, y = _complete(a, b)
    if x.size == 0:
        return math.nan
    observed, cats = _table(x, y, categories)
    q = len(cats)
    if q < 2:
        return math.nan
    agreement_weights = 1 - _disagreement_weights(cats, weights)
    p_a = float((agreement_weights * observed).sum())
    pi = (observed.sum(axis=1) + observed.sum(axis=0)) / 2
    p_e = float(agreement_weights.sum()) / (q * (q - 1)) * float((pi * (1 - pi)).sum())
    return (p_a - p_e) / (1 - p_e) if p_e != 1 else math.nan


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks with ties averaged (fast for the few distinct values of a rating scale)."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    below = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return np.asarray(below[inverse] + (counts[inverse] + 1) / 2, dtype=float)


def spearman(a: ArrayLike, b: ArrayLike) -> float:
    """Spearman's rank correlation over the units both raters rated (NaN if constant)."""
    x, y = _complete(a, b)
    if x.size < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return math.nan
    rx, ry = _average_ranks(x), _average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    return float((rx @ ry) / math.sqrt(float(rx @ rx) * float(ry @ ry)))


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
    values = np.unique(data[np.isfinite(data)])
    if values.size < 2:
        return math.nan
    # counts[u, c]: how many coders gave value c to unit u.
    counts = np.stack([(data == v).sum(axis=0) for v in values], axis=1).astype(float)
    pairable = counts.sum(axis=1)
    counts, pairable = counts[pairable >= 2], pairable[pairable >= 2]
    if counts.size == 0:
        return math.nan
    coincidences = np.einsum("uc,uk->ck", counts / (pairable - 1)[:, None], counts)
    coincidences -= np.diag((counts / (pairable - 1)[:, None]).sum(axis=0))
    n_c = coincidences.sum(axis=1)
    n = n_c.sum()
    delta = _alpha_distance(values, n_c, level)
    observed = float((coincidences * delta).sum()) / n
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n * (n - 1))
    return 1 - observed / expected if expected > 0 else math.nan


def _alpha_distance(values: np.ndarray, n_c: np.ndarray, level: Level) -> np.ndarray:
    """Squared difference function delta^2(c, k) of Krippendorff's alpha."""
    if level == "nominal":
        return 1 - np.eye(len(values))
    if level == "interval":
        return (values[:, None] - values[None, :]) ** 2
    if level == "ratio":
        total = values[:, None] + values[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(total == 0, 0.0, (values[:, None] - values[None, :]) / total)
        return np.asarray(ratio**2)
    if level == "ordinal":
        cumulative = np.cumsum(n_c)
        low = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
        high = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
        between = cumulative[high] - cumulative[low] + n_c[low]  # sum of n_g for g in [low, high]
        return np.asarray((between - (n_c[low] + n_c[high]) / 2) ** 2)
    raise ValueError(f"unknown level {level!r}; use nominal, ordinal, interval or ratio")
