"""The same ratings file imported twice said "imported 2 answers (0 new, 2 replaced)", as if
answers had changed (or been added): it now says how many were stored already with the same
score or comment, and the answers are still stored once."""

from __future__ import annotations

from pathlib import Path

from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.store import RunStore

runner = CliRunner()


def test_importing_the_same_file_again_says_the_answers_were_stored_already(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    with RunStore(run, create=False) as store:
        poem = str(store.query("SELECT generation_id FROM generations WHERE status = 'ok'")[0][0])
    ratings = tmp_path / "R1.csv"
    ratings.write_text(
        f"rater,poem,item,score,comment\nR1,{poem},form,4,\nR1,{poem},overall_quality,3,fine\n",
        encoding="utf-8",
    )
    command = ["survey", "import", str(ratings), "--run", str(run)]
    first = runner.invoke(app, command, env={"COLUMNS": "400"})
    assert first.exit_code == 0, first.output
    assert "(3 new, 0 replaced)" in first.stdout and "stored already" not in first.stdout
    again = runner.invoke(app, command, env={"COLUMNS": "400"})
    assert again.exit_code == 0, again.output
    assert " ".join(again.stdout.split()).endswith(
        "(0 new, 3 replaced) by 1 rater into survey 'experts' of "
        f"{run}; 3 of them were stored already with the same score or comment (a file imported "
        "again replaces, never adds)"
    )
    ratings.write_text(
        f"rater,poem,item,score,comment\nR1,{poem},form,5,\nR1,{poem},overall_quality,3,fine\n",
        encoding="utf-8",
    )
    changed = runner.invoke(app, command, env={"COLUMNS": "400"})
    assert "; 2 of them were stored already" in " ".join(changed.stdout.split())
    with RunStore(run, create=False) as store:
        assert store.query("SELECT COUNT(*) FROM survey_answers")[0][0] == 3
