"""Agreement per item and pooled over items, with percentile bootstrap CIs over units."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from poemetric.reliability.features import (
    STATISTICS,
    Layout,
    UnitFeatures,
    coefficients_from_sums,
    pooled,
    unit_features,
)
from poemetric.reliability.ratings import Ratings

OVERALL = "overall"
#: Statistics bounded to [-1, 1] (all but the two shares, which live in [0, 1]).
SHARES = frozenset({"pao", "adjacent"})
#: Resamples whose matrix product is done at once (bounds memory on large rating sets), fewer
#: where a chunk's draws (resamples x units) or sums (resamples x features) would hold more
#: than CHUNK_NUMBERS numbers: each is an array of that size, and the coefficients of a chunk
#: take a few more as large.
CHUNK = 256
CHUNK_NUMBERS = 1 << 20


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
    layout = Layout(len(ratings.scale), len(pairs))
    features = [*per_item, pooled(per_item, layout, len(ratings.units))]
    codes = [*(ratings.codes[:, :, [i]] for i in range(len(ratings.items))), ratings.codes]
    agreements = [_estimates(f, ratings, pairs, c) for f, c in zip(features, codes, strict=True)]
    # Resampling units cannot vary a statistic that one unit carries: no interval, not [x, x].
    resampled = [a.counts["n_compared"] >= 2 for a in agreements]
    boot: list[dict[str, list[np.ndarray]]] = [{name: [] for name in STATISTICS} for _ in features]
    # One pass over the draws, each chunk weighing every item and the pooled features: the
    # draws are never all held at once, nor drawn again.
    for chunk in _draws(len(ratings.units), n_boot, seed, layout.width):
        for values, f, wanted in zip(boot, features, resampled, strict=True):
            if not wanted:
                continue
            for name, estimates in coefficients_from_sums(
                f.sums(chunk), ratings.scale, len(pairs)
            ).items():
                if name in values:
                    values[name].append(estimates)
    for agreement, values in zip(agreements, boot, strict=True):
        _intervals(agreement, values, confidence)
    items = dict(zip(ratings.items, agreements[:-1], strict=True))
    overall = agreements[-1]
    settings = {
        "scale": ratings.scale.tolist(),
        "raters": list(ratings.raters),
        "pairs": [[ratings.raters[a], ratings.raters[b]] for a, b in pairs],
        "bootstrap": n_boot,
        "seed": seed,
        "confidence": confidence,
    }
    return AgreementReport(items, overall, settings)


def _draws(n_units: int, n_boot: int, seed: int, width: int) -> Iterator[np.ndarray]:
    """Bootstrap draws as multiplicities, a chunk of rows at a time: row b says how often each
    unit was drawn. The chunks are the rows of one `multinomial(..., size=n_boot)` call (the
    generator's stream is the same drawn in pieces); none with fewer than two units."""
    if n_units < 2 or n_boot <= 0:
        return
    rng = np.random.default_rng(seed)
    rows = max(1, min(CHUNK, CHUNK_NUMBERS // max(n_units, width, 1)))
    shares = np.full(n_units, 1 / n_units)
    for start in range(0, n_boot, rows):
        yield rng.multinomial(n_units, shares, size=min(rows, n_boot - start)).astype(float)


def _estimates(
    features: UnitFeatures, ratings: Ratings, pairs: np.ndarray, codes: np.ndarray
) -> Agreement:
    """The counts and point estimates of one item (or pooled), `codes` its raters x units x
    items codes."""
    point = coefficients_from_sums(features.sums(), ratings.scale, len(pairs))
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
    return Agreement(counts, {name: float(point[name]) for name in STATISTICS})


def _intervals(agreement: Agreement, boot: dict[str, list[np.ndarray]], confidence: float) -> None:
    """Sets the percentile intervals of `agreement` from its resampled statistics `boot` (none
    drawn: no interval)."""
    if not boot[STATISTICS[0]]:
        return
    tail = (1 - confidence) / 2 * 100
    for name in STATISTICS:
        values = np.concatenate(boot[name])
        values = values[np.isfinite(values)]
        estimate = agreement.estimates[name]
        if values.size == 0 or not math.isfinite(estimate):
            agreement.ci_low[name] = agreement.ci_high[name] = math.nan
            continue
        low, high = np.percentile(values, [tail, 100 - tail])
        # Clipped to contain the estimate (docs/agreement.md): a percentile bound can miss it by
        # rounding residue, or by more when the resampling distribution is skewed.
        agreement.ci_low[name] = min(float(low), estimate)
        agreement.ci_high[name] = max(float(high), estimate)
