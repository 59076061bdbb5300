"""The value-axis label of vertical bar figures runs up the figure's side, but one row of panels
was sized by the authors' names alone: with short names it was about as tall as the label (cut
by a pixel or two at each end of the 300-dpi PNG) and, without the human poets' bold "Human",
shorter ("share or score (0-1); whiskers: 95% CI" left the figure at both ends)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.store import RunStore

KINDS = ("form_accuracy", "rule_based", "lexical", "ghostwriting")


@pytest.mark.parametrize("authors", [("a", "b"), ("human", "a", "b")])
def test_the_value_label_fits_the_figure_with_room_at_both_ends(
    tmp_path: Path, authors: tuple[str, ...]
) -> None:
    build_synthetic_run(tmp_path / "run", authors=authors, poems_per_form=2, judges=()).close()
    with RunStore(tmp_path / "run", create=False) as store:
        data, labels = load_run_data(store), run_labels(store)
    for width in (6.8, 3.3):
        ctx = FigureContext(data, labels=labels, width=width)
        for kind in KINDS:
            with figure_style():
                figure = FIGURE_KINDS[kind][0](ctx).figure
                assert text_problems(figure) == [], (kind, width)
                figure.set_dpi(72)
                figure.draw_without_rendering()
                renderer = FigureCanvasAgg(figure).get_renderer()
                # the value label of a vertical grid (a horizontal one has it under the panels)
                sideways = [text for text in figure.texts if text.get_rotation() == 90]
                if not sideways:
                    plt.close(figure)
                    continue
                (label,) = sideways
                box = label.get_window_extent(renderer)
                room = min(box.y0, figure.bbox.y1 - box.y1) / 72  # inches
                plt.close(figure)
            assert room >= 0.03, (kind, width, label.get_text(), room)
