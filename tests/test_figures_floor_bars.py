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
from poemetric.analysis.figures_scores import all_models
from poemetric.analysis.plotting import figure_style
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
