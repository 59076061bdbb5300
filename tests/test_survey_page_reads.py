"""A poem page read while another tab saves: what it shows and what its form sends back
(the answers, their edit times, the newest import shown) come from one moment of the store."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from survey_support import answers_of, serving, survey_run

from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import create_app

pytestmark = pytest.mark.slow
#: The reads that draw a poem page (`SurveyApp._drawn`), one rater each below.
READS = {"imports_seen": "ann", "edit_times": "ben", "answers": "cy"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    run = survey_run(tmp_path_factory.mktemp("survey") / "run", poems=2)
    with RunStore(run, create=False) as store:
        build_survey(store, raters=",".join(READS.values()), per_rater=2, per_poem=3, seed=1)
    with serving(create_app(run, "experts")) as url:
        yield run, url


def _hidden(html: str, name: str) -> str:
    found = re.search(f'name="{re.escape(name)}" value="([^"]*)"', html)
    return found[1] if found else ""


def _checked(html: str, name: str) -> str:
    found = re.search(f'name="{re.escape(name)}" value="([^"]*)"[^>]*checked', html)
    return found[1] if found else ""


def _another_tab_saves(run: Path, rater: str, value: float, edited: int) -> None:
    """What /save stores for another tab of the rater's poem 1 (a separate connection)."""
    with RunStore(run, create=False) as store:
        survey = db.load_survey(store, "experts")
        page = db.pages(store, "experts", rater)[0]
        _, refused = db.save_edits(
            store, survey, rater, page, {"form": (value, None)}, {"form": edited}, required=[]
        )
    assert not refused


@pytest.mark.parametrize("read", list(READS))
def test_a_save_while_a_page_is_drawn_is_not_undone_by_that_page(
    live: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, read: str
) -> None:
    """The page read its answers, then their edit times: a save in another tab between the two
    reads drew the older answer with the newer answer's time, and "Save and next" on that page
    (the answer unchanged) stored the older answer over the newer one. Whichever read the save
    comes after, the page's unchanged answer must not replace it."""
    run, url = live
    rater = READS[read]
    secret = tokens.load_secret(run)
    page_url = f"{url}/r/{tokens.rater_token(secret, 'experts', rater)}/1"
    csrf = tokens.csrf_token(secret, "experts", rater)
    first = httpx.post(f"{page_url}/save", data={"csrf": csrf, "field": "form", "value": "1",
                                                 "edited": "1000"}, timeout=10)  # fmt: skip
    assert first.status_code == 200, first.text

    real: Callable[..., Any] = getattr(db, read)
    fired: list[bool] = []

    def then_another_tab_saves(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if not fired:  # once, while the page below is drawn
            fired.append(True)
            _another_tab_saves(run, rater, 5.0, 2000)
        return result

    monkeypatch.setattr(db, read, then_another_tab_saves)
    shown = httpx.get(page_url, timeout=10).text
    monkeypatch.undo()
    assert fired

    # "Save and next" without JavaScript: the form as drawn, the answer unchanged.
    sent = httpx.post(page_url, data={
        "csrf": csrf, "form": _checked(shown, "form"), "edited:form": _hidden(shown, "edited:form"),
        "imported": _hidden(shown, "imported"),
    }, timeout=10)  # fmt: skip
    assert sent.status_code in (303, 422), sent.text
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", rater)[0].generation_id
    assert answers_of(run, rater)[(poem, "form")] == (5.0, None)  # the answer saved last
