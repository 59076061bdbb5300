"""Figures and the analyze / figures CLI on synthetic runs: every paper figure at one and two
columns with readable, non-overlapping text, captions that say what the whiskers are, author
selection, display names."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text
from typer.testing import CliRunner

from poemetric.analysis import Recipe, RecipeError, load_recipe, make_figures, render_figures
from poemetric.analysis.context import FigureContext, FigureSkipped
from poemetric.analysis.data import RunData, load_run_data
from poemetric.analysis.experts import load_expert_ratings
from poemetric.analysis.figure_checks import text_problems
from poemetric.analysis.labels import run_labels
from poemetric.analysis.plotting import COLUMN_WIDTHS, figure_style, parse_width
from poemetric.analysis.recipes import FIGURE_KINDS, FigureSpec
from poemetric.analysis.selection import AuthorSelectionError, select_authors
from poemetric.analysis.synthetic import (
    build_synthetic_run,
    paper_scale_run,
    write_synthetic_experts,
)
from poemetric.cli import app
from poemetric.paths import resource_path
from poemetric.roster import load_groups
from poemetric.store import RunStore

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
#: One prompt per form but more ballads and sonnets, as in the paper: 31 authors x 9 prompts.
SMALL_PAPER = {"ballad": 2, "ghazal": 1, "limerick": 1, "pantoum": 1, "sestina": 1, "sonnet": 2,
               "villanelle": 1}  # fmt: skip


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("synthetic") / "run"
    build_synthetic_run(path, poems_per_form=2).close()
    return path


@pytest.fixture(scope="module")
def paper_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """31 authors (human + paper30), judged by 'gemini-2.5-pro', with 7 experts on paper7."""
    path = tmp_path_factory.mktemp("paper") / "run"
    with paper_scale_run(path, prompts=SMALL_PAPER) as store:
        experts = write_synthetic_experts(
            store, path / "experts.csv", authors=("human", *load_groups()["paper7"])
        )
    return path, experts


@pytest.fixture(scope="module")
def rule_only_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rule-only") / "run"
    build_synthetic_run(path, poems_per_form=2, judges=()).close()
    return path


def test_figures_are_written_with_captions(run_dir: Path, tmp_path: Path) -> None:
    recipe = Recipe(figures=[FigureSpec(name="rank", kind="ranking"),
                             FigureSpec(name="case", kind="case_study"),
                             FigureSpec(name="bars", kind="dimension_bars", group="basic")])  # fmt: skip
    with RunStore(run_dir, create=False) as store:
        paths = make_figures(store, tmp_path, recipe=recipe)
    assert sorted(p.name for p in paths) == [
        "bars.caption.txt", "bars.pdf", "bars.png", "case.caption.txt", "case.pdf", "case.png",
        "rank.caption.txt", "rank.pdf", "rank.png",
    ]  # fmt: skip
    _check_files(paths)
    assert "whiskers: 95% CI of the mean over poems" in (tmp_path / "bars.caption.txt").read_text()
    assert "95% CI" in (tmp_path / "rank.caption.txt").read_text()


def _check_files(paths: list[Path]) -> None:
    for path in paths:
        data = path.read_bytes()
        if path.suffix == ".txt":
            assert len(data) > 40, path
            continue
        assert len(data) > 2000, path
        assert data.startswith(PNG_MAGIC if path.suffix == ".png" else b"%PDF"), path


def _texts(figure: Figure) -> set[str]:
    return {t.get_text() for t in figure.findobj(Text) if t.get_visible()}


@pytest.mark.slow
@pytest.mark.parametrize("width", COLUMN_WIDTHS.values(), ids=COLUMN_WIDTHS.keys())
def test_every_paper_figure_is_readable_at_one_and_two_columns(
    paper_run: tuple[Path, Path], width: float
) -> None:
    """Every figure kind of the paper recipe (and the rest) on 31 authors with experts: no text
    under 6 pt, no overlapping text, nothing outside the figure, the exact printed width."""
    path, experts = paper_run
    specs = load_recipe("paper").figures + [
        FigureSpec(name=kind, kind=kind)
        for kind in (
            "form_accuracy",
            "form_heatmap",
            "lexical",
            "radar",
            "imagery",
            "opening_words",
            "top_words",
            "ghostwriting",
        )
    ]
    with RunStore(path, create=False) as store, figure_style():
        data = load_run_data(store)
        labels = run_labels(store)
        ratings = load_expert_ratings(experts, store)
        for spec in specs:
            shown, _ = select_authors(spec.authors, data.generations["author"].unique())
            ctx = FigureContext(data, judge="gemini-2.5-pro", authors=shown, width=width,
                                labels=labels, experts=ratings)  # fmt: skip
            drawing = FIGURE_KINDS[spec.kind][0](ctx, **spec.params)
            problems = text_problems(drawing.figure)
            assert problems == [], (spec.name, width, problems[:5])
            if spec.kind != "radar":
                assert drawing.figure.get_figwidth() == pytest.approx(width), spec.name
            assert drawing.figure.get_figheight() <= 9.0 + 1e-9, spec.name
            texts = _texts(drawing.figure)
            # display names, never model ids; the human poets named as such
            assert "Human" in texts or spec.kind in ("case_study", "radar"), spec.name
            assert "deepseek-r1" not in texts and "gpt-4o" not in texts, spec.name
            if spec.authors == "paper7" and spec.kind != "case_study":
                assert "GPT-4o" in texts and "GPT-3.5-Turbo" not in texts, spec.name
            if spec.kind in ("all_models", "ranking"):  # 31 bars, each labelled directly
                assert {"GPT-3.5-Turbo", "o1", "QwQ-32B", "Qwen2.5-0.5B-Instruct"} <= texts


def test_likert_axes_run_from_1_to_5_and_experts_get_a_panel(paper_run: tuple[Path, Path]) -> None:
    path, experts = paper_run
    with RunStore(path, create=False) as store, figure_style():
        data = load_run_data(store)
        shown, _ = select_authors("paper7", data.generations["author"].unique())
        ctx = FigureContext(data, judge="gemini-2.5-pro", authors=shown, width=6.8,
                            labels=run_labels(store),
                            experts=load_expert_ratings(experts, store))  # fmt: skip
        drawing = FIGURE_KINDS["dimension_bars"][0](ctx, group="basic")
    axes = [a for a in drawing.figure.axes if a.get_visible()]
    assert len(axes) == 2 and all(a.get_ylim() == (1.0, 5.0) for a in axes)
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["1", "2", "3", "4", "5"]
    legend = {t.get_text() for t in drawing.figure.legends[0].get_texts()}
    assert legend == {"Judge: Gemini-2.5-Pro", "Human experts (7)"}  # Gemini is an author too
    assert "7 human experts" in drawing.caption and "whiskers: 95% CI" in drawing.caption


def test_case_study_shows_both_poems_with_titles(paper_run: tuple[Path, Path]) -> None:
    path, _ = paper_run
    with RunStore(path, create=False) as store, figure_style():
        data = load_run_data(store)
        ctx = FigureContext(data, judge="gemini-2.5-pro", width=3.3, labels=run_labels(store))
        drawing = FIGURE_KINDS["case_study"][0](ctx, author="deepseek-r1")
        poem_id = drawing.caption.split("(poem ")[1].split(")")[0]
        title = store.query("SELECT title FROM poems WHERE poem_id = ?", [poem_id])[0][0]
        poem = store.query("SELECT poem FROM generations WHERE poem_id = ? AND author = ?",
                           [poem_id, "deepseek-r1"])[0][0]  # fmt: skip
    texts = _texts(drawing.figure)
    assert f"Poem B: {title}" in texts and "Poem A (untitled)" in texts
    lines = [line for line in poem.split("\n") if line.strip()]
    assert len(lines) >= 10 and set(lines) <= texts  # the poem's lines, each printed
    assert {"Poem A (DeepSeek-R1)", "Poem B (Human)"} <= texts


def test_author_selection_by_group_and_name(paper_run: tuple[Path, Path]) -> None:
    path, _ = paper_run
    with RunStore(path, create=False) as store:
        present = load_run_data(store).generations["author"].unique()
    shown, notes = select_authors("paper7", present)
    assert shown == ["human", *load_groups()["paper7"]] and notes == []
    shown, _ = select_authors("gpt-4o, o1,gpt-4o", present)
    assert shown == ["human", "gpt-4o", "o1"]
    with pytest.raises(AuthorSelectionError, match="did you mean 'gpt-4', 'gpt-4o'"):
        select_authors("gpt-40", present)
    shown, notes = select_authors("paper7,markov", ["human", "gpt-4o", "markov"])
    assert shown == ["human", "gpt-4o", "markov"] and "6 of 7 not in this run" in notes[0]


def test_a_recipe_choice_missing_from_the_run_falls_back_to_every_author(
    run_dir: Path, tmp_path: Path
) -> None:
    recipe = Recipe(figures=[FigureSpec(name="bars", kind="dimension_bars", authors="paper7")])
    with RunStore(run_dir, create=False) as store:
        report = render_figures(store, tmp_path, recipe=recipe, formats=["png"])
    assert [p.name for p in report.paths] == ["bars.png", "bars.caption.txt"]
    assert "showing every author" in report.notes[0]


@pytest.mark.slow
def test_paper_recipe(paper_run: tuple[Path, Path], tmp_path: Path) -> None:
    path, experts = paper_run
    with RunStore(path, create=False) as store:
        report = render_figures(store, tmp_path, recipe="paper", formats=["pdf"], width=3.3,
                                experts=experts)  # fmt: skip
    assert not report.skipped
    assert len(report.paths) == 2 * len(load_recipe("paper").figures)
    _check_files(report.paths)
    pdf = (tmp_path / "fig09-ranking.pdf").read_bytes()
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ", pdf)
    assert box is not None and float(box.group(1)) == 237.6  # 3.3 in: the printed width


def test_figures_without_judgments_skip_with_reasons(rule_only_run: Path, tmp_path: Path) -> None:
    with RunStore(rule_only_run, create=False) as store:
        report = render_figures(store, tmp_path, formats=["png"])
    names = {p.stem for p in report.paths if p.suffix == ".png"}
    assert {"rule-based", "form-accuracy", "lexical-diversity", "top-words", "imagery"} <= names
    assert "ranking" not in names
    assert any(s.startswith("ranking: no judgments") for s in report.skipped)


def test_bundled_recipes_are_valid() -> None:
    for path in sorted(resource_path("analysis").glob("*.yaml")):
        assert load_recipe(path.stem).figures, path


def test_bad_recipes_are_reported(tmp_path: Path) -> None:
    with pytest.raises(RecipeError, match="no recipe 'nope'"):
        load_recipe("nope")
    bad_kind = tmp_path / "bad.yaml"
    bad_kind.write_text("figures:\n  - {name: x, kind: pie}\n")
    with pytest.raises(RecipeError, match="unknown figure kind 'pie'"):
        load_recipe(bad_kind)
    bad_param = tmp_path / "param.yaml"
    bad_param.write_text("figures:\n  - {name: x, kind: ranking, colour: red}\n")
    with pytest.raises(
        RecipeError, match=r"unknown parameter 'colour' of a ranking figure; accepted: none$"
    ):
        load_recipe(bad_param)


def test_cli_analyze_and_figures(run_dir: Path, tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "tables"
    result = runner.invoke(app, ["analyze", "--run", str(run_dir), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "POEMetric summary" in result.output and "model-a" in result.output
    assert (out / "group_scores.tex").is_file() and (out / "lexical.md").is_file()

    figures = tmp_path / "figs"
    args = ["figures", "--run", str(run_dir), "--recipe", "rule-based", "--format", "png",
            "--out", str(figures), "--width", "one", "--authors", "model-b"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert str(figures / "rule-based.png") in result.output
    png = (figures / "form-by-poem-form.png").read_bytes()
    assert int.from_bytes(png[16:20], "big") == 990  # 3.3 in at 300 dpi
    assert "model-a" not in (figures / "top-words.caption.txt").read_text()


def test_cli_errors(tmp_path: Path, run_dir: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["analyze", "--run", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "error: no run store" in result.stderr
    result = runner.invoke(app, ["figures", "--run", str(run_dir), "--format", "gif"])
    assert result.exit_code != 0 and "gif" in result.output
    result = runner.invoke(app, ["figures", "--run", str(run_dir), "--width", "wide"])
    assert result.exit_code == 2 and "use 'one' (also 'single', 'column': 3.3 in)" in result.output
    result = runner.invoke(app, ["figures", "--run", str(run_dir), "--authors", "model-c"])
    output = " ".join(result.output.replace("│", " ").split())
    assert result.exit_code == 2 and "'model-c' is neither an author" in output


def test_a_number_of_inches_is_never_a_column_alias(run_dir: Path) -> None:
    """`--width 2` gave two columns (6.8 in) though 2 in is a valid width, `--width 1` one
    column, and neither --help nor the error said so: numbers are now always inches."""
    assert parse_width("2") == 2.0 and parse_width("2.5in") == 2.5
    assert parse_width("column") == parse_width("one") == COLUMN_WIDTHS["one"]
    assert parse_width("page") == parse_width("two") == COLUMN_WIDTHS["two"]
    with pytest.raises(ValueError, match=r"between 2 and 10; for a column width say 'one' \(3.3"):
        parse_width("1")
    runner = CliRunner()
    result = runner.invoke(app, ["figures", "--run", str(run_dir), "--width", "1"])
    assert result.exit_code == 2 and "'two' (6.8 in)" in result.output
    help_text = " ".join(runner.invoke(app, ["figures", "--help"]).output.replace("│", " ").split())
    for word, inches in COLUMN_WIDTHS.items():
        assert f"'{word}' column{'s' if word == 'two' else ''} ({inches:g} in" in help_text
    assert "'2' is 2 in" in help_text


def test_figure_checks_find_small_overlapping_and_clipped_text() -> None:
    figure = Figure(figsize=(2, 1))
    figure.text(0.1, 0.5, "small", fontsize=5)
    figure.text(0.5, 0.5, "overlap one", fontsize=7)
    figure.text(0.52, 0.5, "overlap two", fontsize=7)
    figure.text(0.95, 0.1, "outside the figure", fontsize=7)
    problems = text_problems(figure)
    assert any("'small' is 5 pt" in p for p in problems)
    assert any("'overlap one' overlaps 'overlap two'" in p for p in problems)
    assert any("'outside the figure' leaves the figure" in p for p in problems)
    # Two neighbouring 45-degree labels do not overlap although their axis-aligned boxes do.
    rotated = Figure(figsize=(2, 2))
    for x in (0.75, 0.85):
        rotated.text(x, 0.5, "Claude-3.7-Sonnet", rotation=45, fontsize=6.5, ha="right",
                     rotation_mode="anchor")  # fmt: skip
    assert text_problems(rotated) == []


def test_figure_skipped_is_raised_for_missing_data(rule_only_run: Path) -> None:
    with RunStore(rule_only_run, create=False) as store:
        ctx = FigureContext(load_run_data(store))
    with pytest.raises(FigureSkipped, match="no judgments"):
        FIGURE_KINDS["ranking"][0](ctx)
    assert np.isfinite(ctx.lexical["ttr_mean"]).all()


def _opening_words_run(openings: dict[str, list[str]]) -> FigureContext:
    rows = [
        {"author": author, "poem": f"{word} runs on\nand on again"}
        for author, words in openings.items()
        for word in words
    ]
    empty = pd.DataFrame()
    return FigureContext(RunData(pd.DataFrame(rows), empty, empty), authors=list(openings))


def test_word_figures_rank_words_by_their_mean_share_over_every_author_shown() -> None:
    # "Zephyr" opens every poem of one author (mean share 1/3 over the three authors); "River"
    # opens 60% of two authors' poems (mean 0.4): River ranks first. Averaging only over the
    # authors who use a word ranked Zephyr (1.0) above River (0.6).
    ctx = _opening_words_run(
        {
            "human": ["river"] * 6 + ["stone"] * 4,
            "model-a": ["zephyr"] * 10,
            "model-b": ["river"] * 6 + ["stone"] * 4,
        }
    )
    with figure_style():
        drawing = FIGURE_KINDS["opening_words"][0](ctx, k=3)
    labels = [t.get_text() for t in drawing.figure.axes[0].get_yticklabels()]
    assert labels == ["River", "Zephyr", "Stone"]


def test_the_human_authorship_item_is_not_named_like_the_human_poets(
    paper_run: tuple[Path, Path],
) -> None:
    # "Human" above Fig. 17's bars, at Fig. 3's last bar pair beside "Poem B (Human)" and as a
    # heatmap column read as the human poets; the tables call the item "Human authorship".
    run, _ = paper_run
    kinds = {"all_models": {"dimensions": ["human_authorship"]},
             "dimension_bars": {"group": "appraisal"}, "case_study": {}, "heatmap": {},
             "radar": {}}  # fmt: skip
    with RunStore(run, create=False) as store, figure_style():
        data, labels = load_run_data(store), run_labels(store)
        for width in COLUMN_WIDTHS.values():
            ctx = FigureContext(data, judge="gemini-2.5-pro", width=width, labels=labels)
            for kind, params in kinds.items():
                drawing = FIGURE_KINDS[kind][0](ctx, **params)
                # a panel title wider than its panel is wrapped
                texts = [" ".join(t.get_text().split()) for t in drawing.figure.findobj(Text)]
                assert "Human authorship" in texts, (kind, width)
                assert text_problems(drawing.figure) == [], (kind, width)


def test_captions_name_chosen_dimensions_in_words(paper_run: tuple[Path, Path]) -> None:
    # Figs. 16-17 (`dimensions: [overall_quality]`) printed the keys into the caption that goes
    # under the figure in a paper: "POEMetric scores of every author, overall_quality, ...".
    run, _ = paper_run
    with RunStore(run, create=False) as store, figure_style():
        ctx = FigureContext(load_run_data(store), judge="gemini-2.5-pro")
        for kind, layout in (("all_models", "bars"), ("all_models", "heatmap")):
            dimensions = ["overall_quality", "human_authorship"]
            caption = FIGURE_KINDS[kind][0](ctx, dimensions=dimensions, layout=layout).caption
            assert "every author, overall quality, human authorship, judged by" in caption
        caption = FIGURE_KINDS["dimension_bars"][0](ctx, dimensions=["emotional_resonance"]).caption
        assert "POEMetric scores, emotional resonance, judged by" in caption
        assert "_" not in caption
