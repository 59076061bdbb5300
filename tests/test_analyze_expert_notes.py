"""`analyze` says why the expert tables are missing and how to make them: a built survey with no
answers yet was passed over in silence (without `--survey`), or named without the commands that
collect its answers; a ratings file on a run without judgments left out the judge agreement
without saying how to judge."""

from __future__ import annotations

import csv
from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app

runner = CliRunner()
WIDE = {"COLUMNS": "400"}


def _run_with_survey(tmp_path: Path, judges: tuple[str, ...] = ("judge-x",)) -> Path:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=judges).close()
    build = ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "4"]
    assert runner.invoke(app, build).exit_code == 0
    return run


def test_a_survey_without_answers_is_named_with_the_commands_that_fill_it(tmp_path: Path) -> None:
    run = _run_with_survey(tmp_path)
    for extra in ([], ["--survey", "experts"]):
        result = runner.invoke(app, ["analyze", "--run", str(run), *extra], env=WIDE)
        assert result.exit_code == 0, result.output
        assert "survey 'experts' has no answers yet" in result.output
        notes = (run / "analysis" / "NOTES.txt").read_text(encoding="utf-8")
        assert "survey 'experts' has no answers yet" in notes
        assert f"`poemetric survey serve --run {run}`" in notes
        assert f"`poemetric survey sheets --run {run}`" in notes
        assert f"`poemetric survey import FILE --run {run}`" in notes


def test_a_run_without_a_survey_gets_no_survey_note(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    result = runner.invoke(app, ["analyze", "--run", str(run)], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "expert tables" not in result.output


def test_judge_agreement_left_out_names_the_judge_command(tmp_path: Path) -> None:
    run = _run_with_survey(tmp_path, judges=())
    assert runner.invoke(app, ["survey", "sheets", "--run", str(run)]).exit_code == 0
    sheet = run / "survey-experts" / "R1.csv"
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for row in rows:
        row["score"] = "3"
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = runner.invoke(app, ["analyze", "--run", str(run), "--experts", str(sheet)], env=WIDE)
    assert result.exit_code == 0, result.output
    notes = (run / "analysis" / "NOTES.txt").read_text(encoding="utf-8")
    judge = f"`poemetric judge --run {run} --judge NAME`"
    assert f"judge agreement skipped: the run has no judgments (run {judge})" in notes
