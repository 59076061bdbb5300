"""The radar's dimension names sit outside its rim: centred on their spokes, "Form" (0 degrees)
and "Emotion" (180) lay across the circle and the author lines drawn to it, at one column and
at two. `text_problems` compares text with text, not with lines, so it did not see it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figures_scores import radar
from poemetric.analysis.plotting import COLUMN_WIDTHS, figure_style
from poemetric.analysis.synthetic import build_synthetic_run


@pytest.mark.parametrize("width", ["one", "two"])
def test_no_dimension_name_crosses_the_rim(tmp_path: Path, width: str) -> None:
    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        data = load_run_data(store)
    ctx = FigureContext(data, judge="judge-x", width=COLUMN_WIDTHS[width])
    with figure_style():
        figure = radar(ctx).figure
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    axis = figure.axes[0]
    centre = axis.transData.transform((0.0, 1.0))  # the radial axis runs from 1 to 5
    rim = np.hypot(*(axis.transData.transform((0.0, 5.0)) - centre))
    labels = [label for label in axis.get_xticklabels() if label.get_text()]
    assert len(labels) == 10
    for label in labels:
        box = label.get_window_extent(renderer)
        nearest = np.clip(centre, [box.x0, box.y0], [box.x1, box.y1])
        assert np.hypot(*(nearest - centre)) >= rim, label.get_text()


def test_radar_marks_the_means_that_leave_n_a_out(tmp_path: Path) -> None:
    """The radar plots the same means as the heatmap and the bar panels, imagery and devices
    without their N/A answers, but named them `Imagery` and `Devices` with no asterisk and its
    caption had no N/A note: beside Fig. 7 and the heatmap (`Imagery*`) they read as other
    numbers."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        data = load_run_data(store)
    ctx = FigureContext(data, judge="judge-x", width=COLUMN_WIDTHS["two"])
    with figure_style():
        drawing = radar(ctx)
    names = [label.get_text() for label in drawing.figure.axes[0].get_xticklabels()]
    assert "Imagery*" in names and "Devices*" in names and "Form" in names, names
    assert drawing.caption.endswith(" *Imagery and Devices: N/A answers left out of the mean.")
