"""`poemetric report` right after `generate` wrote a page without form checks or judge scores,
and said only where it was; `analyze` and `figures` name a missing stage and its command. The
report now does too, below the line that says where the page is."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app


def _report_notes(run: Path) -> list[str]:
    result = CliRunner().invoke(app, ["report", "--run", str(run)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"wrote {run / 'report' / 'index.html'} ")
    return lines[1:]


def test_the_report_names_the_stages_its_run_lacks_with_their_commands(tmp_path: Path) -> None:
    run = tmp_path / "run"
    made = CliRunner().invoke(app, ["generate", "--run", str(run), "--limit", "1", "--no-progress"])
    assert made.exit_code == 0, made.output
    form = f"note: no form checks: the report has no form-check results (run `poemetric form run --run {run}`, then this command again)"
    judge = f"note: no successful judgments: the report has no judge scores (run `poemetric judge --run {run} --judge NAME`, then this command again)"
    assert _report_notes(run) == [form, judge]
    checked = CliRunner().invoke(app, ["form", "run", "--run", str(run), "--no-progress"])
    assert checked.exit_code == 0, checked.output
    assert _report_notes(run) == [judge]
