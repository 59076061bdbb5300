"""Fig. 3's poem headings were one line whatever their length: at one column a human poem's
title ran off the figure ("Poem B: Sonnet 130: My mistress' eyes are nothing like the", cut at
the page edge). Headings now wrap to their panel, and the poem below moves down to make room."""

from __future__ import annotations

from pathlib import Path

import pytest

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.store import RunStore

TITLE = "Sonnet 130: My mistress' eyes are nothing like the sun, nor coral like her lips"


@pytest.mark.parametrize("width", [3.3, 6.8])
def test_a_long_title_wraps_inside_the_figure(tmp_path: Path, width: float) -> None:
    run = tmp_path / "run"
    with build_synthetic_run(run, poems_per_form=1) as store, store.transaction():
        store.conn.execute("UPDATE poems SET title = ?", (TITLE,))
    with RunStore(run, create=False) as store, figure_style():
        ctx = FigureContext(load_run_data(store), judge="judge-x", width=width,
                            labels=run_labels(store))  # fmt: skip
        drawing = FIGURE_KINDS["case_study"][0](ctx, author="model-a")
        headings = [t for t in drawing.figure.findobj(lambda a: hasattr(a, "get_text"))
                    if str(t.get_text()).startswith("Poem B: ")]  # fmt: skip
        assert len(headings) == 1
        assert " ".join(headings[0].get_text().split()) == f"Poem B: {TITLE}"
        assert text_problems(drawing.figure) == []
