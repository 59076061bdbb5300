"""Raters who failed the survey's attention check stayed in the agreement statistics, with no
option to leave them out and nothing saying they had failed. `analyze --exclude-failed-checks`
(and `report`'s) leaves them out and names them; by default they stay, named in the notes."""

from __future__ import annotations

import csv
import zlib
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.survey import db

runner = CliRunner()
WIDE = {"COLUMNS": "400"}


def _run_where_r3_fails(tmp_path: Path) -> Path:
    """Three raters on the same 4 poems, each with one attention check on the web: R1 and R2
    give the same scores and pass; R3 gives every score one point off, and fails."""
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1, judges=("judge-x",)).close()
    build = ["survey", "build", "--run", str(run), "--raters", "3", "--per-rater", "4"]
    built = runner.invoke(app, [*build, "--per-poem", "3", "--attention-checks", "1"])
    assert built.exit_code == 0, built.output
    assert runner.invoke(app, ["survey", "sheets", "--run", str(run)]).exit_code == 0
    for rater in ("R1", "R2", "R3"):
        sheet = run / "survey-experts" / f"{rater}.csv"
        rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
        for row in rows:
            base = zlib.crc32(f"{row['poem']}{row['item']}".encode()) % 5
            row["score"] = str(1 + (base + (rater == "R3")) % 5)
        with sheet.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        imported = runner.invoke(app, ["survey", "import", str(sheet), "--run", str(run)])
        assert imported.exit_code == 0, imported.output
    with RunStore(run, create=False) as store:  # the checks, answered on the web
        survey = db.load_survey(store, "experts")
        for rater in ("R1", "R2", "R3"):
            page = next(p for p in db.pages(store, "experts", rater) if p.check_expected)
            expected = page.check_expected or 0
            value = 1 + expected % 5 if rater == "R3" else expected
            answer = {"attention_check": (float(value), None)}
            db.save_edits(
                store, survey, rater, page, answer, {"attention_check": None}, required=[]
            )
        assert [p.checks_failed for p in db.progress(store, "experts")] == [0, 0, 1]
    return run


def _panel(run: Path, *options: str) -> tuple[pd.Series, str]:
    result = runner.invoke(app, ["analyze", "--run", str(run), "--bootstrap", "0", *options])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(run / "analysis" / "agreement_experts.csv")
    notes = (run / "analysis" / "NOTES.txt").read_text(encoding="utf-8")
    return table[table["item"] == "all"].iloc[0], notes


@pytest.mark.slow
def test_failed_raters_are_left_out_on_request_and_named(tmp_path: Path) -> None:
    run = _run_where_r3_fails(tmp_path)
    # By hand: 4 poems x 10 items, every one rated by all three. R1 and R2 always agree, R3
    # never agrees with either: of the 3 pairs per rating, 1 agrees (PAo 1/3, 120 pairs).
    kept, notes = _panel(run)
    assert kept["n_pairs"] == 120 and kept["pao"] == pytest.approx(1 / 3)
    assert (
        "1 rater failed an attention check and is kept in the expert tables "
        "(--exclude-failed-checks leaves them out): R3 (failed 1 of 1 taken)" in notes
    )
    assert "expert ratings from the run's survey answers: 3 raters, 4 poems" in notes
    # Without R3: only the pair R1-R2, which always agrees (PAo 1, 40 pairs).
    left, notes = _panel(run, "--exclude-failed-checks")
    assert left["n_pairs"] == 40 and left["pao"] == pytest.approx(1.0)
    assert (
        "left out 1 rater who failed an attention check (--exclude-failed-checks): "
        "R3 (failed 1 of 1 taken)" in notes
    )
    assert "expert ratings from the run's survey answers: 2 raters, 4 poems" in notes
    scores = pd.read_csv(run / "analysis" / "agreement_by_expert.csv")
    assert sorted(scores["expert"]) == ["R1", "R2"]

    reported = runner.invoke(app, ["report", "--run", str(run), "--exclude-failed-checks"])
    assert reported.exit_code == 0, reported.output
    page = (run / "report" / "index.html").read_text(encoding="utf-8")
    assert "2 experts rated 4 poems" in page
    assert "left out 1 rater who failed an attention check" in page


def test_a_ratings_file_cannot_be_screened(tmp_path: Path) -> None:
    """A file holds the answers but not the instructed ones: the option is refused, not
    silently ignored."""
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("rater,poem_id,author,item,score\n", encoding="utf-8")
    for command in ("analyze", "report", "figures"):
        result = runner.invoke(
            app,
            [command, "--run", str(run), "--experts", str(ratings), "--exclude-failed-checks"],
            env=WIDE,
        )
        assert result.exit_code != 0
        assert "--exclude-failed-checks reads the attention checks of the run's stored" in (
            result.output
        )
        assert f"--experts {ratings} is a file" in " ".join(result.output.split())


def test_help_states_the_default() -> None:
    for command in ("analyze", "report", "figures"):
        result = runner.invoke(app, [command, "--help"], env=WIDE)
        text = " ".join(result.output.replace("│", " ").split())
        assert "--exclude-failed-checks" in text
        assert "default: keep every rater" in text
