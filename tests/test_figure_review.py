"""Figures as a reviewer reads them: authors in natural order, the radar chart's words and
ticks, the lexical figure's units, and heatmaps drawn as vectors."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.headers import part_label
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS
from poemetric.analysis.synthetic import paper_scale_run
from poemetric.store import RunStore


@pytest.fixture(scope="module")
def paper_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic 31-author judged run, small in poems."""
    path = tmp_path_factory.mktemp("review") / "run"
    with paper_scale_run(path, prompts={"ballad": 2, "sonnet": 1}):
        pass
    return path


def _context(run: Path, **options: object) -> FigureContext:
    with RunStore(run, create=False) as store:
        return FigureContext(load_run_data(store), judge="gemini-2.5-pro",
                             labels=run_labels(store), **options)  # type: ignore[arg-type]  # fmt: skip


def test_figures_list_authors_in_natural_order(paper_run: Path) -> None:
    """The form-by-poem-form heatmap listed Qwen2.5-14B before Qwen2.5-3B (a string sort)."""
    with figure_style():
        drawing = FIGURE_KINDS["form_heatmap"][0](_context(paper_run))
    rows = [t.get_text() for t in drawing.figure.axes[0].get_yticklabels()]
    plt.close(drawing.figure)
    assert rows.index("Qwen2.5-3B-Instruct") < rows.index("Qwen2.5-14B-Instruct"), rows
    assert rows.index("Qwen2.5-14B-Instruct") < rows.index("Qwen2.5-72B-Instruct"), rows


def test_fig_9_legend_names_the_parts_as_the_tables_do(paper_run: Path) -> None:
    """Fig. 9's legend said `basic`, `advanced`, `quality` (the machine names)."""
    with figure_style():
        drawing = FIGURE_KINDS["ranking"][0](_context(paper_run))
    legend = [t.get_text() for t in drawing.figure.legends[0].get_texts()]
    plt.close(drawing.figure)
    assert legend == ["Basic", "Advanced", "Quality", "POEMetric score (95% CI)"]
    assert legend[:3] == [part_label(p) for p in ("basic", "advanced", "quality")]
