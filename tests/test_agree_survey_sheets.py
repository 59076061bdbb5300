"""`poemetric agree` on the survey's own sheets (`survey sheets` writes long-format templates
with a `poem` column) stopped at "missing column unit". The `poem` column is read as the unit
when there is no `unit` column, and the pooled PAo then equals `analyze`'s experts table. The
same for the survey answers as `poemetric export survey_answers` writes them."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.survey import db
from poemetric.survey.tasks import ATTENTION_KEY

runner = CliRunner()


def _filled_sheets(tmp_path: Path, *options: str) -> tuple[Path, Path]:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    build = ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "4", *options]
    assert runner.invoke(app, build).exit_code == 0
    assert runner.invoke(app, ["survey", "sheets", "--run", str(run)]).exit_code == 0
    rows: list[dict[str, str]] = []
    for offset, rater in enumerate(("R1", "R2")):
        sheet = list(
            csv.DictReader((run / "survey-experts" / f"{rater}.csv").open(encoding="utf-8"))
        )
        for index, row in enumerate(sheet):
            row["score"] = str(1 + (sum(map(ord, row["poem"] + row["item"])) + offset * index) % 5)
            if row["item"] == "literary_devices":
                row["comment"] = "rhyme, and some alliteration"
        rows += sheet
    both = tmp_path / "both.csv"
    with both.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return run, both


def test_agree_reads_the_survey_sheets(tmp_path: Path) -> None:
    run, both = _filled_sheets(tmp_path)
    result = runner.invoke(app, ["agree", str(both), "--format", "json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    pooled = json.loads(result.stdout)["overall"]
    analyzed = runner.invoke(app, ["analyze", "--run", str(run), "--experts", str(both)])
    assert analyzed.exit_code == 0, analyzed.output
    table = pd.read_csv(run / "analysis" / "agreement_experts.csv").set_index("item")
    assert pooled["n_pairs"] == table.at["all", "n_pairs"]
    assert pooled["pao"]["estimate"] == pytest.approx(table.at["all", "pao"])


def test_agree_reads_the_exported_survey_answers(tmp_path: Path) -> None:
    """`poemetric agree` on the file `poemetric export survey_answers` writes (one row per
    answer: rater_id, generation_id, question, score, text) stopped at "missing columns unit,
    rater". It is read as ratings (attention checks and comments left out), and its pooled PAo
    is `analyze`'s experts table on the same answers."""
    run, both = _filled_sheets(tmp_path, "--attention-checks", "1")
    imported = runner.invoke(app, ["survey", "import", str(both), "--run", str(run)])
    assert imported.exit_code == 0, imported.output
    with RunStore(run, create=False) as store:  # each rater answers their check on the web
        survey = db.load_survey(store, "experts")
        for rater in ("R1", "R2"):
            page = next(p for p in db.pages(store, "experts", rater) if p.check_expected)
            answer = {ATTENTION_KEY: (float(page.check_expected or 1), None)}
            db.save_edits(store, survey, rater, page, answer, {}, required=[])
    exported = runner.invoke(app, ["export", "survey_answers", "--run", str(run)])
    assert exported.exit_code == 0, exported.output
    answers = run / "export" / "survey_answers.csv"
    questions = set(pd.read_csv(answers)["question"])
    assert {ATTENTION_KEY, "comment_literary_devices"} <= questions  # in the file, left out
    result = runner.invoke(app, ["agree", str(answers), "--format", "json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    pooled = json.loads(result.stdout)["overall"]
    analyzed = runner.invoke(app, ["analyze", "--run", str(run)])
    assert analyzed.exit_code == 0, analyzed.output
    table = pd.read_csv(run / "analysis" / "agreement_experts.csv").set_index("item")
    assert pooled["n_pairs"] == table.at["all", "n_pairs"]
    assert pooled["n_ratings"] == 2 * 4 * 10  # two raters, four poems, ten items
    assert pooled["pao"]["estimate"] == pytest.approx(table.at["all", "pao"])


def test_a_file_with_neither_unit_nor_poem_names_both(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("id,rater,score\n1,a,3\n", encoding="utf-8")
    result = runner.invoke(app, ["agree", str(ratings)])
    assert result.exit_code != 0
    assert "missing column unit; a ratings file has columns unit (or poem), rater" in (
        " ".join(result.output.split())
    )
