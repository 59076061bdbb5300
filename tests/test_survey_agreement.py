"""The survey admin page's rater-vs-rater agreement is `analyze`'s agreement_experts table."""

from __future__ import annotations

import csv
import threading
import time
from pathlib import Path

import httpx
import pandas as pd
from survey_support import serving, survey_run
from typer.testing import CliRunner

from poemetric.analysis.run import analyze_run
from poemetric.analysis.validation import POEM_COUNTS
from poemetric.cli import app
from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore
from poemetric.store.poem_codes import sheet_codes
from poemetric.survey import db, tokens
from poemetric.survey.agreement import current_agreement
from poemetric.survey.web import create_app

runner = CliRunner()
#: Items whose answers may be N/A (score 0): the imagery questions 7 and 8.
NA_ITEMS = ("imagery", "literary_devices")


def _fill(sheet: Path, offset: int) -> None:
    """A rater fills their CSV sheet: scores that mostly agree with the others', some N/A."""
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    # A sheet names a poem by a code of the run's random survey secret: keyed on the poem's
    # generation id, the answers (N/A among them) are the same on every run of the test.
    with RunStore(sheet.parent.parent, create=False) as store:
        generation_of = sheet_codes(store)
    for index, row in enumerate(rows):
        agreed = sum(map(ord, generation_of[row["poem"]] + row["item"]))  # most raters agree
        na = row["item"] in NA_ITEMS and agreed % 4 == 0
        disagree = offset if (index + offset) % 3 == 0 else 0
        row["score"] = "0" if na else str(1 + (agreed + disagree) % 5)
    if offset == 1:  # one rater left the first item of their first poem (by id) unanswered
        first = min(rows, key=lambda row: generation_of[row["poem"]])["poem"]
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
    shown = pd.DataFrame(admin.rows()).rename(columns=POEM_COUNTS)
    shown["item"] = shown["item"].replace({"overall": "all"})
    assert list(table["item"]) == [*DIMENSION_KEYS, "all"]
    pd.testing.assert_frame_equal(
        shown.set_index("item").loc[table["item"]].reset_index()[table.columns],
        table,
        check_exact=True,
    )


def test_raters_are_served_while_the_admin_page_computes(tmp_path: Path) -> None:
    """The admin page's bootstrap ran in the server's event loop, so every rater's request
    waited for it: 0.8 s with 7 raters x 10 poems, 3.5 s with 20 raters x 24 poems (500
    resamples, on the 2-core test machine). Here it takes about a second and a half there."""
    run = survey_run(tmp_path / "run", poems=16)
    build = ["survey", "build", "--run", str(run), "--raters", "12", "--per-poem", "6"]
    assert runner.invoke(app, [*build, "--poems", "32"]).exit_code == 0
    assert runner.invoke(app, ["survey", "sheets", "--run", str(run)]).exit_code == 0
    for index, sheet in enumerate(sorted((run / "survey-experts").glob("*.csv"))):
        _fill(sheet, index % 4)
        assert (
            runner.invoke(app, ["survey", "import", str(sheet), "--run", str(run)]).exit_code == 0
        )
    secret = tokens.load_secret(run)
    admin = tokens.admin_token(secret, "experts")
    rater = tokens.rater_token(secret, "experts", "R1")
    finished: dict[str, float] = {}

    def get(name: str, link: str) -> None:
        httpx.get(link, timeout=60).raise_for_status()
        finished[name] = time.monotonic()

    with serving(create_app(run, "experts")) as url:
        admin_page = threading.Thread(target=get, args=("admin", f"{url}/admin/{admin}"))
        admin_page.start()
        time.sleep(0.2)  # the admin page computes now
        get("rater", f"{url}/r/{rater}/1")
        admin_page.join(timeout=60)
    assert finished["rater"] < finished["admin"]
