"""The survey web app end to end in headless Chromium, and hostile input over real HTTP."""

from __future__ import annotations

import os
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest
from survey_support import answers_of, serving, survey_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.build import build_survey
from poemetric.survey.web import STALE, create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.slow
HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="window.pwned=2"> & \'); DROP TABLE survey_answers;--'


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    run = survey_run(tmp_path_factory.mktemp("survey") / "run", poems=4)
    with RunStore(run, create=False) as store:
        build_survey(store, raters="ann,ben,cy,dee", per_rater=4, per_poem=2, checks=1, seed=1)
    with serving(create_app(run, "experts")) as url:
        yield run, url


def _links(run: Path, rater: str) -> tuple[str, str]:
    secret = tokens.load_secret(run)
    return tokens.rater_token(secret, "experts", rater), tokens.admin_token(secret, "experts")


def _saved_comment(run: Path, rater: str, text: str) -> str:
    """The poem on which `rater`'s comment `text` is stored, waiting up to 5 s for it."""
    deadline = time.monotonic() + 5
    while not (found := [g for (g, _), (_, t) in answers_of(run, rater).items() if t == text]):
        assert time.monotonic() < deadline, f"comment {text!r} was not saved"
        time.sleep(0.05)
    return found[0]


def _hidden(html: str, name: str) -> str:
    """The value of the page's hidden field `name` ('' when it has none)."""
    found = re.search(f'name="{re.escape(name)}" value="([^"]*)"', html)
    return found[1] if found else ""


def _import(run: Path, tmp: Path, rater: str, poem: str, scores: dict[str, int]) -> str:
    """`poemetric survey import` of a long-format file with these scores; its output."""
    ratings = tmp / f"{rater}.csv"
    lines = [f"{poem},{rater},{item},{score}" for item, score in scores.items()]
    ratings.write_text("\n".join(["poem,rater,item,score", *lines, ""]), encoding="utf-8")
    result = CliRunner().invoke(app, ["survey", "import", str(ratings), "--run", str(run)])
    assert result.exit_code == 0, result.output
    return result.output


def _answer_page(page: Page, run: Path, rater: str, position: int, only: int | None = None) -> None:
    """Tick answers on the open poem page (the first `only` questions), waiting until saved."""
    page.wait_for_load_state("load")  # the saving script is loaded
    with RunStore(run, create=False) as store:
        check = db.pages(store, "experts", rater)[position - 1].check_expected
    keys = [*DIMENSION_KEYS, *(["attention_check"] if check else [])][:only]
    for index, key in enumerate(keys):
        value = check if key == "attention_check" else 1 + index % 5
        radio = page.locator(f"#q-{key} input[value='{value}']")
        if not radio.is_checked():  # an answer given before is already saved
            radio.check()
            page.locator(f"#q-{key} .saved").filter(has_text="saved").wait_for()


