"""Captions say what a table or figure shows: which interval, what n counts, how to change it."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from poemetric.analysis import Recipe, analyze_run, render_figures
from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.data import HUMAN_AUTHOR, RunData, load_run_data
from poemetric.analysis.experts import load_expert_ratings
from poemetric.analysis.labels import Labels, run_labels
from poemetric.analysis.plotting import counted_poems, figure_style
from poemetric.analysis.recipes import FIGURE_KINDS, FigureSpec
from poemetric.analysis.synthetic import build_synthetic_run, write_synthetic_experts
from poemetric.store import stable_id


@pytest.mark.parametrize(("method", "said"), [("t", "Student t"),
                                              ("bootstrap", "2,000 resamples, seed 17")])  # fmt: skip
def test_captions_name_the_interval(tmp_path: Path, method: str, said: str) -> None:
    """`analyze --ci bootstrap` changed the intervals of the judge tables while every table
    still read "95% CI"; the form-check and lexical tables never said which intervals. A
    bootstrap's seed (`--seed`) is named too: a paper's intervals can be drawn again."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        result = analyze_run(store, ci_method=method, seed=17)  # type: ignore[arg-type]
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
    say how many, nor the seed (`--seed`) that draws the same intervals again."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        experts = write_synthetic_experts(store, tmp_path / "experts.csv",
                                          authors=("human", "model-a"), experts=3)  # fmt: skip
        analyze_run(store, experts=experts, n_boot=n_boot, seed=23).write(tmp_path / "out")
    for name in ("agreement", "agreement_experts"):
        caption, _, header, _, row, *_ = (tmp_path / "out" / f"{name}.md").read_text().splitlines()
        latex = (tmp_path / "out" / f"{name}.tex").read_text()
        if n_boot:
            assert "percentile bootstrap over poems, 40 resamples, seed 23" in caption, name
            assert "widened where needed to contain the estimate" in caption, name
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
#: The figure of one prompt's two poems.
NOT_PER_AUTHOR_MEANS = {"case_study"}


def test_every_figure_of_means_says_over_how_many_poems(tmp_path: Path) -> None:
    """Figs. 6-8 and 14-17 said "over 203 poems each"; Fig. 5 (rule-based), Fig. 9 (ranking),
    the form-accuracy, form-by-poem-form, lexical, ghostwriting and radar figures never said
    how many poems a bar or a cell stands for. Nor did the word figures (Figs. 10-11), whose
    cells are shares of each author's poems or words: 6.25% is 1 of 16 poems."""
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


def _captions(data: RunData, labels: Labels, experts: pd.DataFrame | None = None) -> dict[str, str]:
    """Every figure's caption for the run (figures the run cannot draw left out)."""
    captions = {}
    with figure_style():
        for kind, (function, _) in FIGURE_KINDS.items():
            ctx = FigureContext(data, judge="judge-x", labels=labels, experts=experts)
            try:
                drawing = function(ctx, author="gpt-4o") if kind == "case_study" else function(ctx)
            except FigureSkipped:
                continue
            captions[kind] = drawing.caption
            plt.close(drawing.figure)
    return captions


def test_fig_5_says_how_many_poems_its_form_accuracy_panel_counts(tmp_path: Path) -> None:
    """Fig. 5 said "over 6 poems each" from the lexical panels while its form-accuracy panel
    counts only the poems that were form-checked (4 or 5 of gpt-4o's 6 here)."""
    authors = (HUMAN_AUTHOR, "gpt-4o")
    with build_synthetic_run(tmp_path / "run", authors=authors, poems_per_form=2) as store:
        unchecked = [stable_id(poem, "gpt-4o") for poem in ("ballad-0", "sonnet-0")]
        store.conn.execute("DELETE FROM form_checks WHERE generation_id IN (?, ?)", unchecked)
        store.conn.execute(  # checked, but the checker could not assess it
            "UPDATE form_checks SET passed = NULL WHERE generation_id = ?",
            (stable_id("villanelle-0", HUMAN_AUTHOR),),
        )
        data, labels = load_run_data(store), run_labels(store)
    caption = _captions(data, labels)["rule_based"]
    assert caption.startswith(
        "Rule-based evaluation per author, over 6 poems each (form accuracy: over 4-5 checked "
        "poems each). Form accuracy: "
    )
    with build_synthetic_run(tmp_path / "all", authors=authors, poems_per_form=2) as store:
        data, labels = load_run_data(store), run_labels(store)
    caption = _captions(data, labels)["rule_based"]
    assert caption.startswith("Rule-based evaluation per author, over 6 poems each. Form ")


