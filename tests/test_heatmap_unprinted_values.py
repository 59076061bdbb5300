"""A heatmap whose cells are too narrow for their numbers (31 authors x 10 dimensions at one
column) is colour only: its caption says that the values are left out and where they are."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from poemetric.analysis.context import COLUMN_WIDTHS, FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import Drawing, figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import paper_scale_run
from poemetric.store import RunStore

LEFT_OUT = "The cells are too narrow at this width to print their values"


@pytest.fixture(scope="module")
def paper_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("unprinted") / "run"
    with paper_scale_run(path, prompts={"ballad": 2, "sonnet": 1}):
        pass
    return path


def _draw(run: Path, kind: str, width: str, **options: object) -> tuple[Drawing, list[str]]:
    """The drawing of `kind` and the texts printed inside its first axes (the cell values)."""
    with RunStore(run, create=False) as store:
        ctx = FigureContext(load_run_data(store), judge="gemini-2.5-pro", labels=run_labels(store),
                            width=COLUMN_WIDTHS[width])  # fmt: skip
    with figure_style():
        drawing = FIGURE_KINDS[kind][0](ctx, **options)
    cells = [t.get_text() for t in drawing.figure.axes[0].texts]
    plt.close(drawing.figure)
    return drawing, cells


@pytest.mark.parametrize("kind", ["heatmap", "all_models"])
def test_score_heatmap_at_one_column_says_its_values_are_left_out(
    paper_run: Path, kind: str
) -> None:
    """App. H at one column with 31 authors printed no number in any cell, and its caption read
    as if it did: it now says so and names the table that holds the means."""
    drawing, cells = _draw(paper_run, kind, "one")
    assert cells == []
    assert LEFT_OUT in drawing.caption, drawing.caption
    assert "dimension_matrix table (RUN/analysis/dimension_matrix.csv" in drawing.caption


@pytest.mark.parametrize("kind", ["heatmap", "all_models"])
def test_score_heatmap_with_values_says_nothing_of_them(paper_run: Path, kind: str) -> None:
    drawing, cells = _draw(paper_run, kind, "two")
    assert len(cells) >= 31 * 10 - 5, len(cells)  # a blank cell (every answer N/A) has none
    assert LEFT_OUT not in drawing.caption, drawing.caption


def test_form_heatmap_notes_left_out_values_only_when_they_are(paper_run: Path) -> None:
    """Two forms fit their pass rates at one column; at 2 inches they do not."""
    drawing, cells = _draw(paper_run, "form_heatmap", "one")
    assert len(cells) == 31 * 2 and LEFT_OUT not in drawing.caption
    with RunStore(paper_run, create=False) as store:
        ctx = FigureContext(load_run_data(store), labels=run_labels(store), width=2.0)
    with figure_style():
        narrow = FIGURE_KINDS["form_heatmap"][0](ctx)
    texts = narrow.figure.axes[0].texts
    plt.close(narrow.figure)
    assert not texts
    assert LEFT_OUT in narrow.caption and "form_checks_by_form table" in narrow.caption


def test_word_heatmap_at_one_column_says_a_wider_figure_prints_them(paper_run: Path) -> None:
    drawing, cells = _draw(paper_run, "top_words", "one")
    assert cells == []
    assert f"{LEFT_OUT}, which are left out (colour only): a wider `--width`" in drawing.caption
    wide, cells = _draw(paper_run, "top_words", "two")
    assert cells and LEFT_OUT not in wide.caption
