"""The poem browser on a larger run: each prompt's poems travel in their own JSON element (parsed
when the prompt is shown), each poem text is in the page once, and a click on any prompt, an
author switched off or the pass/fail filter show exactly the poems the run holds."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report import build_report
from poemetric.report.render import json_for_html

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

MODELS = tuple(f"model-{chr(ord('a') + i)}" for i in range(10))


@pytest.fixture(scope="module")
def scale_report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict]]:
    """A run of the human poems and 10 models over 42 prompts (462 poems), its report, and
    what the store holds: {prompt_id: {author: (poem, passed)}} with the prompts in page order."""
    run = tmp_path_factory.mktemp("scale") / "run"
    with build_synthetic_run(run, authors=(HUMAN_AUTHOR, *MODELS), poems_per_form=14) as store:
        path = build_report(store)
        stored: dict[str, dict[str, tuple[str, int]]] = {}
        for prompt_id, author, poem, passed in store.query(
            "SELECT p.prompt_id, g.author, g.poem, f.passed FROM prompts p JOIN poems po "
            "ON po.poem_id = p.poem_id JOIN generations g ON g.prompt_id = p.prompt_id "
            "JOIN form_checks f ON f.generation_id = g.generation_id "
            "ORDER BY po.position, p.prompt_id"
        ):
            stored.setdefault(prompt_id, {})[author] = (poem, passed)
    yield path, stored


def test_the_page_holds_each_poem_text_once(scale_report: tuple[Path, dict]) -> None:
    path, stored = scale_report
    html = path.read_text(encoding="utf-8")
    texts = [poem for authors in stored.values() for poem, _ in authors.values()]
    assert len(texts) == len(stored) * 11 == 42 * 11 and len(set(texts)) == len(texts)
    # The human poems too: a prompt with a human poem does not repeat it as its original.
    assert [html.count(json_for_html(text)) for text in texts] == [1] * len(texts)
    # The page's main JSON holds no poem; each prompt's poems are in their own element.
    main = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html)
    assert main is not None and not any(json_for_html(t) in main.group(1) for t in texts)
    chunks = re.findall(r'<script type="application/json" id="poems-(\d+)">(.*?)</script>', html)
    assert [int(n) for n, _ in chunks] == list(range(len(stored)))
    assert all(len(json.loads(chunk)) == 11 for _, chunk in chunks)


def _cards(page: Page) -> dict[str, str]:
    """{author id: poem text} of the drawn cards (the lines as shown, blank lines left out)."""
    return dict(
        page.locator("#prompt-view .poem-card").evaluate_all(
            """cards => cards.map(c => [c.dataset.author,
                 [...c.querySelectorAll('ol.poem-lines li.line')].map(l => l.textContent)
                   .join('\\n')])"""
        )
    )


def _lines(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if line.strip())


def test_a_click_shows_that_prompts_poems_and_filters_follow_the_run(
    scale_report: tuple[Path, dict], browser: Browser
) -> None:
    path, stored = scale_report
    prompt_ids = list(stored)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    for index in (len(prompt_ids) - 1, 23, 0, 23):  # late, middle, first, back again
        page.locator(f"#prompt-{index}").click()
        expected = {a: _lines(poem) for a, (poem, _) in stored[prompt_ids[index]].items()}
        assert _cards(page) == expected
    # An author switched off leaves that author's card out and the others as they were.
    page.get_by_label("model-c", exact=True).uncheck()
    expected.pop("model-c")
    assert _cards(page) == expected
    # Only model-e, failed poems: the prompts where model-e's poem failed, and its poem only.
    page.locator("#filter-authors button[data-authors=none]").click()
    page.get_by_label("model-e", exact=True).check()
    page.locator("#filter-check").select_option("fail")
    failed = [i for i, p in enumerate(prompt_ids) if stored[p]["model-e"][1] == 0]
    assert 0 < len(failed) < len(prompt_ids)
    shown = page.locator("#prompt-list li[role=option]:not([hidden])")
    assert [int(i) for i in shown.evaluate_all("items => items.map(i => i.dataset.index)")] == (
        failed
    )
    shown.last.click()
    prompt = stored[prompt_ids[failed[-1]]]
    assert _cards(page) == {
        HUMAN_AUTHOR: _lines(prompt[HUMAN_AUTHOR][0]),
        "model-e": _lines(prompt["model-e"][0]),
    }
    assert errors == []
    page.close()
