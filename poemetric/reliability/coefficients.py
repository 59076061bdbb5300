"""Agreement coefficients computed from sums of per-unit statistics.

Every coefficient here is a function of sums over units: a contingency table per rater pair
(PAo, adjacent agreement, weighted kappa, Spearman, Kendall), Krippendorff's coincidence matrix,
and Gwet's per-unit agreement and category shares. A bootstrap resample of units is then just
another weighting of the same per-unit rows (a unit drawn twice counts twice), so thousands of
resamples cost one matrix product instead of thousands of recomputations (see `features.py`).

All functions accept leading batch dimensions (resamples, rater pairs) and return NaN where a
coefficient is undefined (no pairs, no variance, no expected disagreement).
"""

from __future__ import annotations

import warnings
from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval", "ratio"]
GwetWeights = Literal["identity", "linear", "quadratic"]
GWET_WEIGHTS: tuple[GwetWeights, ...] = ("identity", "linear", "quadratic")


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan
        )


# -- rater pairs: contingency tables (..., K, K) -------------------------------------------------


def share_agreeing(tables: np.ndarray, agreeing: np.ndarray) -> np.ndarray:
    """Share of paired ratings falling in the `agreeing` cells (a K x K boolean mask)."""
    total = tables.sum(axis=(-2, -1))
    return safe_divide((tables * agreeing).sum(axis=(-2, -1)), total)


def kappa(tables: np.ndarray, weights: Literal["identity", "linear", "quadratic"]) -> np.ndarray:
    """Cohen's kappa of each table; weights grow with the distance of category positions."""
    k = tables.shape[-1]
    position = np.arange(k, dtype=float)
    distance = np.abs(position[:, None] - position[None, :]) / max(k - 1, 1)
    disagreement = {
        "identity": (distance > 0).astype(float),
        "linear": distance,
        "quadratic": distance**2,
    }[weights]
    total = tables.sum(axis=(-2, -1))
    rows, cols = tables.sum(axis=-1), tables.sum(axis=-2)
    expected = rows[..., :, None] * cols[..., None, :]
    observed_d = (tables * disagreement).sum(axis=(-2, -1))
    expected_d = safe_divide((expected * disagreement).sum(axis=(-2, -1)), total)
    return 1 - safe_divide(observed_d, expected_d)


def _midranks(margin: np.ndarray) -> np.ndarray:
    """Average rank of each category given its (weighted) count, ties sharing their ranks."""
    below = np.cumsum(margin, axis=-1) - margin
    return below + (margin + 1) / 2


def spearman(tables: np.ndarray) -> np.ndarray:
    """Spearman's rho with tied ranks averaged (SciPy's `spearmanr` on the expanded pairs)."""
    total = tables.sum(axis=(-2, -1))
    rows, cols = tables.sum(axis=-1), tables.sum(axis=-2)
    mean = (total + 1)[..., None] / 2
    x, y = _midranks(rows) - mean, _midranks(cols) - mean
    covariance = np.einsum("...i,...ij,...j->...", x, tables, y)
    variance = (rows * x**2).sum(axis=-1) * (cols * y**2).sum(axis=-1)
    rho = safe_divide(covariance, np.sqrt(variance))
    return np.where(total >= 3, rho, np.nan)


def kendall_tau_b(tables: np.ndarray) -> np.ndarray:
    """Kendall's tau-b (SciPy's `kendalltau` default) from concordant and discordant pairs."""
    # above[i, j] = sum of cells strictly below-right of (i, j): the pairs concordant with it.
    suffix = tables[..., ::-1, ::-1].cumsum(axis=-1).cumsum(axis=-2)[..., ::-1, ::-1]
    below_right = np.zeros_like(tables)
    below_right[..., :-1, :-1] = suffix[..., 1:, 1:]
    # below_left[i, j] = cells with a larger row and a smaller column: discordant pairs.
    down = tables[..., ::-1, :].cumsum(axis=-2)[..., ::-1, :].cumsum(axis=-1)
    below_left = np.zeros_like(tables)
    below_left[..., :-1, 1:] = down[..., 1:, :-1]
    concordant = (tables * below_right).sum(axis=(-2, -1))
    discordant = (tables * below_left).sum(axis=(-2, -1))
    total = tables.sum(axis=(-2, -1))
    rows, cols = tables.sum(axis=-1), tables.sum(axis=-2)
    pairs = total * (total - 1) / 2
    untied_x = pairs - (rows * (rows - 1) / 2).sum(axis=-1)
    untied_y = pairs - (cols * (cols - 1) / 2).sum(axis=-1)
    return safe_divide(concordant - discordant, np.sqrt(untied_x * untied_y))


