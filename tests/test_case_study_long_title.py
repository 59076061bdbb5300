"""Fig. 3's poem headings were one line whatever their length: at one column a human poem's
title ran off the figure ("Poem B: Sonnet 130: My mistress' eyes are nothing like the", cut at
the page edge). Headings now wrap to their panel, and the poem below moves down to make room.

Its poem lines were unevenly spaced (matplotlib 3.11 spaces the lines of one text by each
line's own ascent and descent): a line without descenders sat closer to the next. Each line
now has its baseline at the same distance from the one before.

A score of 1 under the poems was a bar of no length: it now gets the stroke on the axis, in
its poem's colour, that the other Likert bar charts give a mean at the scale's minimum."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.text import Text

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.store import RunStore

TITLE = "Sonnet 130: My mistress' eyes are nothing like the sun, nor coral like her lips"
#: No letter below the baseline in any line, so each line's ink ends on its baseline; lines
#: with and without ascenders take turns (matplotlib 3.11 moved these apart by 3 px at 300 dpi).
SHORT, TALL = "we saw a man ran", "The tall old hill"
POEM = "\n".join([SHORT, TALL] * 5)


def _baseline_gaps(figure: Figure, heading: str, lines: int) -> list[int]:
    """Pixel rows between the ink bottoms of the last `lines` rows of text in the panel headed
    `heading`, drawn at 300 dpi."""
    figure.set_dpi(300)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    axis = next(t for t in figure.findobj(Text) if t.get_text() == heading).axes
    assert axis is not None
    box = axis.get_window_extent()
    lowest = min(t.get_window_extent().y0 for t in axis.texts)
    ink = np.asarray(canvas.buffer_rgba())[..., :3].min(axis=2) < 128
    height = ink.shape[0]
    panel = ink[height - int(box.y1) : height - int(lowest) + 2, int(box.x0) : int(box.x1)]
    inked = panel.any(axis=1)
    bottoms = [row for row in range(len(inked) - 1) if inked[row] and not inked[row + 1]]
    return list(np.diff(bottoms[-lines:]))


@pytest.mark.parametrize("width", [3.3, 6.8])
def test_a_long_title_wraps_inside_the_figure(tmp_path: Path, width: float) -> None:
    run = tmp_path / "run"
    with build_synthetic_run(run, poems_per_form=1) as store, store.transaction():
        store.conn.execute("UPDATE poems SET title = ?", (TITLE,))
        store.conn.execute("UPDATE generations SET poem = ? WHERE author = 'model-a'", (POEM,))
        store.conn.execute("UPDATE judgments SET form = 1 WHERE generation_id IN (SELECT "
                           "generation_id FROM generations WHERE author = 'model-a')")  # fmt: skip
    with RunStore(run, create=False) as store, figure_style():
        ctx = FigureContext(load_run_data(store), judge="judge-x", width=width,
                            labels=run_labels(store))  # fmt: skip
        drawing = FIGURE_KINDS["case_study"][0](ctx, author="model-a")
        starts = [t for t in drawing.figure.findobj(Text) if t.get_text().startswith("Poem B: ")]
        assert len(starts) == 1
        panel = starts[0].axes
        assert panel is not None
        heading = [t.get_text() for t in panel.texts if t.get_fontweight() == "bold"]
        assert " ".join(" ".join(heading).split()) == f"Poem B: {TITLE}"
        assert text_problems(drawing.figure) == []
        gaps = _baseline_gaps(drawing.figure, "Poem A (untitled)", 10)
        scores = next(a for a in drawing.figure.axes if a.get_ylabel() == "score (1-5)")
        poem_a = scores.patches[0].get_facecolor()  # Form, the first bar
        strokes = [(line, c.get_colors()[0]) for c in scores.collections
                   if isinstance(c, LineCollection) for line in c.get_segments()]  # fmt: skip
    assert any(np.allclose(line[:, 1], 1) and np.allclose(colour, poem_a)
               for line, colour in strokes), strokes  # fmt: skip
    assert len(gaps) == 9 and max(gaps) - min(gaps) <= 1, gaps
