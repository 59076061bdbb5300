"""An author's line in the radar is drawn alike in every figure of the run: its colour followed
the author, but its line style went by its place in the figure (DeepSeek-V3 dotted in one
radar and dashed in another). And where an author has no mean (the judge said N/A to imagery
in every one of its poems) its line broke without a word."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_hex

from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import RunData, load_run_data
from poemetric.analysis.figures_scores import radar
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.synthetic import build_synthetic_run

AUTHORS = ("human", "gpt-4o", "o1", "claude-3.5-sonnet", "deepseek-v3")


@pytest.fixture(scope="module")
def run_data(tmp_path_factory: pytest.TempPathFactory) -> RunData:
    path = tmp_path_factory.mktemp("lines") / "run"
    with build_synthetic_run(path, authors=AUTHORS, poems_per_form=1) as store:
        with store.transaction() as db:
            db.execute(
                "UPDATE judgments SET imagery = 0 WHERE generation_id IN "
                "(SELECT generation_id FROM generations WHERE author = 'deepseek-v3')"
            )
        return load_run_data(store)


def _lines(data: RunData, authors: list[str]) -> tuple[dict[str, tuple[str, str, str]], str]:
    """Each legend label of the radar -> (colour, line style, marker); and the caption."""
    with figure_style():
        drawing = radar(FigureContext(data, judge="judge-x", authors=authors))
    lines = {
        str(line.get_label()): (
            to_hex(line.get_color()),
            str(line.get_linestyle()),
            str(line.get_marker()),
        )
        for line in drawing.figure.axes[0].get_lines()
        if not str(line.get_label()).startswith("_")
    }
    plt.close(drawing.figure)
    return lines, drawing.caption


def test_an_author_keeps_colour_style_and_marker_whichever_authors_are_shown(
    run_data: RunData,
) -> None:
    every, _ = _lines(run_data, list(AUTHORS))
    few, _ = _lines(run_data, ["human", "deepseek-v3"])
    other, _ = _lines(run_data, ["o1", "deepseek-v3", "gpt-4o"])
    assert len(every) == len(AUTHORS) and len(few) == 2 and len(other) == 3
    for drawn in (few, other):
        for name, style in drawn.items():
            assert style == every[name], name
    # the LLMs of one radar stay apart by colour and by style or marker
    styles = [(s, m) for name, (_, s, m) in every.items() if name.lower() != "human"]
    assert len(set(styles)) == len(styles), every


def test_a_line_that_breaks_is_explained_in_the_caption(run_data: RunData) -> None:
    _, caption = _lines(run_data, ["human", "deepseek-v3", "gpt-4o"])
    assert (
        " A line breaks where its author has no mean (every answer N/A): deepseek-v3 at "
        "Imagery. *Imagery and Devices" in caption
    ), caption
    _, whole = _lines(run_data, ["human", "gpt-4o"])
    assert "breaks" not in whole  # nothing said where no line breaks
