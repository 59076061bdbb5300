"""A mean at the scale's minimum is drawn, not left as an empty slot: after `poemetric demo`,
whose judge scored every poem's form 1, the Form panel of Fig. 14 showed no bar at all (bars
start at 1, so a mean of 1 has no length and an SD of 0 no whisker), which read as a panel
left empty."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.colors import to_rgba

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figures_scores import all_models, ranking
from poemetric.analysis.plotting import PART_COLOURS, figure_style
from poemetric.analysis.synthetic import build_synthetic_run


def test_a_mean_of_one_is_a_stroke_in_its_colour_on_the_axis(tmp_path: Path) -> None:
    store = build_synthetic_run(tmp_path / "run", poems_per_form=2)
    with store:
        store.conn.execute(
            "UPDATE judgments SET form = 1 WHERE generation_id IN "
            "(SELECT generation_id FROM generations WHERE author IN ('model-a', 'model-b'))"
        )
        store.conn.commit()
        ctx = FigureContext(load_run_data(store), judge="judge-x")
    with figure_style():
        drawing = all_models(ctx, group="basic", layout="bars")
    form_axis = next(a for a in drawing.figure.axes if a.get_title() == "Form")
    # error bars are LineCollections too: the stroke is the one upright segment on x = 1
    strokes = [
        (collection, segment)
        for collection in form_axis.collections
        if isinstance(collection, LineCollection)
        for segment in collection.get_segments()
        if segment[0][0] == segment[1][0] == 1.0 and segment[0][1] != segment[1][1]
    ]
    assert len(strokes) == 2  # model-a's and model-b's: the human poets' mean is above 1
    rows = [t.get_text() for t in form_axis.get_yticklabels()]
    colours = ctx.colours(ctx.authors)
    for author in ("model-a", "model-b"):
        row = rows.index(author)
        collection, ((_, y0), (_, y1)) = next(
            (c, s) for c, s in strokes if min(s[0][1], s[1][1]) < row < max(s[0][1], s[1][1])
        )
        index = [tuple(map(tuple, s)) for s in collection.get_segments()].index(
            ((1.0, y0), (1.0, y1))
        )
        assert np.allclose(collection.get_colors()[index], to_rgba(colours[author]))


def test_the_ranking_draws_a_quality_of_one(tmp_path: Path) -> None:
    """Fig. 9 after the demo: every poem's overall quality 1, and the legend's Quality bars
    were nowhere."""
    store = build_synthetic_run(tmp_path / "run", poems_per_form=2)
    with store:
        store.conn.execute("UPDATE judgments SET overall_quality = 1")
        store.conn.commit()
        ctx = FigureContext(load_run_data(store), judge="judge-x")
    with figure_style():
        axis = ranking(ctx).figure.axes[0]
    strokes = [
        collection
        for collection in axis.collections
        if isinstance(collection, LineCollection)
        and all(s[0][0] == s[1][0] == 1.0 and s[0][1] != s[1][1] for s in collection.get_segments())
    ]
    assert sum(len(c.get_segments()) for c in strokes) == 3  # human, model-a, model-b
    assert all(
        np.allclose(c, to_rgba(PART_COLOURS["quality"])) for s in strokes for c in s.get_colors()
    )


def test_the_ranking_ticks_print_as_every_bar_chart_s(tmp_path: Path) -> None:
    """docs/analysis.md: value ticks print alike in every bar chart, "never `1.0`"; Fig. 9's
    read 1.0, 1.5, 2.0 beside Fig. 14's 1, 2, 3."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        ctx = FigureContext(load_run_data(store), judge="judge-x")
    with figure_style():
        axis = ranking(ctx).figure.axes[0]
    ticks = axis.xaxis.get_major_formatter().format_ticks(axis.get_xticks())
    assert ticks[:3] == ["1", "1.5", "2"] and ticks[-1] == "5", ticks
