"""A heatmap too narrow for two decimals printed one with Python's round-half-even: the
tables' pass rates 0.25 and 0.75 read "0.2" and "0.8" in the figure (a mean of 3.25 "3.2" beside
3.75 "3.8"). A cell now prints the value rounded half up, once (3.246 is "3.2", not its table's
3.25 rounded again); at two decimals it prints what the table does."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.figure import Figure

from poemetric.analysis.heatmaps import HeatmapSpec, cell_text, draw_heatmap
from poemetric.analysis.plotting import figure_style
from poemetric.tables.cells import fixed

SHARES = [0.25, 0.75, 0.125, 0.35]
MEANS = [3.25, 3.75, 1.05, 4.375]


def _cells(values: list[float], value_range: tuple[float, float], width: float) -> list[str]:
    """The texts of a one-row heatmap of `values`, drawn `width` inches wide."""
    matrix = pd.DataFrame([values], index=["a"], columns=[f"c{i}" for i in range(len(values))])
    spec = HeatmapSpec(matrix, ["a"], list(matrix.columns), "share", value_range)
    with figure_style():
        figure = Figure(figsize=(width, 1.5), layout="constrained")
        draw_heatmap(figure, spec, width, "Human")
    texts = [t.get_text() for t in figure.axes[0].texts]
    plt.close(figure)
    return texts


@pytest.mark.parametrize(
    ("values", "value_range", "one_decimal"),
    [(SHARES, (0.0, 1.0), ["0.3", "0.8", "0.1", "0.4"]),
     (MEANS, (1.0, 5.0), ["3.3", "3.8", "1.1", "4.4"])],
    ids=["shares", "likert"],
)  # fmt: skip
def test_a_narrow_cell_rounds_the_value_half_up_once(
    values: list[float], value_range: tuple[float, float], one_decimal: list[str]
) -> None:
    assert _cells(values, value_range, width=1.0) == one_decimal  # 0.2 in per cell
    assert _cells(values, value_range, width=3.0) == [fixed(v, 2) for v in values]


def test_a_value_is_rounded_once_and_a_floats_noise_does_not_round_it_down() -> None:
    """3.246 prints "3.25" in the table and "3.2" in a one-decimal cell (its table's number
    rounded again gave "3.3", farther from 3.246); a mean of 0.25 computed as
    0.24999999999999997 is "0.3", as 0.25."""
    assert (fixed(3.246, 2), cell_text(3.246, 1)) == ("3.25", "3.2")
    assert cell_text(0.24999999999999997, 1) == cell_text(0.25, 1) == "0.3"
    assert cell_text(3.246, 2) == fixed(3.246, 2)
