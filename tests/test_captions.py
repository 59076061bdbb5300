"""Captions say what a table or figure shows: which interval, what n counts, how to change it."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from poemetric.analysis import Recipe, analyze_run, render_figures
from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.data import HUMAN_AUTHOR, load_run_data
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import figure_style
from poemetric.analysis.recipes import FIGURE_KINDS, FigureSpec
from poemetric.analysis.synthetic import build_synthetic_run, write_synthetic_experts


@pytest.mark.parametrize(("method", "said"), [("t", "Student t"),
                                              ("bootstrap", "percentile bootstrap")])  # fmt: skip
def test_captions_name_the_interval(tmp_path: Path, method: str, said: str) -> None:
    """`analyze --ci bootstrap` changed the intervals of the judge tables while every table
    still read "95% CI"; the form-check and lexical tables never said which intervals."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        result = analyze_run(store, ci_method=method)  # type: ignore[arg-type]
    for name in ("dimension_scores", "dimension_scores_by_form", "group_scores"):
        assert said in result.caption(name), name
    for name in ("form_checks", "form_checks_by_form"):
        caption = result.caption(name)
        assert "Wilson" in caption and "Student t" in caption, name
    assert "Student t" in result.caption("lexical")
    result.write(tmp_path / "out")
    assert said in (tmp_path / "out" / "group_scores.md").read_text().splitlines()[0]


def test_table_2_says_that_n_counts_ratings(tmp_path: Path) -> None:
    """Table 2's n is ratings (every expert rating, every judge sample), 70 beside a judge's
    69 on 69 poems; the other tables count poems, and this one did not say."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        experts = write_synthetic_experts(store, tmp_path / "experts.csv",
                                          authors=("human", "model-a"), experts=3)  # fmt: skip
        result = analyze_run(store, experts=experts, n_boot=10)
    assert "n: ratings" in result.caption("discrimination")


@pytest.mark.parametrize("n_boot", [0, 40])
def test_agreement_tables_promise_no_interval_they_do_not_print(
    tmp_path: Path, n_boot: int
) -> None:
    """`analyze --bootstrap 0` printed agreement tables captioned "bootstrap 95% CIs" with
    headers "PAo [95% CI]" above cells without an interval; with resamples, the caption did not
    say how many."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        experts = write_synthetic_experts(store, tmp_path / "experts.csv",
                                          authors=("human", "model-a"), experts=3)  # fmt: skip
        analyze_run(store, experts=experts, n_boot=n_boot).write(tmp_path / "out")
    for name in ("agreement", "agreement_experts"):
        caption, _, header, _, row, *_ = (tmp_path / "out" / f"{name}.md").read_text().splitlines()
        latex = (tmp_path / "out" / f"{name}.tex").read_text()
        if n_boot:
            assert "percentile bootstrap over poems, 40 resamples" in caption, name
            assert "| PAo [95% CI] |" in header and re.search(r"\d \[-?\d", row), name
            assert "PAo [95\\% CI]" in latex
        else:
            assert "no CIs (0 bootstrap resamples)" in caption and "95% CI" not in caption, name
            assert "| PAo |" in header and "[" not in header and "[" not in row, name
            assert "95\\% CI" not in latex.split("\\midrule")[0].split("\\toprule")[1]


def test_a_heatmap_caption_names_the_recipe_setting_not_a_missing_option(tmp_path: Path) -> None:
    """The App. H heatmap's caption pointed to `--layout bars`, which `figures` does not have:
    the setting is `layout: bars` in a recipe entry."""
    recipe = Recipe(figures=[FigureSpec(name="all", kind="all_models", layout="heatmap")])
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        render_figures(store, tmp_path / "figures", recipe=recipe, formats=("png",))
    caption = (tmp_path / "figures" / "all.caption.txt").read_text()
    assert "--layout" not in caption and "`layout: bars`" in caption


#: A full stop, a space and a lowercase letter: a sentence that starts lowercase ("e.g. paper7"
#: is not one).
LOWERCASE_SENTENCE = re.compile(r"(?<!e\.g)(?<!i\.e)\. [a-z]")


@pytest.mark.parametrize("form_checks", [True, False], ids=["checked", "unchecked"])
def test_every_figure_caption_starts_its_sentences_with_a_capital(
    tmp_path: Path, form_checks: bool
) -> None:
    """Fig. 5's caption read "Rule-based evaluation per author. form accuracy: share of …" (and
    "… per author. form accuracy not shown: …" without form checks)."""
    with build_synthetic_run(tmp_path / "run", authors=(HUMAN_AUTHOR, "gpt-4o", "markov"),
                             poems_per_form=1, with_form_checks=form_checks) as store:  # fmt: skip
        data, labels = load_run_data(store), run_labels(store)
    captions = {}
    with figure_style():
        for kind, (function, _) in FIGURE_KINDS.items():
            ctx = FigureContext(data, judge="judge-x", labels=labels)
            try:
                drawing = function(ctx, author="gpt-4o") if kind == "case_study" else function(ctx)
            except FigureSkipped:
                continue
            captions[kind] = drawing.caption
            plt.close(drawing.figure)
    assert "rule_based" in captions
    assert {k: c for k, c in captions.items() if LOWERCASE_SENTENCE.search(c)} == {}


#: How many poems a bar or cell stands for: "over 16 poems each", "(2 checked poems per cell)".
POEM_COUNT = re.compile(r"\b(\d+)(?:-\d+)? (?:checked )?poems\b")
#: Figures of words (their captions name the authors) and of one prompt's two poems.
NOT_PER_AUTHOR_MEANS = {"case_study", "top_words", "opening_words", "imagery", "opening_imagery"}


def test_every_figure_of_means_says_over_how_many_poems(tmp_path: Path) -> None:
    """Figs. 6-8 and 14-17 said "over 203 poems each"; Fig. 5 (rule-based), Fig. 9 (ranking),
    the form-accuracy, form-by-poem-form, lexical, ghostwriting and radar figures never said
    how many poems a bar or a cell stands for."""
    with build_synthetic_run(tmp_path / "run", authors=(HUMAN_AUTHOR, "gpt-4o", "markov"),
                             poems_per_form=2) as store:  # fmt: skip
        data, labels = load_run_data(store), run_labels(store)
    forms = data.generations["poem_form"].nunique()
    missing = {}
    with figure_style():
        for kind, (function, _) in FIGURE_KINDS.items():
            if kind in NOT_PER_AUTHOR_MEANS:
                continue
            drawing = function(FigureContext(data, judge="judge-x", labels=labels))
            plt.close(drawing.figure)
            found = POEM_COUNT.search(drawing.caption)
            expected = 2 if kind == "form_heatmap" else 2 * forms
            if found is None or int(found.group(1)) != expected:
                missing[kind] = drawing.caption
    assert missing == {}
