"""Figure text as people wrote it: poems, titles and display names are printed verbatim (no
mathtext), and the labels of a small run with ordinary model names fit at both widths."""

from __future__ import annotations

import io
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.text import Text

from poemetric.analysis import Recipe, render_figures
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import HUMAN_AUTHOR, load_run_data
from poemetric.analysis.experts import load_expert_ratings
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS, FigureSpec
from poemetric.analysis.selection import select_authors
from poemetric.analysis.synthetic import (
    build_synthetic_run,
    paper_scale_run,
    write_synthetic_experts,
)
from poemetric.providers.base import ModelSpec
from poemetric.store import RunStore
from poemetric.store.models import record_models

DOLLAR_POEM = "The price of bread: $\\frac$ a loaf,\nand $5 I kept for wine."


@pytest.fixture(scope="module")
def dollar_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A judged run whose LLM poems speak of money, and whose model's name has dollar signs."""
    path = tmp_path_factory.mktemp("dollars") / "run"
    with build_synthetic_run(path, authors=(HUMAN_AUTHOR, "cash-model"),
                             poems_per_form=1) as store:  # fmt: skip
        store.conn.execute(
            "UPDATE generations SET poem = ? WHERE author = 'cash-model'", (DOLLAR_POEM,)
        )
        store.conn.commit()
    return path


def test_dollar_signs_in_poems_and_names_are_printed_verbatim(dollar_run: Path) -> None:
    with RunStore(dollar_run, create=False) as store, figure_style():
        labels = run_labels(store)
        labels.authors["cash-model"] = "Cash $x^2$ model"
        ctx = FigureContext(load_run_data(store), judge="judge-x", labels=labels)
        for kind in ("case_study", "ranking"):
            drawing = FIGURE_KINDS[kind][0](ctx)
            # mathtext would read "$\frac$" as a fraction without arguments and fail
            drawing.figure.savefig(io.BytesIO(), format="png")
            texts = [t for t in drawing.figure.findobj(Text) if "$" in t.get_text()]
            assert texts, kind
            assert not any(t.get_parse_math() for t in texts), kind


#: A small run as many papers have: the human poets and three models with ordinary names.
FEW_AUTHORS = (HUMAN_AUTHOR, "deepseek-r1-distill-llama-70b", "gpt-4o", "markov")


@pytest.fixture(scope="module")
def few_authors_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("few") / "run"
    build_synthetic_run(path, authors=FEW_AUTHORS, poems_per_form=2,
                        judges=("local-openai",)).close()  # fmt: skip
    return path


@pytest.mark.parametrize("width", [3.3, 6.8], ids=["one", "two"])
def test_four_authors_with_ordinary_names_fit_at_both_widths(
    few_authors_run: Path, width: float
) -> None:
    """A long name rotated under a panel reaches far to the left of its tick: at one column the
    rule-based (Fig. 5), lexical, form-accuracy and ghostwriting panels crowded their labels
    over each other and pushed panel titles off the figure."""
    problems: dict[str, list[str]] = {}
    with RunStore(few_authors_run, create=False) as store, figure_style():
        data, labels = load_run_data(store), run_labels(store)
        assert labels.author("deepseek-r1-distill-llama-70b") == "DeepSeek-R1-Distill-Llama-70B"
        for kind, (function, _) in FIGURE_KINDS.items():
            if kind == "case_study":  # its own test below
                continue
            ctx = FigureContext(data, judge="local-openai", width=width, labels=labels)
            drawing = function(ctx)
            if found := text_problems(drawing.figure):
                problems[kind] = found[:3]
            assert drawing.figure.get_figwidth() == pytest.approx(width) or kind == "radar"
            plt.close(drawing.figure)
    assert problems == {}