def nanmean_over(values: np.ndarray, axis: int) -> np.ndarray:
    """Mean of the defined values along `axis` (NaN where none is defined), without warnings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.nanmean(values, axis=axis))


# -- Krippendorff's alpha: coincidence matrices (..., n, n) -------------------------------------


def unit_coincidences(counts: np.ndarray) -> np.ndarray:
    """Each unit's contribution to the coincidence matrix: (c c' - diag c) / (m - 1), m >= 2.

    `counts[..., c]` = how many coders gave value c to the unit.
    """
    pairable = counts.sum(axis=-1, keepdims=True)
    scaled = safe_divide(counts, pairable - 1)
    scaled = np.where(pairable >= 2, scaled, 0.0)
    outer = scaled[..., :, None] * counts[..., None, :]
    diagonal = np.einsum("...i,ij->...ij", scaled, np.eye(counts.shape[-1]))
    return np.asarray(outer - diagonal)


def alpha(coincidences: np.ndarray, values: np.ndarray, level: Level) -> np.ndarray:
    """Krippendorff's alpha from coincidence matrices (Krippendorff 2011)."""
    n_c = coincidences.sum(axis=-1)
    n = n_c.sum(axis=-1)
    delta = _alpha_distance(values, n_c, level)
    observed = safe_divide((coincidences * delta).sum(axis=(-2, -1)), n)
    expected = safe_divide(
        (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-2, -1)), n * (n - 1)
    )
    return 1 - safe_divide(observed, expected)


def _alpha_distance(values: np.ndarray, n_c: np.ndarray, level: Level) -> np.ndarray:
    """Squared difference function delta^2(c, k); ordinal depends on the value frequencies."""
    if level == "nominal":
        return 1 - np.eye(len(values))
    if level == "interval":
        return np.asarray((values[:, None] - values[None, :]) ** 2)
    if level == "ratio":
        total = values[:, None] + values[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(total == 0, 0.0, (values[:, None] - values[None, :]) / total)
        return np.asarray(ratio**2)
    if level == "ordinal":
        index = np.arange(len(values))
        low, high = np.minimum.outer(index, index), np.maximum.outer(index, index)
        cumulative = np.cumsum(n_c, axis=-1)
        # sum of n_g for g in [low, high], minus half the two end frequencies
        between = cumulative[..., high] - cumulative[..., low] + n_c[..., low]
        return np.asarray((between - (n_c[..., low] + n_c[..., high]) / 2) ** 2)
    raise ValueError(f"unknown level {level!r}; use nominal, ordinal, interval or ratio")


# -- Gwet's AC1 / AC2 for any number of raters with missing ratings (Gwet 2014, ch. 3) ----------


def gwet_weights(values: np.ndarray, weights: GwetWeights) -> np.ndarray:
    """Agreement weights on the category values, as Gwet defines them (1 on the diagonal)."""
    span = float(values.max() - values.min()) if len(values) > 1 else 1.0
    difference = np.abs(values[:, None] - values[None, :]) / span
    if weights == "identity":
        return np.eye(len(values))
    if weights == "linear":
        return np.asarray(1 - difference)
    if weights == "quadratic":
        return np.asarray(1 - difference**2)
    raise ValueError(f"unknown weights {weights!r}; use identity, linear or quadratic")


def unit_gwet_terms(counts: np.ndarray, agreement_weights: np.ndarray) -> np.ndarray:
    """Per unit: its weighted agreement sum_k r_k (r*_k - 1) / (r (r - 1)) where r >= 2, else 0."""
    raters = counts.sum(axis=-1)
    weighted = counts @ agreement_weights.T
    agreeing = (counts * (weighted - 1)).sum(axis=-1)
    return np.where(raters >= 2, safe_divide(agreeing, raters * (raters - 1)), 0.0)


def gwet_ac(
    agreement_sum: np.ndarray,
    units_pairable: np.ndarray,
    share_sums: np.ndarray,
    units_rated: np.ndarray,
    agreement_weights: np.ndarray,
) -> np.ndarray:
    """Gwet's AC from summed unit terms: p_a over units with >= 2 ratings, the category
    shares pi_k over units with >= 1 rating, p_e = T_w / (q (q - 1)) * sum pi_k (1 - pi_k)."""
    q = agreement_weights.shape[0]
    if q < 2:
        return np.full(np.shape(agreement_sum), np.nan)
    p_a = safe_divide(agreement_sum, units_pairable)
    pi = safe_divide(share_sums, units_rated[..., None])
    p_e = agreement_weights.sum() / (q * (q - 1)) * (pi * (1 - pi)).sum(axis=-1)
    return safe_divide(p_a - p_e, 1 - p_e)
