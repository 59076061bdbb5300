"""Agreement against reference packages where POEMetric's data is hardest: N/A answers (a
category for PAo and adjacent agreement, missing for the rest), missing ratings, several items
pooled, `--focus`, and the bootstrap intervals themselves (the same draws recomputed by the
packages). test_reliability.py covers complete 1-5 ratings of one item without N/A."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from poemetric.analysis.validation import judge_agreement
from poemetric.questionnaire import DIMENSION_KEYS, DIMENSIONS
from poemetric.reliability import Rating, Ratings, agreement_report

SCALE = [1, 2, 3, 4, 5]
NA_ITEMS = {d.key for d in DIMENSIONS if d.allows_na}


def _ratings(data: np.ndarray) -> Ratings:
    """Raters x units x items: NaN = not rated, 0 = N/A, 1-5 scores."""
    rows = [
        Rating(f"u{u:03d}", f"r{r}", f"i{i}", None if data[r, u, i] == 0 else float(data[r, u, i]))
        for r, u, i in np.argwhere(np.isfinite(data))
    ]
    return Ratings.from_ratings(rows, scale=SCALE)


def _pooled(data: np.ndarray) -> np.ndarray:
    """Raters x (items x units): the units of the pooled statistics."""
    return data.transpose(0, 2, 1).reshape(len(data), -1)


def _references(matrix: np.ndarray, pairs: list[tuple[int, int]]) -> dict[str, float]:
    """Every statistic by the reference packages, from raters x units (NaN, 0 = N/A, 1-5)."""
    krippendorff = pytest.importorskip("krippendorff")
    irr = pytest.importorskip("irrCAC.raw")
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    from scipy.stats import kendalltau, spearmanr

    scaled = np.where(matrix == 0, np.nan, matrix)  # N/A is missing for alpha and Gwet
    out: dict[str, float] = {}
    for level in ("nominal", "ordinal", "interval"):
        out[f"alpha_{level}"] = krippendorff.alpha(
            reliability_data=scaled, level_of_measurement=level, value_domain=SCALE
        )
    frame = pd.DataFrame(scaled.T)
    for weights, name in (("identity", "gwet_ac1"), ("linear", "gwet_ac2_linear"),
                          ("quadratic", "gwet_ac2_quadratic")):  # fmt: skip
        cac = irr.CAC(frame, weights=weights, categories=SCALE, digits=15)
        out[name] = cac.gwet()["est"]["coefficient_value"]
    same = adjacent = total = 0
    qwk, rho, tau = [], [], []
    for a, b in pairs:
        both = np.isfinite(matrix[a]) & np.isfinite(matrix[b])
        x, y = matrix[a][both], matrix[b][both]
        total += len(x)
        same += int((x == y).sum())  # N/A = N/A agrees, N/A vs a score does not
        adjacent += int(((x == y) | ((x > 0) & (y > 0) & (np.abs(x - y) <= 1))).sum())
        scored = (x > 0) & (y > 0)
        x, y = x[scored], y[scored]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = (
                sklearn_metrics.cohen_kappa_score(x, y, weights="quadratic", labels=SCALE),
                spearmanr(x, y).statistic if len(x) >= 3 else math.nan,
                kendalltau(x, y).statistic,
            )
        for kept, value in zip((qwk, rho, tau), values, strict=True):
            if math.isfinite(value):
                kept.append(value)
    out |= {"pao": same / total, "adjacent": adjacent / total}
    out |= {"qwk": float(np.mean(qwk)), "spearman": float(np.mean(rho)),
            "kendall": float(np.mean(tau))}  # fmt: skip
    return out


def _random_ratings(rng: np.random.Generator, raters: int, units: int, items: int) -> np.ndarray:
    data = rng.integers(1, 6, size=(raters, units, items)).astype(float)
    data[rng.random(data.shape) < 0.15] = 0  # N/A
    data[rng.random(data.shape) < 0.2] = np.nan  # not rated
    return data


@pytest.mark.parametrize("focus", [None, 0])
def test_na_missing_and_pooled_items_match_the_reference_packages(focus: int | None) -> None:
    """krippendorff, irrCAC, scikit-learn and SciPy on the pooled unit x item ratings, N/A
    treated as each statistic's definition says (docs/agreement.md)."""
    rng = np.random.default_rng(21)
    for trial in range(6):
        data = _random_ratings(rng, raters=3 + trial % 3, units=20, items=1 + trial % 3)
        pairs = list(combinations(range(len(data)), 2))
        if focus is not None:
            pairs = [pair for pair in pairs if focus in pair]
        report = agreement_report(
            _ratings(data), focus=None if focus is None else f"r{focus}", n_boot=0
        )
        expected = _references(_pooled(data), pairs)
        for name, value in expected.items():
            assert report.overall.estimates[name] == pytest.approx(value, abs=1e-12), (
                trial,
                name,
            )
        item = _references(data[:, :, 0], pairs)  # one item alone: the same code, unpooled
        for name, value in item.items():
            assert report.items["i0"].estimates[name] == pytest.approx(value, abs=1e-12), name