def test_rater_answers_closes_and_resumes(live: tuple[Path, str], browser: Browser) -> None:
    run, url = live
    token, admin = _links(run, "ann")
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/r/{token}")
    assert "Please read the prompt" in page.content()
    page.get_by_role("link", name="Start with poem 1").click()
    assert page.locator(".poem-text").inner_text().strip()
    assert page.locator("#q-literary_devices li").all_inner_texts() == [
        "Simile", "Metaphor", "Personification", "Allusion"
    ]  # fmt: skip
    assert page.get_by_text("0 - N/A (No imagery is used)").count() == 1
    _answer_page(page, run, "ann", 1)
    screenshots = os.environ.get("POEMETRIC_SCREENSHOTS")
    if screenshots:
        page.set_viewport_size({"width": 900, "height": 1500})
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(Path(screenshots) / "survey.png"), full_page=False)
    comment = page.locator("textarea[name='comment_overall_quality']")
    comment.fill(HOSTILE)
    page.locator("#q-comment_overall_quality .saved").filter(has_text="saved").wait_for()
    page.get_by_role("button", name="Save and next poem").click()
    page.wait_for_url(f"{url}/r/{token}/2")
    _answer_page(page, run, "ann", 2, only=3)
    assert page.locator("#progress-count").inner_text() == "1 of 4 poems done"
    assert page.get_by_role("progressbar", name="1 of 4 poems done").count() == 1
    assert page.locator("nav.pages a[aria-current=page]").inner_text() == "2"
    # A comment typed just before leaving by the list of poems is saved as the page goes.
    page.locator("textarea[name='comment_human_authorship']").fill("typed, then left")
    page.get_by_role("link", name="3", exact=True).click()
    page.wait_for_url(f"{url}/r/{token}/3")
    left = _saved_comment(run, "ann", "typed, then left")
    context.close()  # the rater closes the browser

    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{url}/r/{token}")
    page.get_by_role("link", name="Continue with poem 2").click()
    for index, key in enumerate(DIMENSION_KEYS[:3]):
        assert page.locator(f"#q-{key} input[value='{1 + index % 5}']").is_checked()
    _answer_page(page, run, "ann", 2)
    page.get_by_role("button", name="Save and next poem").click()
    page.wait_for_url(f"{url}/r/{token}/3")
    page.goto(f"{url}/r/{token}/1")
    assert page.locator("textarea[name='comment_overall_quality']").input_value() == HOSTILE
    assert page.evaluate("window.pwned") is None  # shown as text, never run
    context.close()

    stored = answers_of(run, "ann")
    with RunStore(run, create=False) as store:
        pages = db.pages(store, "experts", "ann")
        assert db.completed_positions(store, "experts", "ann") == {1, 2}
    first, second = pages[0].generation_id, pages[1].generation_id
    assert left == second
    assert stored[(first, "form")] == (1.0, None)
    assert stored[(first, "comment_overall_quality")] == (None, HOSTILE)
    assert all((second, key) in stored for key in DIMENSION_KEYS)

    admin_page = browser.new_page()
    admin_page.goto(f"{url}/admin/{admin}")
    row = admin_page.locator("tr", has=admin_page.locator("td", has_text="ann")).first
    assert row.locator("td").nth(1).inner_text() == "2"
    assert "Agreement between raters so far" in admin_page.content()
    admin_page.close()


def test_hostile_requests_are_refused_or_stored_inertly(live: tuple[Path, str]) -> None:
    run, url = live
    token, admin = _links(run, "ben")
    other, _ = _links(run, "cy")
    secret = tokens.load_secret(run)
    csrf = tokens.csrf_token(secret, "experts", "ben")
    save = f"{url}/r/{token}/1/save"
    before = answers_of(run, "ben")

    def post(target: str, data: dict[str, str], **headers: str) -> httpx.Response:
        return httpx.post(target, data=data, headers=headers, timeout=10)

    cases = [
        (post(save, {"csrf": csrf, "field": "form", "value": "6"}), 400),  # out of range
        (post(save, {"csrf": csrf, "field": "theme", "value": "0"}), 400),  # N/A not offered
        (post(save, {"csrf": csrf, "field": "form", "value": "3.0"}), 400),
        (post(save, {"csrf": csrf, "field": "rater_id", "value": "cy"}), 400),  # unknown field
        (post(save, {"csrf": csrf, "field": "comment_overall_quality", "value": "x" * 100_000}), 400),
        (post(save, {"csrf": csrf, "field": "form", "value": "4", "extra": "1"}), 400),
        (post(save, {"field": "form", "value": "4"}), 403),  # no CSRF token
        (post(save, {"csrf": tokens.csrf_token(secret, "experts", "cy"), "field": "form",
                     "value": "4"}), 403),  # another rater's token
        (post(save, {"csrf": csrf, "field": "form", "value": "4"},
              Origin="https://evil.example"), 403),  # cross-site
        (post(f"{url}/r/{other[:-2]}{'yy' if other.endswith('xx') else 'xx'}/1/save",
              {"csrf": csrf, "field": "form", "value": "4"}), 404),
        (post(f"{url}/r/{token}/99/save", {"csrf": csrf, "field": "form", "value": "4"}), 404),
        (post(save, {"csrf": csrf, "field": "comment_overall_quality", "value": "y" * 300_000}), 413),
        (post(f"{url}/r/{token}/1", {"csrf": csrf, "form": "2", "theme": "7"}), 400),
        (httpx.get(f"{url}/admin/{admin[:-1]}{'B' if admin[-1] == 'A' else 'A'}", timeout=10), 404),
        (httpx.get(f"{url}/r/{token}/0", timeout=10), 404),
        (httpx.request("PUT", save, timeout=10), 405),
    ]  # fmt: skip
    for index, (response, status) in enumerate(cases):
        assert response.status_code == status, (index, response.text[:200])
    assert answers_of(run, "ben") == before  # nothing above was stored

    ok = post(save, {"csrf": csrf, "field": "comment_literary_devices", "value": HOSTILE})
    assert ok.status_code == 200 and ok.json()["saved"] == "comment_literary_devices"
    page = httpx.get(f"{url}/r/{token}/1", timeout=10)
    assert HOSTILE not in page.text and "&lt;script&gt;window.pwned" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    with RunStore(run, create=False) as store:
        assert store.count("survey_answers") >= 1  # the table survived the "DROP TABLE"


