"""An author with no mean in a bar panel (the judge said N/A to imagery in every one of its
poems) was drawn as a bar of no length: a black hairline and a whisker cap on the scale's
minimum, read as a mean of 1. Now the panel draws no bar and says "n/a" at the author's slot,
at two columns (vertical bars) and at one (horizontal)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.container import BarContainer

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.figures_scores import all_models, dimension_bars, heatmap
from poemetric.analysis.plotting import COLUMN_WIDTHS, figure_style
from poemetric.analysis.synthetic import build_synthetic_run


@pytest.mark.parametrize("width", ["one", "two"])
def test_an_author_without_a_mean_gets_no_bar(tmp_path: Path, width: str) -> None:
    with build_synthetic_run(
        tmp_path / "run", authors=("human", "gpt-4o", "o1"), poems_per_form=2
    ) as store:
        with store.transaction() as db:
            db.execute(
                "UPDATE judgments SET imagery = 0 WHERE generation_id IN "
                "(SELECT generation_id FROM generations WHERE author = 'gpt-4o')"
            )
        data = load_run_data(store)
    with figure_style():
        drawing = dimension_bars(
            FigureContext(data, judge="judge-x", width=COLUMN_WIDTHS[width]), group="advanced"
        )
    panels = {axis.get_title(): axis for axis in drawing.figure.axes}
    imagery, emotion = panels["Imagery*"], panels["Emotion"]

    def lengths(axis: plt.Axes) -> np.ndarray:
        """Each bar's length along the value axis (NaN: not drawn)."""
        found = []
        for bars in axis.containers:
            if isinstance(bars, BarContainer):
                vertical = bars.orientation == "vertical"
                found += [b.get_height() if vertical else b.get_width() for b in bars.patches]
        return np.array(found)

    drawn = lengths(imagery)
    problems = text_problems(drawing.figure)
    marks = [t.get_text().strip() for t in imagery.texts]
    plt.close(drawing.figure)
    assert len(drawn) == 3 and np.isnan(drawn).sum() == 1, drawn  # gpt-4o's: not drawn
    assert np.all(np.isfinite(lengths(emotion)))  # every author has an emotion mean
    assert marks == ["n/a"]
    assert problems == []


@pytest.mark.parametrize("kind", ["heatmap", "all_models"])
def test_a_score_heatmap_says_what_a_blank_cell_is(tmp_path: Path, kind: str) -> None:
    """The score heatmaps left an author's missing mean as a blank cell, unexplained (the
    pass-rate heatmap says what its blank cells are)."""
    with build_synthetic_run(
        tmp_path / "run", authors=("human", "gpt-4o", "o1"), poems_per_form=1
    ) as store:
        whole = load_run_data(store)
        with store.transaction() as db:
            db.execute(
                "UPDATE judgments SET imagery = 0 WHERE generation_id IN "
                "(SELECT generation_id FROM generations WHERE author = 'gpt-4o')"
            )
        gap = load_run_data(store)
    note = " A blank cell: the author has no mean (every answer N/A). *Imagery and Devices"
    captions = []
    for data in (gap, whole):
        ctx = FigureContext(data, judge="judge-x", width=COLUMN_WIDTHS["one"])
        with figure_style():
            drawing = heatmap(ctx) if kind == "heatmap" else all_models(ctx, layout="heatmap")
        plt.close(drawing.figure)
        captions.append(drawing.caption)
    assert note in captions[0], captions[0]
    assert "blank" not in captions[1]  # every author has every mean: nothing said
