"""The poem browser's `#prompt=` link named the prompt's poem, so in a run with two prompts for
one poem (a store merged before `merge` refused a second template) the link of the second
opened the first. Such a prompt's link names the prompt; a poem's id still opens its first."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import DemoTemplate, copy_demo_run

from poemetric.report import build_report
from poemetric.store import RunStore

if TYPE_CHECKING:
    from playwright.sync_api import Browser

VARIANT_POEM = "A variant poem, of the second template's prompt"


@pytest.fixture(scope="module")
def two_prompts(
    tmp_path_factory: pytest.TempPathFactory, demo_run_template: DemoTemplate
) -> Iterator[tuple[Path, str, str]]:
    """A demo run whose first poem has a second prompt, with a markov poem: (report, poem id,
    the second prompt's id). Asked for before `browser` (its asyncio first)."""
    run = copy_demo_run(demo_run_template, tmp_path_factory.mktemp("two") / "run")
    with RunStore(run, create=False) as store:
        first = store.query(
            "SELECT g.generation_id, g.poem_id FROM generations g "
            "JOIN poems po ON po.poem_id = g.poem_id WHERE g.author = 'markov' "
            "ORDER BY po.position LIMIT 1"
        )[0]
        columns = [r["name"] for r in store.query("PRAGMA table_info(generations)")]
        values = {c: f":{c}" for c in columns} | {
            "generation_id": "'generation-variant'",
            "prompt_id": "'prompt-variant'",
            "poem": ":poem",
            "response_text": ":poem",
        }
        store.conn.execute(
            "INSERT INTO templates (template_hash, name, text) VALUES (?, 'variant.jinja', 'V')",
            ("f" * 64,),
        )
        store.conn.execute(
            "INSERT INTO prompts (prompt_id, poem_id, template_hash, text) "
            "VALUES ('prompt-variant', ?, ?, 'Write it otherwise.')",
            (first["poem_id"], "f" * 64),
        )
        row = dict(
            store.query(
                "SELECT * FROM generations WHERE generation_id = ?", (first["generation_id"],)
            )[0]
        )
        store.conn.execute(
            f"INSERT INTO generations ({', '.join(columns)}) "
            f"VALUES ({', '.join(values[c] for c in columns)})",
            row | {"poem": VARIANT_POEM},
        )
        store.conn.commit()
        report = build_report(store, run / "report" / "index.html")
    yield report, str(first["poem_id"]), "prompt-variant"


def test_the_link_of_a_poems_second_prompt_opens_that_prompt(
    two_prompts: tuple[Path, str, str], browser: Browser
) -> None:
    report, poem_id, prompt_id = two_prompts
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{report.as_uri()}#prompt={prompt_id}")
    page.wait_for_selector("html[data-ready=true]")
    assert VARIANT_POEM in page.locator("#prompt-view").inner_text()
    page.goto(f"{report.as_uri()}#prompt={poem_id}")  # an earlier link: the poem's first
    page.reload()
    page.wait_for_selector("html[data-ready=true]")
    assert VARIANT_POEM not in page.locator("#prompt-view").inner_text()
    # Choosing the second prompt puts its own link in the address.
    page.locator("#prompt-list li[role=option]").nth(1).click()
    assert page.url.endswith(f"#prompt={prompt_id}"), page.url
    assert VARIANT_POEM in page.locator("#prompt-view").inner_text()
    page.close()
