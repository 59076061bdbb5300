"""The pass threshold a run's form checks were made at is named wherever a pass rate is shown:
the form tables' captions, the form figures' captions and the report's form section. Before,
a run checked with `form run --threshold 0.4` said "the threshold, 0.7 by default" and its
LaTeX table named no threshold at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis import analyze_run
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.figures_rules import form_accuracy, form_heatmap, rule_based
from poemetric.analysis.form_threshold import threshold_words
from poemetric.cli import app
from poemetric.report.build import build_report
from poemetric.store import RunStore

runner = CliRunner()


def _checked_run(tmp_path: Path, threshold: float) -> Path:
    run = tmp_path / "run"
    for args in (
        ["generate", "--run", str(run), "--models", "markov", "--limit", "4", "--no-progress"],
        ["form", "run", "--run", str(run), "--threshold", str(threshold), "--no-progress"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
    return run


@pytest.fixture(scope="module")
def lowered_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _checked_run(tmp_path_factory.mktemp("lowered"), 0.4)


LOWERED = "the threshold 0.4, set for this run instead of the default 0.7"


def test_table_captions_name_the_run_threshold(lowered_run: Path) -> None:
    with RunStore(lowered_run, create=False) as store:
        result = analyze_run(store)
    for name in ("form_checks", "form_checks_by_form"):
        assert LOWERED in result.caption(name)
    written = result.write(lowered_run / "analysis")
    tex = next(p for p in written if p.name == "form_checks.tex").read_text(encoding="utf-8")
    assert LOWERED in tex


def test_figure_captions_name_the_run_threshold(lowered_run: Path) -> None:
    with RunStore(lowered_run, create=False) as store:
        ctx = FigureContext(load_run_data(store))
        captions = [draw(ctx).caption for draw in (form_accuracy, form_heatmap, rule_based)]
    for caption in captions:
        assert LOWERED in caption
        assert "0.7 by default" not in caption


def test_report_names_the_run_threshold(lowered_run: Path, tmp_path: Path) -> None:
    with RunStore(lowered_run, create=False) as store:
        page = build_report(store, tmp_path / "index.html").read_text(encoding="utf-8")
    assert LOWERED in page
    assert "0.7 by default" not in page


def test_threshold_words() -> None:
    assert threshold_words([]) == "the threshold, 0.7 by default"
    assert threshold_words([0.7]) == "the threshold, the default 0.7"
    assert threshold_words([0.4, 0.7]) == (
        "the threshold its check was made at, which in this run is 0.4 or 0.7"
    )
