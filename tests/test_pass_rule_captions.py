"""The form-accuracy caption said a poem passes on a "threshold on the form score", and the
report "at the form-score threshold"; a poem passes when every applicable score (form, meter,
rhyme) reaches it. After `poemetric demo` every Markov poem has form score 1.00 and none passes,
which the old wording made read as a bug."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app

RULE = "each of its applicable form, {meter} and rhyme scores reaches the threshold"


def test_captions_state_the_pass_rule_the_checks_follow(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=2, judges=()).close()
    runner = CliRunner()
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text("figures:\n  - {name: acc, kind: form_accuracy}\n", encoding="utf-8")
    figures = ["figures", "--run", str(run), "--recipe", str(recipe), "--format", "png"]
    assert runner.invoke(app, figures).exit_code == 0
    caption = " ".join((run / "figures" / "acc.caption.txt").read_text(encoding="utf-8").split())
    assert RULE.format(meter="meter") in caption and "on the form score" not in caption
    page = tmp_path / "report.html"
    assert runner.invoke(app, ["report", "--run", str(run), "--out", str(page)]).exit_code == 0
    html = page.read_text(encoding="utf-8")
    assert RULE.format(meter="meter") in html and "form-score threshold" not in html
