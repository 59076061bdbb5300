"""A recipe's own `authors:` that the run lacks: `figures` notes that it shows every author, and
says the choice was the recipe's. Before, the note read "--authors 'paper7' names no LLM author"
on every figure of `figures --recipe paper` after `poemetric demo`, though no `--authors` was
given."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


def test_a_recipe_choice_is_not_called_an_option(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n  - {name: bars, kind: dimension_bars, authors: paper7}\n", encoding="utf-8"
    )
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "--authors" not in result.output
    assert "bars: the recipe's authors: 'paper7' names no LLM author of this run" in result.output
    assert "showing every author" in result.output
    chosen = CliRunner().invoke(app, [*command, "--authors", "human"], env={"COLUMNS": "400"})
    assert chosen.exit_code == 2  # the option itself is still named when it is the culprit
    assert "--authors 'human' names no LLM author" in chosen.output


def test_no_author_note_for_a_figure_that_is_then_skipped(tmp_path: Path) -> None:
    """`figures --recipe paper` after the demo (no judgments) printed "fig06-basic: ... showing
    every author" and then "skipped fig06-basic: no judgments" for each judge figure."""
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=()).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n  - {name: bars, kind: dimension_bars, authors: paper7}\n"
        "  - {name: words, kind: top_words, authors: paper7}\n",
        encoding="utf-8",
    )
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "skipped bars: no judgments" in result.output
    assert "note bars:" not in result.output
    assert "note words: the recipe's authors: 'paper7' names no LLM author" in result.output


def test_the_option_is_named_once(tmp_path: Path) -> None:
    """`figures --authors human` said "error: --authors: --authors 'human' names no LLM
    author"; an unknown author is still prefixed with the option it was given in."""
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=()).close()
    command = ["figures", "--run", str(run), "--format", "png", "--authors"]
    human = CliRunner().invoke(app, [*command, "human"], env={"COLUMNS": "400"})
    assert human.exit_code == 2
    assert human.stderr.startswith("error: --authors 'human' names no LLM author of this run;")
    typo = CliRunner().invoke(app, [*command, "humna"], env={"COLUMNS": "400"})
    assert typo.exit_code == 2
    assert typo.stderr.startswith("error: --authors: 'humna' is neither an author of this run")


def test_a_recipe_author_the_run_lacks_is_left_out_not_every_author_shown(tmp_path: Path) -> None:
    """`authors: model-a, modle-b` (a typo, or a model of another run) showed every author of
    the run, with a note, though the run has model-a; as docs/analysis.md says, every author is
    shown only where the run has none of them. The name it lacks is noted and left out."""
    from poemetric.analysis import render_figures
    from poemetric.analysis.recipes import load_recipe
    from poemetric.store import RunStore

    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=()).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n  - {name: words, kind: top_words, authors: 'model-a, modle-b'}\n",
        encoding="utf-8",
    )
    with RunStore(run, create=False) as store:
        report = render_figures(store, tmp_path / "out", formats=("png",),
                                recipe=load_recipe(recipe))  # fmt: skip
    assert report.notes == [
        "words: the recipe's authors: 'modle-b' is neither an author of this run nor a generator "
        "group (did you mean 'model-b', 'model-a'?): left out"
    ], report.notes
    caption = (tmp_path / "out" / "words.caption.txt").read_text(encoding="utf-8")
    assert "over 2 authors (Human, model-a)" in caption, caption


def test_a_recipe_naming_only_authors_the_run_lacks_keeps_each_names_hint() -> None:
    """`authors: markvo` (a typo of the run's only model): every author is shown, and the note
    said only "'markvo' names no LLM author of this run", losing the "did you mean 'markov'?"
    that the name left out of a longer list gets."""
    from poemetric.analysis.selection import AuthorSelectionError, select_authors

    source = "the recipe's authors:"
    for selection in ("markvo", "human, markvo"):
        with pytest.raises(AuthorSelectionError) as error:
            select_authors(selection, ["human", "markov"], source=source, leave_out_unknown=True)
        assert str(error.value) == (
            "the recipe's authors: 'markvo' is neither an author of this run nor a generator "
            "group (did you mean 'markov'?); authors: human, markov"
        )
    with pytest.raises(AuthorSelectionError, match="'human' names no LLM author of this run"):
        select_authors("human", ["human", "markov"], source=source, leave_out_unknown=True)
