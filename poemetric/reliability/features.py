"""Per-unit statistics whose sums give every agreement coefficient (see `coefficients.py`).

For one item, `unit_features` turns a raters x units code matrix into `UnitFeatures`, a units x D
matrix held in two parts: per rater pair in scope a contingency table over the scale plus N/A
(sparse: one count per pair and co-rated unit), and dense, the unit's Krippendorff coincidences
and Gwet's per-unit terms. Summing rows with weights (all ones for the estimate, a bootstrap
draw's multiplicities for a resample) and passing the sums to `coefficients_from_sums` gives the
coefficients. `pooled` sums the features of the items.

The tables were dense: units x pairs x (n + 1)^2 numbers per item, all items' kept at once and
stacked again to pool them, 0.9 GB for 30 raters x 300 units x 10 items (docs/benchmarks.md).
Their sums are integers, exact in any order, so the sparse product gives the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

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


@dataclass(frozen=True)
class UnitFeatures:
    """Units x D features (`Layout`) of one item, or of items pooled: the rater pairs'
    contingency tables as a sparse units x (pairs k k) count matrix, and the multi-rater terms
    (the columns after the tables) dense."""

    layout: Layout
    tables: sparse.csr_array
    terms: np.ndarray

    def sums(self, weights: np.ndarray | None = None) -> np.ndarray:
        """The features summed over units, (D,); with `weights` (..., units), the weighted sums
        (..., D): `weights @ features`."""
        if weights is None:
            tables = np.asarray(self.tables.sum(axis=0)).reshape(
                -1
            )  # (D,), not 1 x D, in any scipy
            return np.concatenate([tables, self.terms.sum(axis=0)])
        offset = self.layout.bounds["tables"][1]
        sums = np.empty((*weights.shape[:-1], self.layout.width))  # C order
        # A sparse matrix on the left gives a dense array: (tables.T @ weights.T).T.
        sums[..., :offset] = (self.tables.T @ np.ascontiguousarray(weights.T)).T
        sums[..., offset:] = weights @ self.terms
        return sums


def pooled(items: list[UnitFeatures], layout: Layout, n_units: int) -> UnitFeatures:
    """The features of `items` summed (units = unit x item pairs); the terms are added item by
    item in order, the tables' counts exact in any order."""
    tables = sparse.csr_array((n_units, layout.bounds["tables"][1]))
    terms = np.zeros((n_units, layout.width - layout.bounds["tables"][1]))
    if items:
        tables, terms = items[0].tables, items[0].terms.copy()
        for item in items[1:]:
            tables = tables + item.tables
            terms += item.terms
    return UnitFeatures(layout, tables, terms)


def unit_features(codes: np.ndarray, scale: np.ndarray, pairs: np.ndarray) -> UnitFeatures:
    """The features of one item; `codes` is raters x units (-1 not rated, n = N/A)."""
    n = len(scale)
    layout = Layout(n, len(pairs))
    n_units = codes.shape[1]
    # Pair tables: one count in cell (code of rater a, code of rater b) per co-rated unit.
    units, cells = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for index, (rater_a, rater_b) in enumerate(pairs):
        a, b = codes[rater_a], codes[rater_b]
        (both,) = np.nonzero((a >= 0) & (b >= 0))
        units.append(both)
        cells.append((index * layout.k + a[both]) * layout.k + b[both])
    unit_index, cell = np.concatenate(units), np.concatenate(cells)
    tables = sparse.csr_array(
        (np.ones(len(cell)), (unit_index, cell)), shape=(n_units, layout.bounds["tables"][1])
    )
    # Multi-rater terms use the scale only: N/A counts as not rated there.
    # With no scale value at all (every rating N/A and no --scale), a units x 0 matrix: there is
    # no column to stack, and numpy refused ("need at least one array to stack").
    offset = layout.bounds["tables"][1]
    terms = np.zeros((n_units, layout.width - offset))
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
        terms[:, start - offset : end - offset] = np.nan_to_num(values)
    return UnitFeatures(layout, tables, terms)


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
