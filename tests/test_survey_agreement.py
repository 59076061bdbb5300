"""The survey admin page's rater-vs-rater agreement is `analyze`'s agreement_experts table."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
from survey_support import survey_run
from typer.testing import CliRunner

from poemetric.analysis.run import analyze_run
from poemetric.cli import app
from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore
from poemetric.survey import db
from poemetric.survey.agreement import current_agreement

runner = CliRunner()
#: Items whose answers may be N/A (score 0): the imagery questions 7 and 8.
NA_ITEMS = ("imagery", "literary_devices")


def _fill(sheet: Path, offset: int) -> None:
    """A rater fills their CSV sheet: scores that mostly agree with the others', some N/A."""
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for index, row in enumerate(rows):
        agreed = sum(map(ord, row["poem"] + row["item"]))  # the raters agree on most items
        na = row["item"] in NA_ITEMS and agreed % 4 == 0
        disagree = offset if (index + offset) % 3 == 0 else 0
        row["score"] = "0" if na else str(1 + (agreed + disagree) % 5)
    if offset == 1:  # one rater left the first item of their first poem (by id) unanswered
        first = min(row["poem"] for row in rows)
        rows = [r for r in rows if (r["poem"], r["item"]) != (first, DIMENSION_KEYS[0])]
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_the_admin_page_shows_the_expert_agreement_analyze_writes(tmp_path: Path) -> None:
    """The admin page drew 200 bootstrap resamples, `analyze` 500: the same survey had two sets
    of intervals. The order of the poems decides which poems a resample draws, and differed too
    once a rater left an answer out. Now both use AGREEMENT_BOOTSTRAP, BOOTSTRAP_SEED and one
    order, so every figure is equal."""
    run = survey_run(tmp_path / "run", poems=6)
    build = ["survey", "build", "--run", str(run), "--raters", "3", "--per-rater", "6"]
    assert runner.invoke(app, [*build, "--seed", "5"]).exit_code == 0
    assert runner.invoke(app, ["survey", "sheets", "--run", str(run)]).exit_code == 0
    for offset, rater in enumerate(["R3", "R1", "R2"]):  # imported in another order than sorted
        sheet = run / "survey-experts" / f"{rater}.csv"
        _fill(sheet, offset)
        imported = runner.invoke(app, ["survey", "import", str(sheet), "--run", str(run)])
        assert imported.exit_code == 0, imported.output
    with RunStore(run, create=False) as store:
        survey = db.load_survey(store, "experts")
        admin = current_agreement(store, survey)
        table = analyze_run(store).tables["agreement_experts"]
    assert admin is not None
    assert {a.counts["n_na"] for a in admin.items.values()} != {0}  # N/A answers took part
    shown = pd.DataFrame(admin.rows()).rename(columns={"n_units": "n_poems"})
    shown["item"] = shown["item"].replace({"overall": "all"})
    assert list(table["item"]) == [*DIMENSION_KEYS, "all"]
    pd.testing.assert_frame_equal(
        shown.set_index("item").loc[table["item"]].reset_index(), table, check_exact=True
    )
