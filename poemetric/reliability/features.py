"""Per-unit statistics whose sums give every agreement coefficient (see `coefficients.py`).

For one item, `unit_features` turns a raters x units code matrix into a units x D matrix: per
rater pair in scope a contingency table over the scale plus N/A, the unit's Krippendorff
coincidences, and Gwet's per-unit terms. Summing rows with weights (all ones for the estimate, a
bootstrap draw's multiplicities for a resample) and passing the sums to `coefficients_from_sums`
gives the coefficients. Summing an item's features over items pools the items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from poemetric.reliability import coefficients as co

#: The statistics reported for every item and pooled, in output order.
STATISTICS: tuple[str, ...] = (
    "pao",
    "adjacent",
    "alpha_nominal",
    "alpha_ordinal",
    "alpha_interval",
    "gwet_ac1",
    "gwet_ac2_linear",
    "gwet_ac2_quadratic",
    "qwk",
    "spearman",
    "kendall",
)


@dataclass(frozen=True)
class Layout:
    """Where each block sits in a feature row, for a scale of n values and P rater pairs."""

    n: int
    pairs: int

    @property
    def k(self) -> int:  # scale values + N/A
        return self.n + 1

    @property
    def bounds(self) -> dict[str, tuple[int, int]]:
        sizes = {
            "tables": self.pairs * self.k * self.k,
            "coincidences": self.n * self.n,
            "gwet_agreement": len(co.GWET_WEIGHTS),
            "gwet_pairable": 1,
            "gwet_shares": self.n,
            "gwet_rated": 1,
        }
        bounds, start = {}, 0
        for name, size in sizes.items():
            bounds[name] = (start, start + size)
            start += size
        return bounds

    @property
    def width(self) -> int:
        return max(end for _, end in self.bounds.values())

    def block(self, sums: np.ndarray, name: str) -> np.ndarray:
        start, end = self.bounds[name]
        return sums[..., start:end]


def unit_features(codes: np.ndarray, scale: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Units x D features of one item; `codes` is raters x units (-1 not rated, n = N/A)."""
    n = len(scale)
    layout = Layout(n, len(pairs))
    n_units = codes.shape[1]
    features = np.zeros((n_units, layout.width))
    # Pair tables: one count in cell (code of rater a, code of rater b) per co-rated unit.
    if len(pairs):
        a, b = codes[pairs[:, 0]], codes[pairs[:, 1]]  # pairs x units
        pair_index, unit_index = np.nonzero((a >= 0) & (b >= 0))
        cell = (pair_index * layout.k + a[pair_index, unit_index]) * layout.k
        cell += b[pair_index, unit_index]
        tables = np.zeros((n_units, len(pairs) * layout.k * layout.k))
        np.add.at(tables, (unit_index, cell), 1.0)
        start, end = layout.bounds["tables"]
        features[:, start:end] = tables
    # Multi-rater terms use the scale only: N/A counts as not rated there.
    # With no scale value at all (every rating N/A and no --scale), a units x 0 matrix: there is
    # no column to stack, and numpy refused ("need at least one array to stack").
    counts = np.zeros((n_units, n))
    for c in range(n):
        counts[:, c] = (codes == c).sum(axis=0)
    for name, values in (
        ("coincidences", co.unit_coincidences(counts).reshape(n_units, -1)),
        (
            "gwet_agreement",
            np.stack(
                [co.unit_gwet_terms(counts, co.gwet_weights(scale, w)) for w in co.GWET_WEIGHTS],
                axis=1,
            ),
        ),
        ("gwet_pairable", (counts.sum(axis=1, keepdims=True) >= 2).astype(float)),
        ("gwet_shares", co.safe_divide(counts, counts.sum(axis=1, keepdims=True))),
        ("gwet_rated", (counts.sum(axis=1, keepdims=True) >= 1).astype(float)),
    ):
        start, end = layout.bounds[name]
        features[:, start:end] = np.nan_to_num(values)
    return features


def coefficients_from_sums(
    sums: np.ndarray, scale: np.ndarray, n_pairs: int
) -> dict[str, np.ndarray]:
    """Every statistic of STATISTICS (plus `n_pairs`, the paired ratings) from summed
    features `sums` (..., D)."""
    n = len(scale)
    layout = Layout(n, n_pairs)
    tables = layout.block(sums, "tables").reshape(*sums.shape[:-1], n_pairs, layout.k, layout.k)
    pooled = tables.sum(axis=-3)
    position = np.arange(layout.k)
    on_scale = position < n
    exact = np.eye(layout.k, dtype=bool)
    adjacent = exact | (
        (np.abs(position[:, None] - position[None, :]) <= 1) & on_scale[:, None] & on_scale[None, :]
    )
    scaled = tables[..., :n, :n]
    coincidences = layout.block(sums, "coincidences").reshape(*sums.shape[:-1], n, n)
    gwet_agreement = layout.block(sums, "gwet_agreement")
    pairable = layout.block(sums, "gwet_pairable")[..., 0]
    shares = layout.block(sums, "gwet_shares")
    rated = layout.block(sums, "gwet_rated")[..., 0]
    gwet = {
        weights: co.gwet_ac(
            gwet_agreement[..., i], pairable, shares, rated, co.gwet_weights(scale, weights)
        )
        for i, weights in enumerate(co.GWET_WEIGHTS)
    }
    return {
        "n_pairs": pooled.sum(axis=(-2, -1)),
        "pao": co.share_agreeing(pooled, exact),
        "adjacent": co.share_agreeing(pooled, adjacent),
        "alpha_nominal": co.alpha(coincidences, scale, "nominal"),
        "alpha_ordinal": co.alpha(coincidences, scale, "ordinal"),
        "alpha_interval": co.alpha(coincidences, scale, "interval"),
        "gwet_ac1": gwet["identity"],
        "gwet_ac2_linear": gwet["linear"],
        "gwet_ac2_quadratic": gwet["quadratic"],
        "qwk": co.nanmean_over(co.kappa(scaled, "quadratic"), axis=-1),
        "spearman": co.nanmean_over(co.spearman(scaled), axis=-1),
        "kendall": co.nanmean_over(co.kendall_tau_b(scaled), axis=-1),
    }
