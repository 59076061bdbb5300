"""Confidence intervals stay inside their domain and contain their estimate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from poemetric.analysis.bars import Panel, Series, draw_panel, summary_frame
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import RunData
from poemetric.analysis.scores import form_check_scores
from poemetric.stats import BOOTSTRAP_CHUNK, bootstrap_ci, summarize, wilson_interval


def test_wilson_interval_contains_all_or_nothing_proportions() -> None:
    for n in range(1, 204):  # up to the paper's 203 poems per model
        for successes in (0, n):
            low, high = wilson_interval(successes, n)
            assert 0.0 <= low <= successes / n <= high <= 1.0, (successes, n)


def test_wilson_and_t_intervals_match_scipy() -> None:
    """`scipy.stats.binomtest(k, n).proportion_ci(method="wilson")` for every k <= n <= 30, and
    `scipy.stats.t.interval` of a mean (SciPy, a dependency, computes the references here)."""
    from scipy import stats as scipy_stats

    for n in range(1, 31):
        for k in range(n + 1):
            reference = scipy_stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
            assert wilson_interval(k, n) == pytest.approx(
                (reference.low, reference.high), abs=1e-12
            ), (k, n)
    values = np.array([3.0, 4.0, 4.0, 5.0, 2.0, 1.0, 3.5, 4.0])
    summary = summarize(values)
    low, high = scipy_stats.t.interval(
        0.95, len(values) - 1, loc=values.mean(), scale=scipy_stats.sem(values)
    )
    assert (summary.ci_low, summary.ci_high) == pytest.approx((low, high), abs=1e-12)
    assert summary.sd == pytest.approx(np.std(values, ddof=1), abs=1e-12)


def test_t_interval_of_a_proportion_is_clipped_to_its_domain() -> None:
    values = np.array([0.0, 0.0, 0.0, 0.1])
    unclipped = summarize(values)
    assert unclipped.ci_low < 0  # the t interval itself leaves [0, 1] ...
    clipped = summarize(values, domain=(0.0, 1.0))
    assert clipped.ci_low == 0.0 and clipped.ci_high == unclipped.ci_high  # ... the clipped one not
    boot = summarize(np.array([1.0, 1.0, 0.9]), method="bootstrap", domain=(0.0, 1.0))
    assert 0.0 <= boot.ci_low <= boot.mean <= boot.ci_high <= 1.0


def test_form_check_table_and_bars_for_zero_and_full_pass_rates() -> None:
    checks = pd.DataFrame(
        {
            "author": ["always"] * 12 + ["never"] * 12,
            "passed": [1] * 12 + [0] * 12,
            "meter_score": [1.0] * 12 + [0.0] * 11 + [0.05],
            "rhyme_score": [1.0] * 24,
            "form_score": [0.95] * 12 + [0.0] * 12,
        }
    )
    table = form_check_scores(checks)
    for column in ("pass", "meter_score", "form_score"):
        low = table[f"{column}_ci_low"]
        high = table[f"{column}_ci_high"]
        mean = table["pass_rate" if column == "pass" else f"{column}_mean"]
        assert ((low >= 0) & (low <= mean) & (mean <= high) & (high <= 1)).all(), column
    axis = Figure().subplots()
    authors = table["author"].tolist()
    empty = pd.DataFrame(columns=["author"])
    ctx = FigureContext(RunData(empty, empty, empty), authors=authors)
    series = Series(summary_frame(table, "pass_rate", "pass_ci_low", "pass_ci_high"))
    for horizontal in (False, True):
        draw_panel(ctx, axis, Panel("pass", (series,), (0.0, 1.0)), horizontal)


def _one_resample_at_a_time(data: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    """The textbook percentile bootstrap of the mean, one resample per loop step."""
    rng = np.random.default_rng(seed)
    estimates = [float(np.mean(data[rng.integers(0, len(data), len(data))])) for _ in range(n_boot)]
    low, high = np.percentile(estimates, [2.5, 97.5])
    return float(low), float(high)


def test_bootstrap_ci_draws_a_groups_resamples_at_once_with_the_loops_numbers() -> None:
    """All resamples of a group in one numpy draw (the by-form table took a minute at the
    paper's scale, 2,000 Python steps per group), in chunks for a big group, and the interval
    is the one a resample-by-resample loop gives for the seed."""
    rng = np.random.default_rng(7)
    for n, n_boot, seed in ((2, 500, 0), (7, 2000, 3), (203, 2000, 0), (3000, 1000, 5)):
        data = rng.integers(1, 6, n).astype(float)
        batches: list[tuple[int, ...]] = []

        def mean(resamples: np.ndarray, shapes: list[tuple[int, ...]] = batches) -> np.ndarray:
            shapes.append(resamples.shape)
            return resamples.mean(axis=1)

        interval = bootstrap_ci(data, mean, n_boot=n_boot, seed=seed)
        assert interval == _one_resample_at_a_time(data, n_boot, seed), n
        assert sum(rows for rows, _ in batches) == n_boot
        assert all(width == n and rows * n <= BOOTSTRAP_CHUNK for rows, width in batches), n
        assert len(batches) == -(-n_boot // (BOOTSTRAP_CHUNK // n)), n  # as few chunks as fit
        summary = summarize(data, method="bootstrap", n_boot=n_boot, seed=seed)
        sorted_interval = bootstrap_ci(np.sort(data), n_boot=n_boot, seed=seed)
        assert (summary.ci_low, summary.ci_high) == sorted_interval


def test_bootstrap_interval_of_a_mean_covers_it_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(11)
    covered = 0
    for seed in range(300):
        low, high = bootstrap_ci(rng.normal(3.0, 1.0, 40), seed=seed)
        covered += low <= 3.0 <= high
    assert 0.91 <= covered / 300 <= 0.98, covered


def test_a_bootstrap_interval_does_not_depend_on_the_order_of_the_values() -> None:
    """`--ci bootstrap` drew poems by position: the same run with its judgments stored in
    another order (merged shards) printed other intervals, up to 0.125 apart on 9 poems."""
    from scipy.stats import bootstrap

    rng = np.random.default_rng(3)
    values = rng.integers(1, 6, 60).astype(float)
    first = summarize(values, method="bootstrap", seed=0)
    again = summarize(rng.permutation(values), method="bootstrap", seed=0)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    reference = bootstrap((values,), np.mean, method="percentile", n_resamples=20_000,
                          random_state=1).confidence_interval  # fmt: skip
    assert first.ci_low == pytest.approx(reference.low, abs=0.05)
    assert first.ci_high == pytest.approx(reference.high, abs=0.05)
