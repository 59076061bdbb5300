"""Line-level fluency / coherence as a survey task (`survey build --task lines`): grades kept in
`line_annotations` and scored like imported sheets, agreement per line, the web app end to end
in headless Chromium, and hostile input over real HTTP."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from survey_support import add_generation, serving, survey_run
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.annotation.importer import import_line_annotations
from poemetric.cli import app
from poemetric.ghostwriting.fluency import fluency_scores, load_line_annotations
from poemetric.ghostwriting.tables import ghostwriting_tables
from poemetric.store import RunStore
from poemetric.store.poem_codes import poem_code
from poemetric.survey import db, tokens
from poemetric.survey.agreement import current_agreement
from poemetric.survey.build import build_survey
from poemetric.survey.sheets import write_sheets
from poemetric.survey.tasks import Page
from poemetric.survey.web import create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser
    from playwright.sync_api import Page as BrowserPage

HOSTILE_POEM = (
    "Roses are red <script>window.pwned = 1</script>\n"
    '<img src=x onerror="window.pwned = 2"> & violets\n'
    '<img src=x onerror="window.pwned = 2"> & violets'
)
runner = CliRunner()


def _graded(page: Page, survey: db.SurveyInfo, fluency: float, coherence: float) -> dict:
    return {
        q.key: (fluency if q.key.endswith("fluency") else coherence, None)
        for q in survey.task.questions(page)
    }


def _save(
    store: RunStore,
    survey: db.SurveyInfo,
    rater: str,
    page: Page,
    values: dict[str, db.Answer],
    required: set[str],
) -> bool:
    """Save a page's grades as the web app does (no edit times: a page without JavaScript);
    whether the page is complete."""
    complete, refused = db.save_edits(
        store, survey, rater, page, values, dict.fromkeys(values), required=required
    )
    assert not refused
    return complete


def test_grades_score_like_sheets_once_a_poem_is_finished(tmp_path: Path) -> None:
    store = prepared_store(tmp_path / "run", poems=4)
    add_generation(store, "parrot-1", "parrot", "One line\nThe same line\nThe same line")
    build_survey(
        store,
        survey_id="lines",
        task_name="lines",
        raters="a,b",
        poems=2,
        authors=["human", "parrot"],
        seed=1,
    )
    survey = db.load_survey(store, "lines")
    parrot = next(p for p in db.pages(store, "lines", "a") if p.generation_id == "parrot-1")
    keys = [q.key for q in survey.task.questions(parrot)]
    # No coherence on the first line, none on line 3 (it repeats line 2: 'not' by rule).
    assert keys == ["line_1_fluency", "line_2_fluency", "line_2_coherence", "line_3_fluency"]

    required = set(keys)
    assert not _save(store, survey, "a", parrot, {"line_1_fluency": (1.0, None)}, required)
    rows = store.query("SELECT line_number, fluency, coherence FROM line_annotations")
    assert [tuple(r) for r in rows] == [(1, 1.0, None), (2, None, None), (3, None, 0.0)]
    assert load_line_annotations(store).empty  # a poem in progress is not scored yet
    assert _save(store, survey, "a", parrot, _graded(parrot, survey, 1.0, 0.5), required)
    _save(store, survey, "b", parrot, _graded(parrot, survey, 0.5, 0.5), required)

    scores = fluency_scores(load_line_annotations(store)).set_index("author")
    assert scores.loc["parrot", "fluency"] == pytest.approx(0.75)  # (1 + 0.5) / 2
    assert scores.loc["parrot", "coherence"] == pytest.approx(0.25)  # lines 2, 3: (0.5 + 0) / 2
    assert scores.loc["parrot", "annotators"] == 2
    report = current_agreement(store, survey)
    assert report is not None
    assert report.items["fluency"].estimates["pao"] == 0.0
    assert report.items["coherence"].estimates["pao"] == 1.0
    assert report.items["coherence"].counts["n_units"] == 1  # rule-fixed line 3 left out

    # Offline: the rater's sheet has the survey's sheet id, and import-lines stores its grades
    # beside the web grades (one table, one scoring).
    (html, template, *_) = write_sheets(store, "lines", tmp_path / "sheets", only=["a"])
    assert "Line-level fluency and coherence" in html.read_text(encoding="utf-8")
    with template.open(encoding="utf-8") as handle:
        rows_csv = list(csv.DictReader(handle))
    assert {r["sheet_id"] for r in rows_csv} == {"survey-lines"}
    parrot_code = poem_code(tokens.load_secret(store.run_dir), "survey-lines", "parrot-1")
    assert "parrot-1" not in {r["generation_id"] for r in rows_csv}  # named by its code
    human = [r for r in rows_csv if r["generation_id"] != parrot_code]
    for row in human:
        row.update(annotator="c", fluency="not", coherence=row["coherence"] or "not")
    filled = tmp_path / "c.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows_csv[0]))
        writer.writeheader()
        writer.writerows(human)
    assert import_line_annotations(store, [filled]).rows == len(human)
    scores = fluency_scores(load_line_annotations(store)).set_index("author")
    assert scores.loc["human", "fluency"] == 0.0
    store.close()


def test_cli_builds_a_line_survey_and_refuses_what_does_not_fit(tmp_path: Path) -> None:
    store = prepared_store(tmp_path / "run", poems=4)
    store.close()
    run = str(tmp_path / "run")
    base = ["survey", "build", "--run", run, "--per-rater", "2", "--raters", "2"]
    made = runner.invoke(app, [*base, "--survey", "lines", "--task", "lines"])
    assert made.exit_code == 0, made.output
    assert "2 poems x 2 raters" in made.output
    for extra, message in [
        (["--task", "nope"], "unknown survey task 'nope'"),
        (["--task", "lines", "--attention-checks", "1"], "has no attention checks"),
    ]:
        refused = runner.invoke(app, [*base, "--survey", "other", *extra])
        assert refused.exit_code == 2 and message in refused.output, refused.output
    ratings = tmp_path / "r.csv"
    ratings.write_text("poem,rater,item,score\n", encoding="utf-8")
    imported = runner.invoke(app, ["survey", "import", str(ratings), "--run", run, "-s", "lines"])
    assert imported.exit_code == 2 and imported.stdout == ""
    assert imported.stderr.startswith("error: ") and "ghostwriting import-lines" in imported.stderr
    with RunStore(tmp_path / "run", create=False) as store, store.transaction() as conn:
        conn.execute("DELETE FROM meta WHERE key = 'line_sheet:survey-lines'")
    lost = runner.invoke(app, ["survey", "status", "--run", run, "-s", "lines"])
    assert lost.exit_code == 2 and lost.stdout == ""
    assert lost.stderr.startswith("error: survey 'lines' cannot be opened")


def test_a_long_poem_is_saved_whole_without_javascript(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    store = prepared_store(tmp_path / "run", poems=2)
    add_generation(store, "long-1", "long", "\n".join(f"Line number {n}" for n in range(1, 41)))
    build_survey(
        store, survey_id="lines", task_name="lines", raters="a,b", poems=1, authors=["long"]
    )
    store.close()
    client = TestClient(create_app(tmp_path / "run", "lines"))
    values = {f"line_{n}_fluency": "1" for n in range(1, 41)}
    values |= {f"line_{n}_coherence": "0.5" for n in range(2, 41)}  # 79 answers on one page
    csrf = tokens.csrf_token(tokens.load_secret(tmp_path / "run"), "lines", "a")
    response = client.post(
        f"/r/{_token(tmp_path / 'run', 'a')}/1",
        data={"csrf": csrf, **values},
        follow_redirects=False,
    )
    assert response.status_code == 303
    with RunStore(tmp_path / "run", create=False) as store:
        assert store.count("line_annotations", "fluency = 1 AND annotator = 'a'") == 40


# -- the web app -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    run = survey_run(tmp_path_factory.mktemp("lines") / "run", poems=2)
    with RunStore(run, create=False) as store:
        add_generation(store, "hostile-1", "parrot", HOSTILE_POEM)
        build_survey(
            store,
            survey_id="lines",
            task_name="lines",
            raters="ann,ben,cy",
            poems=3,
            per_poem=3,
            authors=["human", "machine", "parrot"],
            seed=4,
        )
    with serving(create_app(run, "lines")) as url:
        yield run, url


def _token(run: Path, rater: str) -> str:
    return tokens.rater_token(tokens.load_secret(run), "lines", rater)


def _pages(run: Path, rater: str) -> tuple[db.SurveyInfo, list[Page]]:
    with RunStore(run, create=False) as store:
        return db.load_survey(store, "lines"), db.pages(store, "lines", rater)


def _grade(page: BrowserPage, run: Path, position: int, only: int | None = None) -> None:
    """Grade the open page in the browser (fluency strongly, coherence weakly), each answer
    waited for until the page says it is saved."""
    page.wait_for_load_state("load")
    survey, pages = _pages(run, "ann")
    for question in survey.task.questions(pages[position - 1])[:only]:
        value = "1" if question.key.endswith("fluency") else "0.5"
        radio = page.locator(f"#q-{question.key} input[value='{value}']")
        if not radio.is_checked():
            radio.check()
            page.locator(f"#q-{question.key} .saved").filter(has_text="saved").wait_for()


@pytest.mark.slow
def test_rater_grades_lines_closes_and_resumes(live: tuple[Path, str], browser: Browser) -> None:
    run, url = live
    token = _token(run, "ann")
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/r/{token}")
    assert "Grade every line twice" in page.content()
    page.get_by_role("link", name="Start with poem 1").click()
    _grade(page, run, 1)
    page.get_by_role("button", name="Save and next poem").click()
    page.wait_for_url(f"{url}/r/{token}/2")
    _grade(page, run, 2, only=2)
    assert page.locator("#progress-count").inner_text() == "1 of 3 poems done"
    context.close()  # the rater closes the browser

    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(f"{url}/r/{token}")
    page.get_by_role("link", name="Continue with poem 2").click()
    page.wait_for_url(f"{url}/r/{token}/2")  # the answers are read off poem 2's page, not
    page.wait_for_load_state("load")  # the welcome page still showing (a race under load)
    survey, pages = _pages(run, "ann")
    first_two = survey.task.questions(pages[1])[:2]
    assert all(page.locator(f"#q-{q.key} input:checked").count() == 1 for q in first_two)
    _grade(page, run, 2)
    page.get_by_role("button", name="Save and next poem").click()
    page.wait_for_url(f"{url}/r/{token}/3")
    hostile = next(p.position for p in pages if p.generation_id == "hostile-1")
    page.goto(f"{url}/r/{token}/{hostile}")
    assert "<script>window.pwned = 1</script>" in page.locator("#line-1 .line-text").inner_text()
    assert "repeats line 2" in page.locator("#line-3").inner_text()
    assert page.evaluate("window.pwned") is None  # shown as text, never run
    with RunStore(run, create=False) as store:
        authors = dict(
            tuple(r) for r in store.query("SELECT generation_id, author FROM generations")
        )
    screenshots = os.environ.get("POEMETRIC_SCREENSHOTS")
    if screenshots:  # a graded human poem
        shown = next((p for p in pages[:2] if authors[p.generation_id] == "human"), pages[0])
        page.goto(f"{url}/r/{token}/{shown.position}")
        page.screenshot(path=str(Path(screenshots) / "survey-lines.png"))
    context.close()

    with RunStore(run, create=False) as store:
        assert db.completed_positions(store, "lines", "ann") == {1, 2}
        table = ghostwriting_tables(store).tables["fluency_coherence"]  # what analyze writes
        mine = fluency_scores(load_line_annotations(store).query("annotator == 'ann'"))
    finished = {authors[p.generation_id] for p in pages[:2]}
    assert finished <= set(table["author"])
    # Only finished poems count: the authors of ann's first two pages.
    assert set(mine["author"]) == finished and (mine["fluency"] == 1.0).all()
    assert mine["coherence"].between(0.25, 0.5).all()  # weakly, or 0 on the repeated line

    # A second rater grades ann's first poem over HTTP; the admin page shows both raters'
    # progress and the agreement per scale.
    cy = _token(run, "cy")
    csrf = tokens.csrf_token(tokens.load_secret(run), "lines", "cy")
    _, cy_pages = _pages(run, "cy")
    position = next(p.position for p in cy_pages if p.generation_id == pages[0].generation_id)
    for question in survey.task.questions(pages[0]):
        saved = httpx.post(
            f"{url}/r/{cy}/{position}/save",
            timeout=10,
            data={"csrf": csrf, "field": question.key, "value": "1"},
        )
        assert saved.status_code == 200, saved.text
    admin = browser.new_page()
    admin.goto(f"{url}/admin/{tokens.admin_token(tokens.load_secret(run), 'lines')}")
    ann_row = admin.locator("tr", has=admin.locator("td", has_text="ann")).first
    assert ann_row.locator("td").nth(1).inner_text() == "2"
    items = admin.locator("table.grid").nth(1).locator("tbody td:first-child").all_inner_texts()
    assert items == ["fluency", "coherence", "overall"]
    assert "lines rated by at least one rater" in admin.content()
    admin.close()


@pytest.mark.slow
def test_on_a_phone_each_row_of_grades_names_its_scale(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Below 900 px the column heads ("fluency", "coherence") are hidden, and each line's two
    rows of "strongly weakly not" looked the same: a rater on a phone could not tell which
    grade was which. Each row is headed by its scale's name there (the wide grid keeps heads)."""
    run, url = live
    page = browser.new_page(viewport={"width": 375, "height": 740})
    page.goto(f"{url}/r/{_token(run, 'cy')}/1")
    page.wait_for_load_state("load")
    assert not page.locator(".line-head").is_visible()
    survey, pages = _pages(run, "cy")
    questions = survey.task.questions(pages[0])
    for question in questions:
        scale = page.locator(f"#q-{question.key} .scale")
        assert scale.is_visible(), question.key
        assert scale.inner_text().lower() == question.key.rsplit("_", 1)[1]
        above, option = scale.bounding_box(), page.locator(f"#q-{question.key} label").first
        assert above and (box := option.bounding_box())
        assert above["y"] + above["height"] <= box["y"] + 1  # on a line of its own, above
    page.set_viewport_size({"width": 1100, "height": 900})
    assert page.locator(".line-head").is_visible()
    assert not page.locator(f"#q-{questions[0].key} .scale").is_visible()
    page.close()


