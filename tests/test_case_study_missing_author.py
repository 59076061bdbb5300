"""`figures --recipe paper` on a run without Claude or Gemini skipped Figs. 12-13 with "no prompt
judged for both 'claude-3.7-sonnet' and 'human'", which sent the user to the judge; the model
simply wrote no poems in the run. The skip now says that, and names the run's authors."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


def test_a_showcase_of_an_author_the_run_lacks_says_so(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n"
        "  - {name: claude, kind: case_study, author: claude-3.7-sonnet}\n"
        "  - {name: model-a, kind: case_study, author: model-a}\n",
        encoding="utf-8",
    )
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert (
        "skipped claude: 'claude-3.7-sonnet' has no poems in this run "
        "(authors: human, model-a, model-b)"
    ) in result.output
    assert "no prompt judged" not in result.output
    assert (run / "figures" / "model-a.png").exists()


def test_a_showcase_of_an_author_left_out_by_authors_says_so(tmp_path: Path) -> None:
    """With the named author in the run but not among `--authors` (or a recipe's `authors:`),
    the skip said "no prompt judged for both 'model-a' and 'human'", which sent the user to the
    judge; it now names the selection that left the author out."""
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n"
        "  - {name: by-option, kind: case_study, author: model-a}\n"
        "  - {name: by-recipe, kind: case_study, author: model-a, authors: model-b}\n",
        encoding="utf-8",
    )
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, [*command, "--authors", "model-b"], env={"COLUMNS": "400"})
    assert (
        "skipped by-option: 'model-a' is left out by --authors 'model-b' (shown: human, "
        "model-b); name it there too to draw this figure"
    ) in result.output
    assert "no prompt judged" not in result.output
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert "skipped by-recipe: 'model-a' is left out by the recipe's authors: 'model-b'" in (
        result.output
    )
    assert (run / "figures" / "by-option.png").exists()  # drawn where nothing leaves it out