def test_a_poem_number_too_long_for_an_int_is_not_found_not_a_server_error(
    live: tuple[Path, str], capfd: pytest.CaptureFixture[str]
) -> None:
    """/r/TOKEN/999…9 (5,000 digits): the route's int convertor raised Python's limit on
    integer strings, a 500 and a traceback in the server's log for each such request."""
    run, url = live
    token, _ = _links(run, "ben")
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", "ben")
    huge = "9" * 5000
    capfd.readouterr()
    responses = [
        httpx.get(f"{url}/r/{token}/{huge}", timeout=10),
        httpx.get(f"{url}/r/{token}/{huge}/", timeout=10),
        httpx.post(f"{url}/r/{token}/{huge}", data={"csrf": csrf, "form": "3"}, timeout=10),
        httpx.post(f"{url}/r/{token}/{huge}/save",
                   data={"csrf": csrf, "field": "form", "value": "3"}, timeout=10),
    ]  # fmt: skip
    assert [r.status_code for r in responses] == [404] * 4, [r.text[:80] for r in responses]
    # A browser's form over 32 MiB sent there gets the page saying it was too large (refused
    # unread: the headers alone are sent), which read the poem's number from the address too.
    host = url.removeprefix("http://")
    name, port = host.split(":")
    with socket.create_connection((name, int(port)), timeout=10) as conn:
        conn.sendall(
            f"POST /r/{token}/{huge} HTTP/1.1\r\nHost: {host}\r\nAccept: text/html\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {2**30}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        answer = b"".join(iter(lambda: conn.recv(65536), b""))
    assert answer.startswith(b"HTTP/1.1 413 ") and b"Answers too large to save" in answer, answer
    assert "Traceback" not in capfd.readouterr().err
    assert httpx.get(f"{url}/r/{token}/0001", timeout=10).status_code == 200  # poem 1 still


def test_an_unanswered_attention_check_is_named_in_the_list_of_missing_answers(
    live: tuple[Path, str],
) -> None:
    """An attention check left unanswered on "Save and next" was listed as "Question ✓ needs an
    answer." (its label is a tick, not a number): it is named as what it is."""
    run, url = live
    token, _ = _links(run, "ben")
    with RunStore(run, create=False) as store:
        position = next(p.position for p in db.pages(store, "experts", "ben") if p.check_expected)
    before = answers_of(run, "ben")
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", "ben")
    page = httpx.post(f"{url}/r/{token}/{position}", data={"csrf": csrf, "action": "next"})
    assert page.status_code == 422
    assert '<a href="#q-attention_check">The attention check needs an answer.</a>' in page.text
    assert "Question ✓" not in page.text
    assert answers_of(run, "ben") == before


def test_going_back_to_an_earlier_visit_keeps_the_later_answers(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Chromium restores the form of a page reached by Back / Forward as it was on that visit;
    the page showed older answers than those saved since, and "Save and next" stored them."""
    run, url = live
    token, _ = _links(run, "cy")
    first, second = f"{url}/r/{token}/1", f"{url}/r/{token}/2"
    context = browser.new_context()
    page = context.new_page()
    page.goto(first)
    _answer_page(page, run, "cy", 1)
    comment = page.locator("textarea[name='comment_overall_quality']")
    saved = page.locator("#q-comment_overall_quality .saved").filter(has_text="saved")
    comment.fill("first thoughts")
    saved.wait_for()
    page.goto(second)
    page.goto(first)  # poem 1 again (the list of poems): the rater changes their mind
    page.wait_for_load_state("load")
    page.locator("#q-form input[value='5']").check()
    page.locator("#q-form .saved").filter(has_text="saved").wait_for()
    comment.fill("second thoughts")
    saved.wait_for()
    page.go_back()
    page.go_back()  # the first visit of poem 1
    shown = (page.locator("#q-form input:checked").get_attribute("value"), comment.input_value())
    page.get_by_role("button", name="Save and next poem").click()
    page.wait_for_url(second)
    context.close()
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "cy")[0].generation_id
    stored = answers_of(run, "cy")
    assert stored[(poem, "form")] == (5.0, None)
    assert stored[(poem, "comment_overall_quality")] == (None, "second thoughts")
    assert shown == ("5", "second thoughts")  # the page showed what was saved last


def test_a_tab_drawn_before_an_answer_changed_in_another_keeps_the_newer_answer(
    live: tuple[Path, str], browser: Browser
) -> None:
    """Poem 1 open in tab A, then in tab B where an answer is changed (and saved): "Save and
    next" in tab A posted its older copy of that answer, and the server stored it over the new
    one. Tab A's own changes still land."""
    run, url = live
    token, _ = _links(run, "dee")
    first = f"{url}/r/{token}/1"
    context = browser.new_context()
    tab_a = context.new_page()
    tab_a.goto(first)
    _answer_page(tab_a, run, "dee", 1)  # "form" is 1
    tab_b = context.new_page()
    tab_b.goto(first)
    tab_b.wait_for_load_state("load")
    tab_b.locator("#q-form input[value='5']").check()
    tab_b.locator("#q-form .saved").filter(has_text="saved").wait_for()
    tab_b.close()
    # Tab A still shows 1; the rater types a comment there and goes on at once.
    assert tab_a.locator("#q-form input:checked").get_attribute("value") == "1"
    tab_a.locator("textarea[name='comment_overall_quality']").fill("written in tab A")
    tab_a.get_by_role("button", name="Save and next poem").click()
    tab_a.wait_for_url(f"{url}/r/{token}/2")
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "dee")[0].generation_id
    stored = answers_of(run, "dee")
    assert stored[(poem, "form")] == (5.0, None)  # tab B's answer, changed last
    assert stored[(poem, "comment_overall_quality")] == (None, "written in tab A")
    tab_a.goto(first)  # poem 1 again in tab A: the answer it could not store is not shown
    assert tab_a.locator("#q-form input:checked").get_attribute("value") == "5"
    context.close()


def test_autosaves_arriving_out_of_order_keep_the_answer_edited_last(
    live: tuple[Path, str],
) -> None:
    """Two saves of one answer, the later edit arriving first: the server stored the earlier
    one over it. Edit times are the rater's browser clock (ms), compared only with each other."""
    run, url = live
    token, _ = _links(run, "dee")
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", "dee")
    page_url = f"{url}/r/{token}/3"
    save = f"{page_url}/save"
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "dee")[2].generation_id
        # An answer without an edit time (stored before edit times, or imported): the oldest.
        db.import_answers(store, "experts", [("dee", poem, "comment_literary_devices", None,
                                              "on paper")], source="sheet", config={})  # fmt: skip

    def post(target: str, **data: str) -> httpx.Response:
        return httpx.post(target, data={"csrf": csrf, **data}, timeout=10)

    def form() -> tuple[float | None, str | None]:
        return answers_of(run, "dee")[(poem, "form")]

    assert post(save, field="form", value="4", edited="2000").status_code == 200
    late = post(save, field="form", value="2", edited="1000")  # edited before, arrived after
    assert late.status_code == 409 and late.json()["stale"] == "form"
    assert form() == (4.0, None)
    assert post(save, field="form", value="3").status_code == 409  # no time: the oldest
    assert form() == (4.0, None)
    for bad in ("soon", "-1", "1e3", "9" * 16):
        assert post(save, field="form", value="3", edited=bad).status_code == 400
    assert post(save, field="form", value="3", edited="2001").status_code == 200
    assert form() == (3.0, None)
    # A browser clock far behind still replaces an answer without a time (on a page drawn
    # after its import, which the page says in `imported`: see the import tests below).
    seen = _hidden(httpx.get(page_url, timeout=10).text, "imported")
    sent = post(
        save, field="comment_literary_devices", value="on the web", edited="1", imported=seen
    )
    assert sent.is_success
    assert answers_of(run, "dee")[(poem, "comment_literary_devices")] == (None, "on the web")

    # The page carries each stored time; the whole form sent back without JavaScript (times
    # as drawn) stores what changed only where nothing newer came since it was drawn.
    shown = httpx.get(page_url, timeout=10).text
    assert 'name="edited:form" value="2001"' in shown
    assert 'name="edited:theme" value=""' in shown
    assert post(save, field="form", value="5", edited="2002").is_success  # another tab
    sent = post(page_url, form="1", theme="2", **{"edited:form": "2001", "edited:theme": ""})
    assert sent.status_code in (303, 422)
    assert form() == (5.0, None)
    assert answers_of(run, "dee")[(poem, "theme")] == (2.0, None)