def test_hostile_line_requests_are_refused(live: tuple[Path, str]) -> None:
    run, url = live
    token = _token(run, "ben")
    secret = tokens.load_secret(run)
    csrf = tokens.csrf_token(secret, "lines", "ben")
    _, pages = _pages(run, "ben")
    hostile = next(p.position for p in pages if p.generation_id == "hostile-1")
    save = f"{url}/r/{token}/{hostile}/save"

    def post(target: str, field: str, value: str, token: str = csrf) -> int:
        response = httpx.post(
            target, data={"csrf": token, "field": field, "value": value}, timeout=10
        )
        return response.status_code

    refused = [
        *[(save, "line_2_fluency", grade) for grade in ("2", "0.7", "1.0", "-1", "NaN", "")],
        *[
            (save, key, "1")
            for key in (
                "line_4_fluency",
                "line_0_fluency",
                "line_02_fluency",
                "line_1_coherence",
                "line_3_coherence",
                "line_2_style",
                "<script>alert(1)</script>",
            )
        ],
        (save, "line_2_fluency", "<script>alert(1)</script>"),
    ]
    assert {post(*case) for case in refused} == {400}
    assert post(save, "line_2_fluency", "1", tokens.csrf_token(secret, "lines", "cy")) == 403
    other = _token(run, "cy")
    forged = f"{other[:-1]}{'B' if other[-1] == 'A' else 'A'}"
    assert post(f"{url}/r/{forged}/1/save", "line_2_fluency", "1") == 404
    assert post(f"{url}/r/{token}/9/save", "line_2_fluency", "1") == 404
    whole = httpx.post(
        f"{url}/r/{token}/{hostile}",
        timeout=10,
        data={"csrf": csrf, "line_1_fluency": "1", "line_2_fluency": "3"},
    )
    assert whole.status_code == 400
    with RunStore(run, create=False) as store:
        assert store.count("line_annotations", "annotator = 'ben'") == 0

    # Without JavaScript: the whole page at once, then the next page.
    values = {
        "line_1_fluency": "0",
        "line_2_fluency": "0.5",
        "line_2_coherence": "0",
        "line_3_fluency": "0.5",
    }
    page = httpx.post(f"{url}/r/{token}/{hostile}", data={"csrf": csrf, **values}, timeout=10)
    assert page.status_code == 303
    shown = httpx.get(f"{url}/r/{token}/{hostile}", timeout=10).text
    assert "<script>window.pwned" not in shown and "&lt;script&gt;window.pwned" in shown
    with RunStore(run, create=False) as store:
        rows = store.query(
            "SELECT line_number, fluency, coherence, source FROM line_annotations "
            "WHERE annotator = 'ben' ORDER BY line_number"
        )
        assert [tuple(r) for r in rows] == [
            (1, 0.0, None, "web"),
            (2, 0.5, 0.0, "web"),
            (3, 0.5, 0.0, "web"),
        ]
        assert hostile in db.completed_positions(store, "lines", "ben")
