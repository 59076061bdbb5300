"""A line-survey page drawn before `ghostwriting import-lines` cannot store over the imported
grades (the expert survey's `survey import` tests are in test_survey_web.py): the real HTTP
server and the real command."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from survey_support import add_generation, serving
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import STALE, create_app

POEM = "The first line\nA second line\nThe third line"
Grades = dict[int, tuple[str, str]]  # line -> (fluency, coherence) as a sheet says them


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    run = tmp_path_factory.mktemp("lines-import") / "run"
    with prepared_store(run, poems=2) as store:
        add_generation(store, "three-1", "three", POEM)
        build_survey(store, survey_id="lines", task_name="lines", raters="ann,ben", poems=1,
                     authors=["three"], seed=2)  # fmt: skip
    with serving(create_app(run, "lines")) as url:
        yield run, url


def _import(run: Path, tmp: Path, rater: str, grades: Grades) -> str:
    """`poemetric ghostwriting import-lines` of the rater's filled sheet; its output."""
    filled = tmp / f"{rater}.csv"
    with filled.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sheet_id", "annotator", "generation_id", "line", "fluency", "coherence"])
        for line, (fluency, coherence) in grades.items():
            writer.writerow(["survey-lines", rater, "three-1", line, fluency, coherence])
    result = CliRunner().invoke(
        app, ["ghostwriting", "import-lines", "--run", str(run), str(filled)]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _stored(run: Path, rater: str) -> dict[int, tuple[float | None, float | None]]:
    with RunStore(run, create=False) as store:
        rows = store.query(
            "SELECT line_number, fluency, coherence FROM line_annotations WHERE annotator = ?",
            [rater],
        )
    return {row[0]: (row[1], row[2]) for row in rows}


def test_a_line_page_drawn_before_import_lines_cannot_store_over_the_imported_grades(
    live: tuple[Path, str], tmp_path: Path
) -> None:
    """`ghostwriting import-lines` replaced the grades and left the edit times alone: a page
    opened before the import and saved after it (an autosave of a change made since, or "Save
    and next" sending the grades it was drawn with) stored its grades over the imported ones. A
    page drawn after the import edits them as usual; the import replaces web grades, also when
    run again."""
    run, url = live
    token = tokens.rater_token(tokens.load_secret(run), "lines", "ben")
    csrf = tokens.csrf_token(tokens.load_secret(run), "lines", "ben")
    with RunStore(run, create=False) as store:
        (page,) = db.pages(store, "lines", "ben")
    page_url = f"{url}/r/{token}/{page.position}"

    def post(target: str, **data: str) -> httpx.Response:
        sent = {key: value for key, value in data.items() if value or key != "imported"}
        return httpx.post(target, data={"csrf": csrf, **sent}, timeout=10)

    def drawn() -> str:
        html = httpx.get(page_url, timeout=10).text
        found = re.search('name="imported" value="([^"]*)"', html)
        assert found is not None
        return found[1]

    stale = drawn()
    assert stale == ""  # nothing imported yet
    saved = post(f"{page_url}/save", field="line_1_fluency", value="0", edited="5000")
    assert saved.is_success
    sheet: Grades = {1: ("strong", "n/a"), 2: ("strong", "weak"), 3: ("weak", "strong")}
    assert "imported 3 line grades" in _import(run, tmp_path, "ben", sheet)
    imported = {1: (1.0, None), 2: (1.0, 0.5), 3: (0.5, 1.0)}
    assert _stored(run, "ben") == imported  # an import after a web grade replaces it
    # The rater changes a grade on the page opened before the import: refused, as from a tab
    # drawn before another changed it, whatever the browser clock says.
    for key in ("line_1_fluency", "line_3_coherence"):
        late = post(f"{page_url}/save", field=key, value="0", edited="9000", imported=stale)
        assert late.status_code == 409 and late.json() == {"error": STALE, "stale": key}
    # "Save and next" (also without JavaScript) of that page keeps every imported grade.
    full = {"line_1_fluency": "0", "line_2_fluency": "0", "line_2_coherence": "0",
            "line_3_fluency": "0", "line_3_coherence": "0", "edited:line_1_fluency": "5000"}  # fmt: skip
    assert post(page_url, **full, imported=stale).status_code == 303  # complete by the import
    assert _stored(run, "ben") == imported

    fresh = drawn()  # reloaded: the page shows the imported grades and edits them
    assert fresh > stale
    assert 'name="line_3_coherence" value="1" checked' in httpx.get(page_url, timeout=10).text
    changed = post(f"{page_url}/save", field="line_3_coherence", value="0", edited="9001",
                   imported=fresh)  # fmt: skip
    assert changed.is_success
    assert _stored(run, "ben")[3] == (0.5, 0.0)
    _import(run, tmp_path, "ben", sheet)  # the same sheet again replaces the web grade
    assert _stored(run, "ben") == imported
    refused = post(f"{page_url}/save", field="line_2_coherence", value="0", imported=fresh)
    assert refused.status_code == 409
    assert post(
        f"{page_url}/save", field="line_2_coherence", value="0", imported=drawn()
    ).is_success
    assert _stored(run, "ben")[2] == (1.0, 0.0)
    # Another rater's page is not held back by ben's import.
    ann = tokens.rater_token(tokens.load_secret(run), "lines", "ann")
    assert httpx.get(f"{url}/r/{ann}/1", timeout=10).text.count('name="imported" value=""') == 1
