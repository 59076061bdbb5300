"""An author keeps one colour in every figure of a run, whichever authors a figure shows."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from matplotlib.colors import to_hex
from matplotlib.container import BarContainer

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.selection import select_authors
from poemetric.analysis.synthetic import paper_scale_run
from poemetric.roster import load_groups
from poemetric.store import RunStore


@pytest.fixture(scope="module")
def paper_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("palette") / "run"
    with paper_scale_run(path, prompts={"sonnet": 1}):
        pass
    return path


def _bar_colours(run: Path, authors: str) -> dict[str, str]:
    """Author -> its bar's colour in the rule-based figure of `authors`."""
    with RunStore(run, create=False) as store, figure_style():
        data, labels = load_run_data(store), run_labels(store)
        shown, _ = select_authors(authors, data.generations["author"].unique().tolist(),
                                  labels=labels.authors)  # fmt: skip
        ctx = FigureContext(data, authors=shown, labels=labels)
        drawing = FIGURE_KINDS["rule_based"][0](ctx)
    axis = drawing.figure.axes[0]
    bars = next(c for c in axis.containers if isinstance(c, BarContainer))
    by_label = {
        t.get_text(): to_hex(bar.get_facecolor())
        for t, bar in zip(axis.get_xticklabels() or axis.get_yticklabels(), bars, strict=True)
    }
    plt.close(drawing.figure)
    names = {labels.author(a): a for a in shown}
    return {names[label]: colour for label, colour in by_label.items()}


def test_a_model_keeps_its_colour_in_two_selections_of_a_30_model_run(paper_run: Path) -> None:
    """Each selection of at most 7 took the palette from its first model: a model shown in
    `paper7` and in another selection was drawn in two colours."""
    paper7 = load_groups()["paper7"]
    others = ["gpt-3.5-turbo", "o1", paper7[3], paper7[0]]  # two of paper7, in another order
    first = _bar_colours(paper_run, "paper7")
    second = _bar_colours(paper_run, ",".join(others))
    shared = set(first) & set(second)
    assert {paper7[0], paper7[3], "human"} <= shared
    assert {a: first[a] for a in shared} == {a: second[a] for a in shared}
    for colours in (first, second):  # still a colour each within a figure
        assert len(set(colours.values())) == len(colours)
    assert pd.Series(first).nunique() == len(first)
