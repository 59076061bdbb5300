"""`form run` at a new `--threshold` changed every stored verdict, but the tables already in
`RUN/analysis/` (the LaTeX ones a paper inputs), the figures and the report kept the old pass
rates, and nothing said so. It now names the folders made from the earlier checks and the
commands that remake them; a run with none of them, or a `form run` that changed nothing, says
nothing more."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app

runner = CliRunner()


def _invoke(args: list[str]) -> str:
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_a_new_threshold_names_the_outputs_it_made_out_of_date(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _invoke(["generate", "--run", str(run), "--models", "markov", "--limit", "3", "--no-progress"])
    first = _invoke(["form", "run", "--run", str(run), "--no-progress"])
    assert "note:" not in first  # nothing made from checks yet
    (run / "report").mkdir()
    (run / "report" / "index.html").write_text("<html></html>", encoding="utf-8")
    _invoke(["analyze", "--run", str(run)])
    again = _invoke(["form", "run", "--run", str(run), "--no-progress"])
    assert "note:" not in again  # every verdict stored already: nothing changed
    lowered = _invoke(["form", "run", "--run", str(run), "--threshold", "0.4", "--no-progress"])
    assert lowered.endswith(
        f"note: {run / 'analysis'} and {run / 'report'} were made from the earlier form checks: "
        f"run `poemetric analyze --run {run}` and `poemetric report --run {run}` again"
    ), lowered


def test_no_note_for_outputs_not_made_from_form_checks_or_unchanged_verdicts(
    tmp_path: Path,
) -> None:
    """`ghostwriting metrics` writes `RUN/analysis` without form checks, and `--force` at the
    same threshold changes no verdict: the note said both were out of date."""
    run = tmp_path / "run"
    _invoke(["generate", "--run", str(run), "--models", "markov", "--limit", "3", "--no-progress"])
    _invoke(["form", "run", "--run", str(run), "--no-progress"])
    _invoke(["ghostwriting", "metrics", "--run", str(run)])
    assert (run / "analysis" / "ghostwriting.csv").is_file()
    lowered = _invoke(["form", "run", "--run", str(run), "--threshold", "0.4", "--no-progress"])
    assert "note:" not in lowered
    _invoke(["analyze", "--run", str(run)])
    forced = _invoke(["form", "run", "--run", str(run), "--threshold", "0.4", "--force",
                      "--no-progress"])  # fmt: skip
    assert "checked 6" in forced and "note:" not in forced
