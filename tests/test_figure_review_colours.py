"""A reviewer's notes on the figures: a warning where labels cannot fit a narrow width, one
colour per author in every figure (the case study included), and truthful axis labels."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_hex
from matplotlib.container import BarContainer
from matplotlib.figure import Figure
from matplotlib.text import Text
from typer.testing import CliRunner

from poemetric.analysis import Recipe, render_figures
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import HUMAN_COLOUR, figure_style
from poemetric.analysis.recipes import FIGURE_KINDS, FigureSpec
from poemetric.analysis.selection import select_authors
from poemetric.analysis.synthetic import paper_scale_run
from poemetric.cli.app import app
from poemetric.store import RunStore


@pytest.fixture(scope="module")
def paper_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic 31-author judged run, small in poems."""
    path = tmp_path_factory.mktemp("review9") / "run"
    with paper_scale_run(path, prompts={"ballad": 2, "sonnet": 1}):
        pass
    return path


def _context(run: Path, authors: str | None = None, width: float = 6.8) -> FigureContext:
    with RunStore(run, create=False) as store:
        data, labels = load_run_data(store), run_labels(store)
        shown, _ = select_authors(authors, data.generations["author"].unique().tolist(),
                                  labels=labels.authors)  # fmt: skip
        return FigureContext(data, judge="gemini-2.5-pro", authors=shown, width=width,
                             labels=labels)  # fmt: skip


NARROW_RECIPE = Recipe(figures=[FigureSpec(name="lexical", kind="lexical"),
                                FigureSpec(name="ranking", kind="ranking")])  # fmt: skip


def test_figures_too_narrow_for_their_labels_are_named_in_a_warning(
    paper_run: Path, tmp_path: Path
) -> None:
    """At 2.5 in (`--width` takes 2-10) the 31 authors' labels overlapped without a word."""
    with RunStore(paper_run, create=False) as store:
        narrow = render_figures(store, tmp_path / "narrow", formats=["png"],
                                recipe=NARROW_RECIPE, width=2.5)  # fmt: skip
        column = render_figures(store, tmp_path / "column", formats=["png"],
                                recipe=NARROW_RECIPE, width=3.3)  # fmt: skip
    assert len(narrow.warnings) == 1, narrow.warnings
    assert narrow.warnings[0].startswith("lexical: at 2.5 in, ")
    assert "overlaps" in narrow.warnings[0] and "--authors" in narrow.warnings[0]
    assert (tmp_path / "narrow" / "lexical.png").is_file()  # drawn all the same
    assert column.warnings == []  # one column and wider: not checked, and it fits


def test_the_figures_command_prints_the_warning(paper_run: Path, tmp_path: Path) -> None:
    recipe = tmp_path / "narrow.yaml"
    recipe.write_text("figures:\n  - name: lexical\n    kind: lexical\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["figures", "--run", str(paper_run), "--recipe",
                                      str(recipe), "--width", "2.5", "--format", "png",
                                      "--out", str(tmp_path / "out")], terminal_width=400)  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "warning lexical: at 2.5 in" in result.output


def _bar_colours(figure: Figure) -> dict[str, str]:
    """Each label of the first panel's bars -> its bar's colour."""
    axis = figure.axes[0]
    bars = next(c for c in axis.containers if isinstance(c, BarContainer))
    labels = [t.get_text() for t in axis.get_xticklabels() or axis.get_yticklabels()]
    return {label: to_hex(bar.get_facecolor()) for label, bar in zip(labels, bars, strict=True)}


def _case_study_colours(figure: Figure) -> dict[str, str]:
    """'Poem A (DeepSeek-R1)' -> its bars' colour."""
    axis = next(a for a in figure.axes if a.containers)
    return {
        str(c.get_label()): to_hex(c.patches[0].get_facecolor())
        for c in axis.containers
        if isinstance(c, BarContainer)
    }


@pytest.mark.parametrize("selection", ["paper7", None], ids=["paper7", "every-author"])
def test_the_case_study_draws_each_author_in_its_colour_in_the_other_figures(
    paper_run: Path, selection: str | None
) -> None:
    """Poem A was always blue: DeepSeek-R1 blue in Fig. 3 and orange in Fig. 5. Among 30 LLMs
    in one blue, the case study's poems keep their colours of the run (those of `paper7`)."""
    ctx = _context(paper_run, selection)
    with figure_style():
        rule_based = FIGURE_KINDS["rule_based"][0](ctx)
        study = FIGURE_KINDS["case_study"][0](ctx, author="deepseek-r1")
        versus = FIGURE_KINDS["case_study"][0](ctx, author="deepseek-r1", other="gpt-4o")
        paper7 = FIGURE_KINDS["rule_based"][0](_context(paper_run, "paper7"))
    colours, run_colours = _bar_colours(rule_based.figure), _bar_colours(paper7.figure)
    drawn = _case_study_colours(study.figure)
    assert drawn["Poem A (DeepSeek-R1)"] == run_colours["DeepSeek-R1"]
    assert drawn["Poem B (Human)"] == colours["Human"] == HUMAN_COLOUR.lower()
    assert run_colours["DeepSeek-R1"] != run_colours["GPT-4o"]  # not the first blue for everyone
    assert _case_study_colours(versus.figure) == {
        "Poem A (DeepSeek-R1)": run_colours["DeepSeek-R1"],
        "Poem B (GPT-4o)": run_colours["GPT-4o"],
    }
    if selection is None:  # 30 LLMs in one blue
        assert len({c for name, c in colours.items() if name != "Human"}) == 1
    for drawing in (rule_based, study, versus, paper7):
        plt.close(drawing.figure)


def test_radar_lines_differ_in_colour_among_31_authors(paper_run: Path) -> None:
    """The radar's best LLMs keep colours of their own where every bar is one blue."""
    with figure_style():
        drawing = FIGURE_KINDS["radar"][0](_context(paper_run))
    lines = drawing.figure.axes[0].get_lines()
    plt.close(drawing.figure)
    colours = [to_hex(line.get_color()) for line in lines if not line.get_label().startswith("_")]
    assert len(colours) > 2 and len(set(colours)) == len(colours)


def test_pass_rate_heatmap_names_its_columns_and_prints_plain_ticks(paper_run: Path) -> None:
    """The colour bar read '0.0 … 1.0' where the bar charts read '0 … 1'; no 'poem form'."""
    for width in (3.3, 6.8):
        with figure_style():
            drawing = FIGURE_KINDS["form_heatmap"][0](_context(paper_run, width=width))
        figure = drawing.figure
        figure.draw_without_rendering()
        heatmap, bar = figure.axes[0], figure.axes[1]
        assert heatmap.get_xlabel() == "poem form"
        ticks = [t.get_text() for t in [*bar.get_xticklabels(), *bar.get_yticklabels()]]
        assert ticks[0] == "0" and ticks[-1] == "1" and not any(t.endswith(".0") for t in ticks)
        plt.close(figure)


def test_fig_5_does_not_call_the_type_token_ratio_a_share(paper_run: Path) -> None:
    """Its shared axis label read "share (0-1)" over the TTR panel too."""
    with figure_style():
        drawing = FIGURE_KINDS["rule_based"][0](_context(paper_run, "paper7"))
    texts = {t.get_text() for t in drawing.figure.findobj(Text)}
    plt.close(drawing.figure)
    assert "TTR" in texts
    assert {t for t in texts if "(0-1)" in t} == {"share or ratio (0-1); whiskers: 95% CI"}
