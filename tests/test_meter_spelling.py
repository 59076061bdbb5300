"""The tables head their column "Meter score" and the figures say "meter", but the analysis
tables' captions, the report's form-check text and the `form` command's help said "metre":
a paper quoting the caption and the table read as if they were two measures. The user-facing
text of the analysis, the report and the help spell it "meter" (the column `meter_score` and
the dataset's `meter_pattern` unchanged)."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app

METRE = re.compile(r"\bmetre", re.IGNORECASE)


def test_the_analysis_captions_and_the_report_spell_meter_as_the_tables_do(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=2, judges=()).close()
    runner = CliRunner()
    for command in (["analyze", "--run", str(run)], ["report", "--run", str(run)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 0, result.output
    analysis = run / "analysis"
    table = (analysis / "form_checks.tex").read_text(encoding="utf-8")
    assert "Meter score" in table
    assert "form, meter and rhyme scores" in table and not METRE.search(table)
    captions = [path.read_text(encoding="utf-8") for path in analysis.glob("*")
                if path.suffix in {".tex", ".md", ".json"}]  # fmt: skip
    assert captions and not [text for text in captions if METRE.search(text)]
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "Rule-based check of form, meter and rhyme" in page
    assert not METRE.search(page), METRE.findall(page)


def test_the_form_commands_help_spells_meter() -> None:
    for command in (
        ["--help"],
        ["form", "--help"],
        ["form", "check", "--help"],
        ["form", "scan", "--help"],
    ):
        result = CliRunner().invoke(app, command, terminal_width=200)
        assert result.exit_code == 0, result.output
        assert not METRE.search(result.output), (command, result.output)