def test_counted_poems_is_singular_for_one_poem_only() -> None:
    assert counted_poems([1, 1]) == "1 poem"
    assert counted_poems(1, "checked poem") == "1 checked poem"
    assert counted_poems([2, 2]) == "2 poems"
    assert counted_poems([1, 2, float("nan")]) == "1-2 poems"
    assert counted_poems([]) == "0 poems"


#: A count of poems in a caption, its noun after it: "1 poem", "2-3 checked poems".
COUNTED = re.compile(r"\b(\d+(?:-\d+)?) ((?:checked )?poems?)\b")


@pytest.mark.parametrize("poems", [1, 2])
def test_every_caption_counts_poems_in_the_right_number(tmp_path: Path, poems: int) -> None:
    """A run of one poem per author read "over 1 poems each" (Figs. 5-9, the form-check,
    lexical, ghostwriting and heatmap figures; the radar alone said "1 poem")."""
    with build_synthetic_run(tmp_path / "run", authors=(HUMAN_AUTHOR, "gpt-4o", "markov"),
                             poems_per_form=poems, forms=("sonnet",)) as store:  # fmt: skip
        path = write_synthetic_experts(store, tmp_path / "experts.csv",
                                       authors=(HUMAN_AUTHOR, "gpt-4o"), experts=1,
                                       poems_per_expert=poems)  # fmt: skip
        data, labels = load_run_data(store), run_labels(store)
        experts = load_expert_ratings(path, store)
    captions = _captions(data, labels)
    with_experts = _captions(data, labels, experts)["dimension_bars"]
    # the judge's bars are over the experts' poems (`dimension_bars`), "1 human expert"
    assert "over the poems the experts rated (" in with_experts
    assert "Hatched grey bars: 1 human expert on the same poems" in with_experts
    captions["dimension_bars (experts)"] = with_experts
    counts = {kind: COUNTED.findall(caption) for kind, caption in captions.items()}
    counted = {kind: found for kind, found in counts.items() if found}
    assert {"rule_based", "ranking", "form_accuracy", "lexical", "ghostwriting"} <= set(counted)
    wrong = {
        kind: found
        for kind, found in counted.items()
        if any(noun.endswith("s") != (number != "1") for number, noun in found)
    }
    assert wrong == {}
    assert (f"{poems}", "poems" if poems > 1 else "poem") in counted["rule_based"]


@pytest.mark.parametrize(("poems", "said"), [(1, "1 poem shorter than 20 tokens has no MATTR"),
                                             (2, "2 poems shorter than 20 tokens have no MATTR")])  # fmt: skip
def test_the_lexical_caption_counts_short_poems_in_the_right_number(
    tmp_path: Path, poems: int, said: str
) -> None:
    """The lexical figure said "1 poem(s) shorter than 20 tokens have no MATTR"."""
    with build_synthetic_run(tmp_path / "run", authors=(HUMAN_AUTHOR,), poems_per_form=poems,
                             forms=("sonnet",), lines=2) as store:  # fmt: skip
        data, labels = load_run_data(store), run_labels(store)  # 12 tokens a poem
    assert f" {said}." in _captions(data, labels)["lexical"]


def test_score_table_captions_say_that_n_a_is_left_out(tmp_path: Path) -> None:
    """The figures of the judge and expert scores say "N/A answers left out of the mean"; the
    tables of the same numbers (App. H's matrix among them, whose Imagery and Devices columns
    have no n N/A beside them) did not say how N/A answers were counted."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=2) as store:
        experts = write_synthetic_experts(store, tmp_path / "experts.csv",
                                          authors=("human", "model-a"), experts=3)  # fmt: skip
        result = analyze_run(store, experts=experts, n_boot=0)
    judged = result.tables["dimension_scores"]
    assert judged.loc[judged["dimension"] == "imagery", "n_na"].sum() > 0  # the run has N/A
    for name in ("dimension_scores", "dimension_scores_by_form", "dimension_matrix",
                 "expert_scores", "group_scores"):  # fmt: skip
        assert "N/A answers" in result.caption(name) and "out" in result.caption(name), name
    result.write(tmp_path / "out")
    tex = (tmp_path / "out" / "dimension_matrix.tex").read_text(encoding="utf-8")
    assert "leave N/A answers out of the mean" in tex
