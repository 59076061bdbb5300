"""An export of a survey's answers holds a row for each comment a rater left empty on the web;
`survey import` of that file stores no answer for such a row, and said "imported 2 answers" of a
4-row file without a word of the other 2. It now says how many rows it skipped, and why, so the
counts reconcile."""

from __future__ import annotations

import csv
from pathlib import Path

from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.survey import db

runner = CliRunner()


def test_import_of_an_export_says_how_many_rows_it_skipped(tmp_path: Path) -> None:
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    build = ["survey", "build", "--run", run, "--raters", "2", "--poems", "2"]
    assert runner.invoke(app, build).exit_code == 0
    with RunStore(tmp_path / "run", create=False) as store:
        survey = db.load_survey(store, "experts")
        for page in db.pages(store, "experts", "R1"):
            answers = {"overall_quality": (4.0, None), "comment_overall_quality": (None, "")}
            db.save_edits(store, survey, "R1", page, answers, {}, required=[])
    exported = runner.invoke(app, ["export", "survey_answers", "--run", run, "--to", str(tmp_path)])
    assert exported.exit_code == 0, exported.output
    answers_file = tmp_path / "survey_answers.csv"
    with answers_file.open(encoding="utf-8") as stream:
        rows = list(csv.DictReader(stream))
    assert len(rows) == 4 and sum(row["text"] == "" and row["score"] == "" for row in rows) == 2

    command = ["survey", "import", str(answers_file), "--run", run, "--survey", "copy"]
    imported = runner.invoke(app, command, env={"COLUMNS": "400"})
    assert imported.exit_code == 0, imported.output
    assert (
        "imported 2 answers (2 new, 0 replaced) by 1 rater into survey 'copy' of "
        f"{run}; 2 rows with an empty comment were skipped (no answer to store)"
    ) in imported.stdout

    # A file of the rater's own (long format) says nothing of its unfilled rows.
    with RunStore(tmp_path / "run", create=False) as store:
        poem = store.query("SELECT generation_id FROM survey_answers LIMIT 1")[0][0]
    own = tmp_path / "own.csv"
    own.write_text(
        f"poem,rater,item,score,comment\n{poem},R2,form,3,\n{poem},R2,theme,,\n", encoding="utf-8"
    )
    again = runner.invoke(app, ["survey", "import", str(own), "--run", run], env={"COLUMNS": "400"})
    assert again.exit_code == 0, again.output
    assert "imported 1 answer (1 new, 0 replaced) by 1 rater" in again.stdout
    assert "skipped" not in again.stdout
