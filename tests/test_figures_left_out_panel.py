"""A figure drawn without one of its panels says so in the terminal, not only in its caption
file: `figures --recipe paper` on a run without form checks drew Fig. 5 without its form
accuracy panel, and the terminal only listed the figure among those written."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


def test_fig5_without_form_checks_says_its_panel_is_left_out(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=(), with_form_checks=False).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("figures:\n  - {name: fig05, kind: rule_based}\n", encoding="utf-8")
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert (run / "figures" / "fig05.png").exists()
    assert (
        "note fig05: the form accuracy panel is left out: no form checks "
        f"(run `poemetric form run --run {run}`)"
    ) in result.output
    caption = (run / "figures" / "fig05.caption.txt").read_text(encoding="utf-8")
    assert "Form accuracy not shown: no form checks" in caption


def test_fig5_with_form_checks_has_no_such_note(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=()).close()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("figures:\n  - {name: fig05, kind: rule_based}\n", encoding="utf-8")
    command = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "left out" not in result.output