def test_bootstrap_intervals_are_the_percentiles_of_the_references_on_the_same_draws() -> None:
    """The intervals recomputed by the packages on each resample (units drawn as the report
    draws them: numpy's multinomial of the seed) give the same percentile bounds."""
    krippendorff = pytest.importorskip("krippendorff")
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(7)
    data = _random_ratings(rng, raters=3, units=15, items=1)
    units, n_boot, seed = data.shape[1], 60, 3
    report = agreement_report(_ratings(data), n_boot=n_boot, seed=seed).overall
    draws = np.random.default_rng(seed).multinomial(units, np.full(units, 1 / units), n_boot)
    matrix = data[:, :, 0]

    def alpha(m: np.ndarray) -> float:
        scaled = np.where(m == 0, np.nan, m)
        return float(krippendorff.alpha(reliability_data=scaled, level_of_measurement="interval",
                                         value_domain=SCALE))  # fmt: skip

    def pao(m: np.ndarray) -> float:
        pairs = [(m[a], m[b]) for a, b in combinations(range(len(m)), 2)]
        both = [np.isfinite(x) & np.isfinite(y) for x, y in pairs]
        same = sum(int((x[k] == y[k]).sum()) for (x, y), k in zip(pairs, both, strict=True))
        return same / sum(int(k.sum()) for k in both)

    def qwk(m: np.ndarray) -> float:
        values = []
        for a, b in combinations(range(len(m)), 2):
            k = np.isfinite(m[a]) & np.isfinite(m[b]) & (m[a] > 0) & (m[b] > 0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                value = sklearn_metrics.cohen_kappa_score(m[a][k], m[b][k], weights="quadratic",
                                                          labels=SCALE)  # fmt: skip
            if math.isfinite(value):
                values.append(value)
        return float(np.mean(values)) if values else math.nan

    statistics: dict[str, Callable[[np.ndarray], float]] = {
        "alpha_interval": alpha, "pao": pao, "qwk": qwk,
    }  # fmt: skip
    for name, statistic in statistics.items():
        resampled = np.array([statistic(matrix[:, np.repeat(np.arange(units), row)])
                              for row in draws])  # fmt: skip
        resampled = resampled[np.isfinite(resampled)]
        low, high = np.percentile(resampled, [2.5, 97.5])
        estimate = statistic(matrix)
        assert report.estimates[name] == pytest.approx(estimate, abs=1e-12), name
        assert report.ci_low[name] == pytest.approx(min(low, estimate), abs=1e-12), name
        assert report.ci_high[name] == pytest.approx(max(high, estimate), abs=1e-12), name


def test_judge_table_uses_first_samples_and_na_as_the_references_do() -> None:
    """`analyze`'s agreement table (judge vs experts): the judge's first sample, 0 = N/A on
    imagery and literary devices, every item pooled in `all`; PAo and QWK over the (judge,
    expert) pairs only, alpha over experts and judge together."""
    rng = np.random.default_rng(5)
    poems, experts = [f"g{p:02d}" for p in range(10)], ["e0", "e1"]

    def scores() -> dict[str, float]:
        return {k: 0.0 if k in NA_ITEMS and rng.random() < 0.2 else float(rng.integers(1, 6))
                for k in DIMENSION_KEYS}  # fmt: skip

    expert_rows = [{"expert": e, "generation_id": p, **scores()} for e in experts for p in poems]
    judge_rows = [
        {"judge": "jj", "generation_id": p, "sample_index": s, "author": "a", "poem_id": p,
         "poem_form": "sonnet", **scores()}
        for p in poems for s in (1, 0)  # the later sample first: the first is sample 0
    ]  # fmt: skip
    table = judge_agreement(pd.DataFrame(expert_rows), pd.DataFrame(judge_rows), n_boot=0)
    first = [row for row in judge_rows if row["sample_index"] == 0]
    data = np.array(
        [[[row[k] for k in DIMENSION_KEYS] for row in expert_rows if row["expert"] == e]
         for e in experts]
        + [[[row[k] for k in DIMENSION_KEYS] for row in first]]
    )  # fmt: skip
    expected = _references(_pooled(data), [(0, 2), (1, 2)])
    pooled = table[table["item"] == "all"].iloc[0]
    for name in ("pao", "adjacent", "alpha_ordinal", "gwet_ac1", "qwk", "kendall"):
        assert pooled[name] == pytest.approx(expected[name], abs=1e-12), name