@pytest.mark.parametrize("width", [3.3, 6.8], ids=["one", "two"])
def test_one_model_beside_the_human_poets_fits_at_both_widths(tmp_path: Path, width: float) -> None:
    """Two rows of scores: the heatmap's colour bar beside them was shorter than its label,
    which ran off the top of a two-column figure."""
    problems: dict[str, list[str]] = {}
    with build_synthetic_run(tmp_path / "run", authors=(HUMAN_AUTHOR, "gpt-4o"),
                             poems_per_form=2, judges=("local-openai",)) as store, figure_style():  # fmt: skip
        data, labels = load_run_data(store), run_labels(store)
        for kind, (function, _) in FIGURE_KINDS.items():
            ctx = FigureContext(data, judge="local-openai", width=width, labels=labels)
            drawing = function(ctx)
            if found := text_problems(drawing.figure):
                problems[kind] = found[:3]
            plt.close(drawing.figure)
    assert problems == {}


@pytest.mark.parametrize("width", [3.3, 6.8], ids=["one", "two"])
def test_case_study_fits_with_a_long_judge_name_and_a_long_author_name(
    few_authors_run: Path, width: float
) -> None:
    """The bundled local judge is shown as 'Qwen/Qwen2.5-72B-Instruct (local)': in the score
    axis label it was taller than the bars and ran into the poem above and off the figure."""
    with RunStore(few_authors_run, create=False) as store, figure_style():
        ctx = FigureContext(load_run_data(store), judge="local-openai", width=width,
                            labels=run_labels(store))  # fmt: skip
        assert ctx.judge_label == "Qwen/Qwen2.5-72B-Instruct (local)"
        for author in FEW_AUTHORS[1:]:
            drawing = FIGURE_KINDS["case_study"][0](ctx, author=author)
            assert text_problems(drawing.figure) == [], author
            texts = " ".join(t.get_text() for t in drawing.figure.findobj(Text))
            assert "Qwen/Qwen2.5-72B-Instruct (local)" in texts  # the judge is still named
            plt.close(drawing.figure)


LONG_NAME = "mistralai/Mistral-Small-3.1-24B-Instruct-2503-preview"


@pytest.mark.parametrize("width", [3.3, 6.8], ids=["one", "two"])
def test_a_name_too_long_for_any_figure_is_cut_in_the_middle(
    few_authors_run: Path, width: float
) -> None:
    """A 53-character display name pushed every panel off a one-column figure (and several at
    two columns): axes collapsed and labels left the canvas."""
    problems: dict[str, list[str]] = {}
    with RunStore(few_authors_run, create=False) as store, figure_style():
        data, labels = load_run_data(store), run_labels(store)
        labels.authors["gpt-4o"] = LONG_NAME
        for kind, (function, _) in FIGURE_KINDS.items():
            ctx = FigureContext(data, judge="local-openai", width=width, labels=labels)
            drawing = function(ctx, author="gpt-4o") if kind == "case_study" else function(ctx)
            if found := text_problems(drawing.figure):
                problems[kind] = found[:3]
            texts = " ".join(t.get_text() for t in drawing.figure.findobj(Text))
            assert LONG_NAME not in texts and "mistralai/Mistra…" in texts, kind
            plt.close(drawing.figure)
    assert problems == {}


def test_figures_say_which_names_they_cut(tmp_path: Path) -> None:
    recipe = Recipe(figures=[FigureSpec(name="rank", kind="ranking")])
    with build_synthetic_run(tmp_path / "run", authors=(HUMAN_AUTHOR, "gpt-4o"), poems_per_form=1,
                             judges=("local-openai",)) as store:  # fmt: skip
        record_models(store, "generate", [ModelSpec(name="gpt-4o", provider="openai",
                                                    model="gpt-4o", display_name=LONG_NAME)])  # fmt: skip
        report = render_figures(store, tmp_path / "figures", recipe=recipe, formats=("png",))
    assert any(LONG_NAME in note and "…" in note for note in report.notes), report.notes


