"""`agreement_report` memory: the rater pairs' tables are not held dense for every item.

Each item's features held a units x pairs x (n + 1)^2 dense matrix, all items' at once, and
pooling stacked them again: 30 raters x 300 units x 10 items peaked at 0.9 GB
(docs/benchmarks.md, "Agreement statistics").
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from poemetric.reliability import STATISTICS, Rating, Ratings, agreement_report

MULTI_RATER = [s for s in STATISTICS if s.startswith(("alpha", "gwet"))]


def _ratings(raters: int, units: int, items: int, seed: int) -> Ratings:
    """Correlated 1-5 ratings, a fifth of them missing, a few N/A."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=(units, items))
    rows = []
    for r in range(raters):
        scores = np.clip(truth + rng.integers(-1, 2, size=(units, items)), 1, 5)
        for u, i in np.argwhere(rng.random((units, items)) >= 0.2):
            score = None if rng.random() < 0.02 else float(scores[u, i])
            rows.append(Rating(f"u{u:03d}", f"r{r}", f"i{i}", score))
    return Ratings.from_ratings(rows, scale=[1, 2, 3, 4, 5])


def test_many_raters_do_not_hold_a_dense_table_per_unit_and_pair() -> None:
    # 20 raters (190 pairs) x 100 units x 10 items: the dense tables were 100 x 6,840 numbers
    # per item, 55 MB for the items and 55 MB more stacked to pool them.
    ratings = _ratings(raters=20, units=100, items=10, seed=1)
    tracemalloc.start()
    try:
        report = agreement_report(ratings, n_boot=50, seed=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.overall.counts["n_raters"] == 20
    assert report.overall.ci_low["pao"] < report.overall.estimates["pao"]
    assert peak < 25 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_multi_rater_statistics_do_not_depend_on_the_pairs_in_scope() -> None:
    """Alpha and Gwet's AC take every rater whatever `focus` picks as pairs: the same numbers
    to the last digit with and without it. The bootstrap summed Gwet's unit terms in one
    matrix product with the pair tables, whose width (the pairs) moved their rounding."""
    ratings = _ratings(raters=8, units=58, items=10, seed=4)
    everyone = agreement_report(ratings, n_boot=200, seed=0)
    focused = agreement_report(ratings, focus="r0", n_boot=200, seed=0)
    for item, agreement in [*everyone.items.items(), ("overall", everyone.overall)]:
        other = focused.overall if item == "overall" else focused.items[item]
        for name in MULTI_RATER:
            assert agreement.estimates[name] == other.estimates[name], (item, name)
            assert agreement.ci_low[name] == other.ci_low[name], (item, name)
            assert agreement.ci_high[name] == other.ci_high[name], (item, name)
