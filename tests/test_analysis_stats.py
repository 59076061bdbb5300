"""Confidence intervals stay inside their domain and contain their estimate."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from poemetric.analysis.bars import Panel, Series, draw_panel, summary_frame
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import RunData
from poemetric.analysis.scores import form_check_scores
from poemetric.analysis.stats import summarize, wilson_interval


def test_wilson_interval_contains_all_or_nothing_proportions() -> None:
    for n in range(1, 204):  # up to the paper's 203 poems per model
        for successes in (0, n):
            low, high = wilson_interval(successes, n)
            assert 0.0 <= low <= successes / n <= high <= 1.0, (successes, n)


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