def test_two_long_names_are_cut_apart_and_the_note_says_how(tmp_path: Path) -> None:
    """Two display names cut to the same 'mistralai/Mistra…nstruct-2503' made two authors one
    in every figure, and the note named that one cut for both."""
    names = {"small": "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
             "large": "mistralai/Mistral-Large-2.1-123B-Instruct-2503"}  # fmt: skip
    recipe = Recipe(figures=[FigureSpec(name="rank", kind="ranking")])
    with build_synthetic_run(tmp_path / "run", authors=(HUMAN_AUTHOR, *names), poems_per_form=1,
                             judges=("local-openai",)) as store:  # fmt: skip
        record_models(store, "generate", [ModelSpec(name=key, provider="openai", model=key,
                                                    display_name=name)
                                          for key, name in names.items()])  # fmt: skip
        report = render_figures(store, tmp_path / "figures", recipe=recipe, formats=("png",))
        ctx = FigureContext(load_run_data(store), judge="local-openai", labels=run_labels(store))
    shown = {key: ctx.label(key) for key in names}
    assert shown["small"] != shown["large"] and all("…" in s for s in shown.values())
    with figure_style():
        drawing = FIGURE_KINDS["ranking"][0](ctx)
    texts = {t.get_text() for t in drawing.figure.findobj(Text)}
    plt.close(drawing.figure)
    assert set(shown.values()) <= texts
    for key, name in names.items():  # each note names the cut the figures print
        assert any(f"{name!r} is shown as {shown[key]!r}" in note for note in report.notes), key


@pytest.mark.slow
@pytest.mark.parametrize("width", [3.3, 6.8], ids=["one", "two"])
def test_score_bars_of_every_paper_author_fit_a_page_or_become_a_heatmap(
    tmp_path_factory: pytest.TempPathFactory, width: float
) -> None:
    """The default recipe's `scores-advanced` (one column) and judge-overview's `scores-all`
    drew 31 authors x 6 or 10 panels of bars squeezed onto one page: every label overlapped."""
    path = tmp_path_factory.mktemp("paper31") / "run"
    prompts = {"ballad": 2, "sonnet": 2, "limerick": 1}
    with paper_scale_run(path, prompts=prompts) as store, figure_style():
        data, labels = load_run_data(store), run_labels(store)
        for group in ("basic", "advanced", "appraisal", "all"):
            ctx = FigureContext(data, judge="gemini-2.5-pro", width=width, labels=labels)
            drawing = FIGURE_KINDS["dimension_bars"][0](ctx, group=group)
            assert text_problems(drawing.figure) == [], group
            assert drawing.figure.get_figheight() <= 9.0 + 1e-9
            if "heatmap" in drawing.caption:  # says why, and that all 31 authors are there
                assert "would not fit" in drawing.caption
                assert "Qwen2.5-72B-Instruct" in {
                    t.get_text() for t in drawing.figure.findobj(Text)
                }
            plt.close(drawing.figure)


