"""The admin page's "last answer (UTC)" showed the stored ISO stamp
(`2026-11-27T12:47:43.118+00:00`) while `survey status` printed `2026-11-27 12:47:43`: both now
show the time in UTC to the second."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from rich.console import Console
from starlette.testclient import TestClient
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli import app, survey_answers_cmd
from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import create_app

SECOND = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def _ann_answers_her_first_poem(run: Path) -> str | None:
    """A two-poem run with an 'experts' survey for ann and ben, ann's answers to her first poem
    imported: her last-answer time as `survey status` reads it."""
    with prepared_store(run, poems=2) as store:
        build_survey(store, raters="ann,ben", poems=2, seed=1)
        page = db.pages(store, "experts", "ann")[0]
        rows = [("ann", page.generation_id, key, 3.0, None) for key in DIMENSION_KEYS]
        db.import_answers(store, "experts", rows, source="ann.csv", config={})
        (stamp,) = {r.last_answer_at for r in db.progress(store, "experts") if r.rater == "ann"}
    return stamp


def test_the_admin_page_and_survey_status_show_the_last_answer_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "run"
    stamp = _ann_answers_her_first_poem(run)
    assert stamp and "T" in stamp  # stored as an ISO stamp
    admin = f"/admin/{tokens.admin_token(tokens.load_secret(run), 'experts')}"
    html = TestClient(create_app(run, "experts")).get(admin).text
    cells = re.findall(r"<tr><td>ann</td>(?:<td>[^<]*</td>)*", html)[0]
    shown = re.findall(r"<td>([^<]*)</td>", cells)[4]
    assert SECOND.fullmatch(shown), shown
    assert "last answer (UTC)" in html and stamp not in html
    monkeypatch.setattr(survey_answers_cmd, "console", Console(width=200))
    status = CliRunner().invoke(app, ["survey", "status", "--run", str(run)])
    assert status.exit_code == 0, status.output
    ann = next(line for line in status.output.splitlines() if " ann " in line)
    assert f" {shown} " in ann
    ben = next(line for line in status.output.splitlines() if " ben " in line)
    assert " – " in ben and "<td>ben</td><td>0</td>" in html and "<td>–</td>" in html


def test_a_time_with_another_offset_is_shown_in_utc() -> None:
    assert db.utc_second("2026-11-27T14:47:43.118+02:00") == "2026-11-27 12:47:43"
    assert db.utc_second("2026-11-27T12:47:43") == "2026-11-27 12:47:43"
    assert db.utc_second("yesterday") == "yesterday"


def _save_and_next_unanswered(client: TestClient, run: Path, rater: str, position: int) -> None:
    """Press "Save and next" on a page with nothing answered, as its form sends it."""
    token = tokens.rater_token(tokens.load_secret(run), "experts", rater)
    html = client.get(f"/r/{token}/{position}").text
    fields = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', html))
    fields.update({name: "" for name in re.findall(r'<textarea[^>]*name="([^"]+)"', html)})
    response = client.post(f"/r/{token}/{position}", data={**fields, "action": "next"})
    assert "needs an answer" in response.text  # shown again with the questions missing


def test_a_page_left_unanswered_gives_no_last_answer(tmp_path: Path) -> None:
    """ "Save and next" on an unanswered page stores its empty comment boxes: the admin page and
    `survey status` showed that moment as the rater's last answer, with 0 answers given (or
    after their real last answer, on a poem they never rated)."""
    run = tmp_path / "run"
    answered = _ann_answers_her_first_poem(run)
    client = TestClient(create_app(run, "experts"))
    _save_and_next_unanswered(client, run, "ben", 1)
    _save_and_next_unanswered(client, run, "ann", 2)
    with RunStore(run, create=False) as store:
        assert store.query(
            "SELECT COUNT(*) FROM survey_answers WHERE rater_id = 'ben' AND text = ''"
        )[0][0]  # the empty boxes are stored
        progress = {r.rater: r for r in db.progress(store, "experts")}
    assert progress["ben"].answers == 0 and progress["ben"].last_answer_at is None
    assert progress["ann"].answers == len(DIMENSION_KEYS)
    assert progress["ann"].last_answer_at == answered