def test_a_page_drawn_before_an_import_cannot_store_over_the_imported_answers(
    live: tuple[Path, str], tmp_path: Path
) -> None:
    """`survey import` left the edit times alone: a page opened before the import and saved
    after it (an autosave of a change made since, or "Save and next" sending the answers it was
    drawn with) stored its answers over the imported ones. A page drawn after the import edits
    them as usual; the import itself replaces web answers, also when run again."""
    run, url = live
    token, _ = _links(run, "ben")
    csrf = tokens.csrf_token(tokens.load_secret(run), "experts", "ben")
    page_url = f"{url}/r/{token}/2"
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "ben")[1].generation_id

    def post(target: str, **data: str) -> httpx.Response:
        sent = {key: value for key, value in data.items() if value or key != "imported"}
        return httpx.post(target, data={"csrf": csrf, **sent}, timeout=10)

    def stored(key: str) -> float | None:
        return answers_of(run, "ben").get((poem, key), (None, None))[0]

    def drawn() -> str:
        return _hidden(httpx.get(page_url, timeout=10).text, "imported")

    stale = drawn()
    assert post(
        f"{page_url}/save", field="form", value="2", edited="5000", imported=stale
    ).is_success
    imported = _import(run, tmp_path, "ben", poem, {"form": 4, "theme": 5})
    assert "(1 new, 1 replaced)" in imported  # an import after a web save replaces it
    # The rater changes "form" on the page opened before the import: refused, as from a tab
    # drawn before another changed it, whatever the browser clock says.
    late = post(f"{page_url}/save", field="form", value="5", edited="9000", imported=stale)
    assert late.status_code == 409 and late.json() == {"error": STALE, "stale": "form"}
    # "Save and next" (also without JavaScript) of that page: its other answers land.
    full = {"form": "2", "theme": "1", "creativity": "3", "edited:form": "5000", "imported": stale}
    assert post(page_url, **full).status_code == 422  # not every question answered
    assert (stored("form"), stored("theme"), stored("creativity")) == (4.0, 5.0, 3.0)

    fresh = drawn()  # reloaded: the page shows the imported answers and edits them
    assert fresh > stale
    assert post(
        f"{page_url}/save", field="form", value="5", edited="9001", imported=fresh
    ).is_success
    assert stored("form") == 5.0
    again = _import(run, tmp_path, "ben", poem, {"form": 4, "theme": 5})  # the same file again
    assert "(0 new, 2 replaced)" in again and stored("form") == 4.0
    assert post(f"{page_url}/save", field="theme", value="1", imported=fresh).status_code == 409
    assert post(f"{page_url}/save", field="theme", value="1", imported=drawn()).is_success
    assert (stored("form"), stored("theme")) == (4.0, 1.0)


def test_a_browser_page_opened_before_an_import_says_to_reload(
    live: tuple[Path, str], browser: Browser, tmp_path: Path
) -> None:
    """The rater's change on a page opened before `survey import` is refused with the message
    of a tab drawn before another; reloaded, the page shows the import and saves again."""
    run, url = live
    token, _ = _links(run, "cy")
    with RunStore(run, create=False) as store:
        poem = db.pages(store, "experts", "cy")[2].generation_id
    page = browser.new_page()
    page.goto(f"{url}/r/{token}/3")
    _answer_page(page, run, "cy", 3, only=1)  # "form" is 1
    _import(run, tmp_path, "cy", poem, {"form": 4})
    page.locator("#q-form input[value='5']").check()
    page.locator("#q-form .saved.failed").filter(has_text=STALE).wait_for(timeout=5000)
    assert answers_of(run, "cy")[(poem, "form")] == (4.0, None)
    page.reload()
    assert page.locator("#q-form input:checked").get_attribute("value") == "4"
    page.locator("#q-form input[value='5']").check()
    page.locator("#q-form .saved:not(.failed)").filter(has_text="saved").wait_for()
    page.close()
    assert answers_of(run, "cy")[(poem, "form")] == (5.0, None)
