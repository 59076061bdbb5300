"""A recipe entry's `forms:` draws a figure from the poems of those forms only, and its caption
says so. Before, a newcomer's recipe for "the sonnets only" was refused: `forms` was an
unknown parameter of every figure kind ("accepted: none")."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


def test_a_figure_of_one_form_counts_only_its_poems(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form={"ballad": 1, "sonnet": 3, "villanelle": 2}).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(
        "figures:\n"
        "  - {name: every, kind: form_accuracy}\n"
        "  - {name: sonnets, kind: form_accuracy, forms: sonnet}\n"
        "  - {name: two, kind: form_accuracy, forms: [Sonnet, villanelle]}\n"
        "  - {name: typo, kind: form_accuracy, forms: sonet}\n",
        encoding="utf-8",
    )
    out = tmp_path / "figs"
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, [*command, "--out", str(out)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    every = (out / "every.caption.txt").read_text(encoding="utf-8")
    sonnets = (out / "sonnets.caption.txt").read_text(encoding="utf-8")
    two = (out / "two.caption.txt").read_text(encoding="utf-8")
    assert "over 6 checked poems each" in every and "Only the" not in every
    assert "over 3 checked poems each" in sonnets
    assert sonnets.rstrip().endswith("Only the sonnet poems (the recipe's forms:).")
    assert "over 5 checked poems each" in two
    assert "Only the sonnet and villanelle poems" in two
    assert (
        "skipped typo: the run has no 'sonet' poems (did you mean 'sonnet'?); its forms: "
        "ballad, sonnet, villanelle" in result.output
    )
    assert not (out / "typo.png").exists()
