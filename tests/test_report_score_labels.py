"""The report's form table headed its metre column "Metre score" where the LaTeX and Markdown
tables and the figures say "Meter score" (the column `meter_score`): a paper quoting both read
as if they were two measures. One label everywhere."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


def test_the_report_and_the_tables_name_the_meter_score_alike(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=2).close()
    for command in (["analyze", "--run", str(run)], ["report", "--run", str(run)]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 0, result.output
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    table = (run / "analysis" / "form_checks.tex").read_text(encoding="utf-8")
    assert "Meter score" in table
    assert "<th>Meter score</th>" in page and "Metre score" not in page
    assert 'scores.push("meter "' in page  # the poem browser's score line
