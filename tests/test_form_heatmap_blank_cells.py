"""The form-by-poem-form heatmap leaves a cell blank where an author has no checked poem of a
form (its generations failed, or the form stage has not reached them), while its caption said
"2 checked poems per cell" of every cell and nothing of the blank one."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figures_rules import form_heatmap
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.synthetic import build_synthetic_run

BLANK = "A blank cell: no checked poem of that form."


def _heatmap(run: Path, *, drop_villanelles_of: str | None) -> tuple[str, int]:
    """The caption and the count of blank cells of the form heatmap of a 3-author run."""
    with build_synthetic_run(run, authors=("human", "gpt-4o", "o1"), poems_per_form=2) as store:
        if drop_villanelles_of:
            with store.transaction() as db:
                db.execute(
                    "DELETE FROM form_checks WHERE generation_id IN (SELECT g.generation_id "
                    "FROM generations g JOIN prompts p USING (prompt_id) JOIN poems po "
                    "USING (poem_id) WHERE g.author = ? AND po.form = 'villanelle')",
                    (drop_villanelles_of,),
                )
        data = load_run_data(store)
    with figure_style():
        drawing = form_heatmap(FigureContext(data, judge="judge-x"))
    cells = drawing.figure.axes[0].collections[0].get_array()
    plt.close(drawing.figure)
    return drawing.caption, int(np.ma.count_masked(cells))


def test_a_blank_cell_is_said(tmp_path: Path) -> None:
    caption, blank = _heatmap(tmp_path / "gap", drop_villanelles_of="gpt-4o")
    assert blank == 1
    assert "(2 checked poems per cell;" in caption and caption.endswith(BLANK), caption
    caption, blank = _heatmap(tmp_path / "whole", drop_villanelles_of=None)
    assert blank == 0 and BLANK not in caption, caption
