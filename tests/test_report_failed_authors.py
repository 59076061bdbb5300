"""A generator whose every generation failed (a wrong key, a retired model) was left out of the
report but for its row in the run metadata: the poem browser dropped its failed cards and its
author filter, the prompt list counted none of its failures, and the overview's author count
left it out without a word. The browser now shows its errors and the overview names it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report import build_report
from poemetric.store import RunStore, stable_id

if TYPE_CHECKING:
    from playwright.sync_api import Browser

ERROR = "HTTP 401: invalid key <b>sk-…</b>"
REFUSAL = "refusal: the model declined to write the poem"
JUDGE_ERROR = "parse: item 3 <b>missing</b>"


def _run_with_a_failed_generator(run: Path) -> RunStore:
    store = build_synthetic_run(run, authors=("human", "model-a"), poems_per_form=1)
    poems = [r["poem_id"] for r in store.query("SELECT poem_id FROM poems ORDER BY position")]
    with store.transaction():
        for poem_id in poems:
            store.conn.execute(
                "INSERT INTO generations (generation_id, prompt_id, poem_id, author, "
                "sample_index, status, error, created_at) VALUES (?, ?, ?, 'keyless', 0, "
                "'error', ?, '2025-01-01T00:00:00Z')",
                (stable_id(poem_id, "keyless"), f"p-{poem_id}", poem_id, ERROR),
            )
    return store


def _browser_parts(html: str) -> list[list[dict[str, object]]]:
    """The poem browser's poems of a one-file report, a list per prompt."""
    parts = re.findall(
        r'<script type="application/json" id="browser-part-\d+">(.*?)</script>', html
    )
    return [json.loads(part) for part in parts]


def test_a_generator_with_no_poem_shows_its_errors_in_the_browser(tmp_path: Path) -> None:
    with _run_with_a_failed_generator(tmp_path / "run") as store:
        html = build_report(store).read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', html, re.S).group(1))
    authors = [a["id"] for a in data["sections"]["browser"]["authors"]]
    assert authors == ["human", "keyless", "model-a"]  # in the author filter, in author order
    assert '<input type="checkbox" value="1" checked> keyless</label>' in html
    keyless = authors.index("keyless")
    parts = _browser_parts(html)
    assert len(parts) == 3
    for poems in parts:  # each prompt: its failed card, with the error (escaped by report.js)
        failed = [p for p in poems if p["a"] == keyless]
        assert failed == [{"a": keyless, "s": 0, "t": "", "x": ERROR}]
    metas = re.findall(r'<span class="meta">(.*?)</span>', html)
    assert metas == ["ballad · <bdi>Anonymous</bdi> · 2 poems · 1 failed",
                     "sonnet · <bdi>Anonymous</bdi> · 2 poems · 1 failed",
                     "villanelle · <bdi>Anonymous</bdi> · 2 poems · 1 failed"]  # fmt: skip


def test_the_overview_names_a_generator_with_no_poem(tmp_path: Path) -> None:
    with _run_with_a_failed_generator(tmp_path / "run") as store:
        html = build_report(store).read_text(encoding="utf-8")
    facts = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", html))
    assert facts["LLM authors"] == "1"  # the authors with poems, as the tables count them
    assert facts["LLM authors with no poem (every generation failed)"] == "keyless"
    assert facts["Generations failed"] == "3"


def test_a_run_whose_generators_all_failed_still_has_a_browser(tmp_path: Path) -> None:
    """No successful generation at all (no human poems in the run, the one model failed): the
    browser still shows the prompts and the errors."""
    with _run_with_a_failed_generator(tmp_path / "run") as store:
        store.conn.execute("DELETE FROM judgments")
        store.conn.execute("DELETE FROM form_checks")
        store.conn.execute("DELETE FROM generations WHERE status = 'ok'")
        store.conn.commit()
        html = build_report(store).read_text(encoding="utf-8")
    assert 'id="poem-browser"' in html
    assert [[p["x"] for p in poems] for poems in _browser_parts(html)] == [[ERROR]] * 3


def _judgments_not_made(store: RunStore) -> None:
    """model-a's judgment of the ballad not made (not a poem), of the sonnet failed; the
    villanelle's stays."""
    for poem_id, status, error in (("ballad-0", "not_judged", REFUSAL),
                                   ("sonnet-0", "error", JUDGE_ERROR)):  # fmt: skip
        store.conn.execute(
            "UPDATE judgments SET status = ?, error = ? WHERE generation_id = ?",
            (status, error, stable_id(poem_id, "model-a")),
        )
    store.conn.commit()


def test_a_judgment_not_made_is_on_its_card(tmp_path: Path) -> None:
    """The browser sent only the judgments made: a poem the judge left unjudged (a refusal)
    or failed on had a card without its judge, as if never sent to it."""
    with _run_with_a_failed_generator(tmp_path / "run") as store:
        _judgments_not_made(store)
        html = build_report(store).read_text(encoding="utf-8")
    cards = [[p for p in poems if p.get("t")][-1] for poems in _browser_parts(html)]  # model-a
    judgments: list[list[dict[str, object]]] = [card["j"] for card in cards]  # type: ignore[misc]
    missing = [[{k: j[k] for k in ("x", "e") if k in j} for j in js] for js in judgments]
    assert missing == [
        [{"x": "not_judged", "e": REFUSAL}],
        [{"x": "error", "e": JUDGE_ERROR}],
        [{}],
    ]


def test_the_failed_cards_show_in_chromium(tmp_path: Path, browser: Browser) -> None:
    """From `file://`: the generator is in the author filter, and each prompt shows its card
    with the error as text (the `<b>` of the error is no element); model-a's cards say which
    judgments were not made and why."""
    with _run_with_a_failed_generator(tmp_path / "run") as store:
        _judgments_not_made(store)
        page_path = build_report(store)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(page_path.as_uri())
        page.wait_for_selector("html[data-ready=true]")
        assert "keyless" in page.inner_text("#filter-authors")
        not_made = [f"Not judged (not a poem): {REFUSAL}", f"No judgment (failed): {JUDGE_ERROR}"]
        for index in range(3):
            card = page.locator('#prompt-view article[data-author="keyless"]')
            assert card.get_attribute("data-check") == "error"
            assert card.locator("p.error").inner_text() == f"Generation failed: {ERROR}"
            assert card.locator("b").count() == 0
            judged = page.locator('#prompt-view article[data-author="model-a"] .judgment')
            assert judged.locator("h5").inner_text() == "judge-x"
            if index < 2:
                assert judged.locator("p.judgment-missing").inner_text() == not_made[index]
                assert judged.locator("table.scores, b").count() == 0
            else:
                assert judged.locator("table.scores").count() == 1
            page.keyboard.press("j")
        # only its cards: every prompt still listed, each with the failed card alone
        page.click('#filter-authors button[data-authors="none"]')
        page.check('#filter-authors input[value="1"]')
        assert page.inner_text("#prompt-count") == "3 of 3 prompts"
        assert page.locator("#prompt-view .poem-grid article").count() == 1
    finally:
        page.close()