def test_heatmap_cells_never_round_a_likert_mean_to_a_whole_number(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """At one column the ten-dimension heatmap of 31 authors printed 3.55 as "4" beside 4.40
    as "4": where one decimal does not fit, the cells are left to the colour scale."""
    path = tmp_path_factory.mktemp("heat31") / "run"
    with paper_scale_run(path, prompts={"ballad": 2, "sonnet": 1}) as store, figure_style():
        ctx = FigureContext(load_run_data(store), judge="gemini-2.5-pro", width=3.3,
                            labels=run_labels(store))  # fmt: skip
        drawing = FIGURE_KINDS["heatmap"][0](ctx)
    cells = [t.get_text() for t in drawing.figure.axes[0].texts]
    assert not any(text.isdigit() for text in cells), cells[:10]
    assert text_problems(drawing.figure) == []


def test_long_names_do_not_stack_a_one_column_figure_a_page_tall(few_authors_run: Path) -> None:
    """Rotated under vertical bars, 'DeepSeek-R1-Distill-Llama-70B' took a column of its own
    for each of Fig. 5's three panels: 7.9 in tall at one column, where horizontal bars take
    2.6 in."""
    with RunStore(few_authors_run, create=False) as store, figure_style():
        data, labels = load_run_data(store), run_labels(store)
        for kind in ("rule_based", "lexical", "ghostwriting", "form_accuracy"):
            ctx = FigureContext(data, judge="local-openai", width=3.3, labels=labels)
            drawing = FIGURE_KINDS[kind][0](ctx)
            assert drawing.figure.get_figheight() < 4.0, kind
            assert text_problems(drawing.figure) == [], kind
            plt.close(drawing.figure)


def test_a_long_judge_name_beside_the_experts_wraps_its_legend_at_acl_width(
    few_authors_run: Path, tmp_path: Path
) -> None:
    """Figs. 6-8's legend was one row whatever its names: the local judge's 'Qwen/Qwen2.5-72B-
    Instruct (local)' beside 'Human experts (4)' ran off both sides of ACL's 3.03 in column.
    It now takes as many rows as it needs."""
    with RunStore(few_authors_run, create=False) as store, figure_style():
        ratings = write_synthetic_experts(store, tmp_path / "experts.csv", authors=FEW_AUTHORS,
                                          experts=4)  # fmt: skip
        ctx = FigureContext(load_run_data(store), judge="local-openai", width=3.03,
                            labels=run_labels(store), experts=load_expert_ratings(ratings, store))  # fmt: skip
        drawing = FIGURE_KINDS["dimension_bars"][0](ctx, group="basic")
    legend = [t.get_text() for t in drawing.figure.legends[0].get_texts()]
    assert legend == ["Judge: Qwen/Qwen2.5-72B-Instruct (local)", "Human experts (4)"]
    assert text_problems(drawing.figure) == []
    plt.close(drawing.figure)


def test_the_paper_fig_5_keeps_two_panels_a_row_at_one_column(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The seven representative models' names fit two panels a row at one column (4.8 in);
    an estimate of their width 10% too wide stacked the three panels 7 in tall."""
    path = tmp_path_factory.mktemp("fig5") / "run"
    with paper_scale_run(path, prompts={"ballad": 2, "sonnet": 1}) as store, figure_style():
        data = load_run_data(store)
        shown, _ = select_authors("paper7", data.generations["author"].unique())
        ctx = FigureContext(data, judge="gemini-2.5-pro", authors=shown, width=3.3,
                            labels=run_labels(store))  # fmt: skip
        drawing = FIGURE_KINDS["rule_based"][0](ctx)
    assert drawing.figure.get_figheight() < 5.0
    assert text_problems(drawing.figure) == []


def test_text_extents_measured_without_rendering_are_the_rendered_ones(
    few_authors_run: Path,
) -> None:
    """`text_problems` lays a figure out without rasterising it (`draw_without_rendering`): every
    text's extent, with the layout engine's moves and rotated labels, is the one a full Agg
    drawing gives, in every paper figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def extents(rendered: bool) -> list[tuple[str, tuple[float, ...]]]:
        with RunStore(few_authors_run, create=False) as store, figure_style():
            data, labels = load_run_data(store), run_labels(store)
            found = []
            for kind, (function, _) in FIGURE_KINDS.items():
                ctx = FigureContext(data, judge="local-openai", width=3.3, labels=labels)
                figure = function(ctx).figure
                figure.set_dpi(72)
                canvas = FigureCanvasAgg(figure)
                canvas.draw() if rendered else figure.draw_without_rendering()
                renderer = canvas.get_renderer()
                for text in figure.findobj(Text):
                    if text.get_visible() and text.get_text():
                        box = text.get_window_extent(renderer)
                        found.append((f"{kind}: {text.get_text()[:30]}", tuple(box.bounds)))
                plt.close(figure)
            return found

    rendered, laid_out = extents(True), extents(False)
    assert len(rendered) > 100
    assert [name for name, _ in laid_out] == [name for name, _ in rendered]
    for (name, box), (_, expected) in zip(laid_out, rendered, strict=True):
        assert box == pytest.approx(expected, abs=1e-6), name
