"""Agreement per item and pooled over items, with percentile bootstrap CIs over units."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from poemetric.reliability.features import STATISTICS, coefficients_from_sums, unit_features
from poemetric.reliability.ratings import Ratings

OVERALL = "overall"
#: Statistics bounded to [-1, 1] (all but the two shares, which live in [0, 1]).
SHARES = frozenset({"pao", "adjacent"})
#: Resamples whose matrix product is done at once (bounds memory on large rating sets).
CHUNK = 256


@dataclass
class Agreement:
    """The statistics of one item (or pooled): estimates, CI bounds and counts."""

    counts: dict[str, int]
    estimates: dict[str, float]
    ci_low: dict[str, float] = field(default_factory=dict)
    ci_high: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: counts, then per statistic {"estimate", "ci_low", "ci_high"} (null = NaN)."""
        out: dict[str, Any] = dict(self.counts)
        for name in STATISTICS:
            out[name] = {
                "estimate": _json_float(self.estimates[name]),
                "ci_low": _json_float(self.ci_low.get(name, math.nan)),
                "ci_high": _json_float(self.ci_high.get(name, math.nan)),
            }
        return out

    def as_row(self) -> dict[str, float | int]:
        """Flat: counts, each statistic and its `_ci_low` / `_ci_high`."""
        row: dict[str, float | int] = dict(self.counts)
        for name in STATISTICS:
            row[name] = self.estimates[name]
            row[f"{name}_ci_low"] = self.ci_low.get(name, math.nan)
            row[f"{name}_ci_high"] = self.ci_high.get(name, math.nan)
        return row


@dataclass
class AgreementReport:
    items: dict[str, Agreement]
    overall: Agreement
    settings: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "items": {item: a.as_dict() for item, a in self.items.items()},
            "overall": self.overall.as_dict(),
            "settings": self.settings,
        }

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per item and a last one with item = 'overall'."""
        named = [*self.items.items(), (OVERALL, self.overall)]
        return [{"item": item, **agreement.as_row()} for item, agreement in named]


def _json_float(value: float) -> float | None:
    return None if not math.isfinite(value) else float(value)


def agreement_report(
    ratings: Ratings,
    *,
    focus: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> AgreementReport:
    """Agreement per item and pooled over items (units = unit x item pairs).

    Pairwise statistics (pao, adjacent, qwk, spearman, kendall) are taken over every rater pair,
    or with `focus` over the pairs of that rater with each other rater (a judge against each
    expert); the multi-rater ones (alpha, Gwet) over all raters. The CIs resample units with
    replacement, each unit with all its raters and items.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    pairs = ratings.pairs(focus)
    per_item = [
        unit_features(ratings.codes[:, :, i], ratings.scale, pairs)
        for i in range(len(ratings.items))
    ]
    draws = _draws(len(ratings.units), n_boot, seed)
    items = {
        item: _agreement(features, ratings, pairs, draws, confidence, ratings.codes[:, :, [i]])
        for i, (item, features) in enumerate(zip(ratings.items, per_item, strict=True))
    }
    pooled = np.sum(per_item, axis=0) if per_item else np.zeros((len(ratings.units), 0))
    overall = _agreement(pooled, ratings, pairs, draws, confidence, ratings.codes)
    settings = {
        "scale": ratings.scale.tolist(),
        "raters": list(ratings.raters),
        "pairs": [[ratings.raters[a], ratings.raters[b]] for a, b in pairs],
        "bootstrap": n_boot,
        "seed": seed,
        "confidence": confidence,
    }
    return AgreementReport(items, overall, settings)


def _draws(n_units: int, n_boot: int, seed: int) -> np.ndarray:
    """Bootstrap draws as multiplicities: row b says how often each unit was drawn."""
    if n_units < 2 or n_boot <= 0:
        return np.zeros((0, n_units))
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_units, np.full(n_units, 1 / n_units), size=n_boot).astype(float)


def _agreement(
    features: np.ndarray,
    ratings: Ratings,
    pairs: np.ndarray,
    draws: np.ndarray,
    confidence: float,
    codes: np.ndarray,
) -> Agreement:
    scale = ratings.scale
    point = coefficients_from_sums(features.sum(axis=0), scale, len(pairs))
    rated = codes >= 0
    # Units with two ratings of one item: the only units any statistic compares.
    compared = int((rated.sum(axis=0) >= 2).any(axis=-1).sum())
    counts = {
        "n_units": int(rated.any(axis=(0, 2)).sum()),
        "n_compared": compared,
        "n_raters": int(rated.any(axis=(1, 2)).sum()),
        "n_ratings": int(rated.sum()),
        "n_na": int((codes == ratings.na_code).sum()),
        "n_pairs": int(point["n_pairs"]),
    }
    estimates = {name: float(point[name]) for name in STATISTICS}
    agreement = Agreement(counts, estimates)
    # Resampling units cannot vary a statistic that one unit carries: no interval, not [x, x].
    if len(draws) == 0 or compared < 2:
        return agreement
    boot: dict[str, list[np.ndarray]] = {name: [] for name in STATISTICS}
    for start in range(0, len(draws), CHUNK):
        sums = draws[start : start + CHUNK] @ features
        for name, values in coefficients_from_sums(sums, scale, len(pairs)).items():
            if name in boot:
                boot[name].append(values)
    tail = (1 - confidence) / 2 * 100
    for name in STATISTICS:
        values = np.concatenate(boot[name])
        values = values[np.isfinite(values)]
        estimate = estimates[name]
        if values.size == 0 or not math.isfinite(estimate):
            agreement.ci_low[name] = agreement.ci_high[name] = math.nan
            continue
        low, high = np.percentile(values, [tail, 100 - tail])
        # Clipped to contain the estimate (docs/agreement.md): a percentile bound can miss it by
        # rounding residue, or by more when the resampling distribution is skewed.
        agreement.ci_low[name] = min(float(low), estimate)
        agreement.ci_high[name] = max(float(high), estimate)
    return agreement
