"""The word figures' captions counted the authors shown as "1 authors" in a figure of one
author (a run of one model, `--authors` naming one where the run has no human poems)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import RunData
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS


def _run(authors: list[str]) -> FigureContext:
    rows = [
        {"author": author, "poem": f"{word} runs on\nand on again by the river"}
        for author in authors
        for word in ("river", "stone", "river")
    ]
    empty = pd.DataFrame()
    return FigureContext(RunData(pd.DataFrame(rows), empty, empty), authors=authors)


def test_word_figure_captions_count_one_author_in_the_singular() -> None:
    for authors, said in ((["solo-model"], "1 author (solo-model)"),
                          (["human", "solo-model"], "2 authors (Human, solo-model)")):  # fmt: skip
        ctx = _run(authors)
        for kind in ("opening_words", "top_words"):
            with figure_style():
                drawing = FIGURE_KINDS[kind][0](ctx, k=2)
            plt.close(drawing.figure)
            assert f" over {said}" in drawing.caption, drawing.caption
            assert "1 authors" not in drawing.caption
