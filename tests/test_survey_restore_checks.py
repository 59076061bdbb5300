"""A survey's answers exported (`poemetric export survey_answers`) and imported under a new name
kept no attention check: the import dropped the checks' answers, the restored survey had nothing
to fail, and `analyze --exclude-failed-checks` kept `restored:R3` silently while leaving out
`experts:R3` (the same rater, the same answers). The file holds the answers but not what each
check asked for, so the restored survey cannot judge them: the answers are stored, and the
import, `survey status` and the analysis notes say that those raters' checks are not judged.
A real run where rater R3 fails the check (tests/test_analyze_attention_checks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_analyze_attention_checks import _run_where_r3_fails
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

runner = CliRunner()
WIDE = {"COLUMNS": "400"}


def _text(output: str) -> str:
    return " ".join(output.split())


def _notes(run: Path, *options: str) -> list[str]:
    result = runner.invoke(app, ["analyze", "--run", str(run), "--bootstrap", "0", *options])
    assert result.exit_code == 0, result.output
    notes = (run / "analysis" / "NOTES.txt").read_text(encoding="utf-8").splitlines()
    return [n for n in notes if "attention check" in n or n.startswith("expert ratings")]


@pytest.mark.slow
def test_restored_checks_are_stored_and_named_as_not_judged(tmp_path: Path) -> None:
    run = _run_where_r3_fails(tmp_path)
    answers = tmp_path / "answers.csv"
    exported = ["export", "survey_answers", "--run", str(run), "--to", str(answers)]
    assert runner.invoke(app, exported).exit_code == 0
    imported = runner.invoke(
        app, ["survey", "import", str(answers), "--run", str(run), "--survey", "restored"], env=WIDE
    )
    assert imported.exit_code == 0, imported.output
    assert "imported 123 answers (123 new, 0 replaced) by 3 raters" in imported.output
    assert (
        "warning: survey 'restored' cannot judge the attention checks answered by R1 (1 check), "
        "R2 (1 check), R3 (1 check): the file holds their answers (stored) but not the answer "
        "each check asked for, so none counts as failed and `analyze --exclude-failed-checks` "
        "keeps these raters"
    ) in _text(imported.output)
    query = "SELECT rater_id, generation_id, question, score, text FROM survey_answers "
    with RunStore(run, create=False) as store:  # every answer, the checks' too
        original = store.query(query + "WHERE survey_id = 'experts' ORDER BY 1, 2, 3")
        restored = store.query(query + "WHERE survey_id = 'restored' ORDER BY 1, 2, 3")
    assert [tuple(r) for r in restored] == [tuple(r) for r in original]

    status = runner.invoke(app, ["survey", "status", "--run", str(run), "--survey", "restored"],
                           env=WIDE)  # fmt: skip
    assert status.exit_code == 0, status.output
    assert _text(status.output).count("1 not judged (imported, no instructed answer)") == 3
    original_status = ["survey", "status", "--run", str(run), "--survey", "experts"]
    assert "not judged" not in runner.invoke(app, original_status, env=WIDE).output

    unjudged = (
        "3 raters answered attention checks that cannot be judged and are kept in the expert "
        "tables{even}: their answers were imported (`survey import`) from a file that does not "
        "hold the answer each check asked for; only the survey that gave the checks can screen "
        "them: restored:R1 (1 check), restored:R2 (1 check), restored:R3 (1 check)"
    )
    assert _notes(run) == [
        "1 rater failed an attention check and is kept in the expert tables "
        "(--exclude-failed-checks leaves them out): experts:R3 (failed 1 of 1 taken)",
        unjudged.format(even=""),
        "expert ratings from the run's survey answers: 6 raters, 4 poems",
    ]
    assert _notes(run, "--exclude-failed-checks") == [
        "left out 1 rater who failed an attention check (--exclude-failed-checks): "
        "experts:R3 (failed 1 of 1 taken)",
        unjudged.format(even=" even with --exclude-failed-checks"),
        "expert ratings from the run's survey answers: 5 raters, 4 poems",
    ]
    only_restored = _notes(run, "--survey", "restored", "--exclude-failed-checks")
    assert only_restored[0] == (
        "--exclude-failed-checks: no rater failed an attention check that could be judged; "
        "none left out"
    )
    assert only_restored[1].endswith("them: R1 (1 check), R2 (1 check), R3 (1 check)")
    # The survey that gave the checks still screens R3, with no word of unjudged checks.
    assert _notes(run, "--survey", "experts", "--exclude-failed-checks") == [
        "left out 1 rater who failed an attention check (--exclude-failed-checks): "
        "R3 (failed 1 of 1 taken)",
        "expert ratings from the run's survey answers: 2 raters, 4 poems",
    ]
