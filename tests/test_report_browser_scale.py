"""The poem browser on a larger run: each prompt's poems are a part of the page's data, read when
the prompt is shown (a JSON element of a one-file report, a file of the folder beside a folder
report's page), each poem text is in the report once, and a click on any prompt, an author
switched off or the pass/fail filter show exactly the poems the run holds, in both layouts."""

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
from poemetric.report.parts import parts_folder
from poemetric.report.render import json_for_html

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

MODELS = tuple(f"model-{chr(ord('a') + i)}" for i in range(10))


#: A folder report's part files of about 40 KB: 42 prompts of 11 poems make 6 files.
PART_BYTES = 40_000


@pytest.fixture(scope="module")
def scale_reports(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[dict[str, Path], dict]]:
    """A run of the human poems and 10 models over 42 prompts (462 poems), its report in each
    layout ({"file": page, "folder": page}), and what the store holds: {prompt_id: {author:
    (poem, passed)}} with the prompts in page order."""
    run = tmp_path_factory.mktemp("scale") / "run"
    with build_synthetic_run(run, authors=(HUMAN_AUTHOR, *MODELS), poems_per_form=14) as store:
        store.conn.execute(  # beyond ASCII: a folder report's files escape it (parts.py)
            "UPDATE generations SET poem = poem || ? WHERE author = 'model-a' AND prompt_id = "
            "(SELECT p.prompt_id FROM prompts p JOIN poems po ON po.poem_id = p.poem_id "
            "ORDER BY po.position DESC, p.prompt_id DESC LIMIT 1)",  # the last on the page
            ("\nCafé “noir”, déjà vu — 😀 ✓",),
        )
        paths = {
            "file": build_report(store),  # 462 poems: one file
            "folder": build_report(store, run / "report" / "split.html", layout="folder",
                                   part_bytes=PART_BYTES),
        }  # fmt: skip
        stored: dict[str, dict[str, tuple[str, int]]] = {}
        for prompt_id, author, poem, passed in store.query(
            "SELECT p.prompt_id, g.author, g.poem, f.passed FROM prompts p JOIN poems po "
            "ON po.poem_id = p.poem_id JOIN generations g ON g.prompt_id = p.prompt_id "
            "JOIN form_checks f ON f.generation_id = g.generation_id "
            "ORDER BY po.position, p.prompt_id"
        ):
            stored.setdefault(prompt_id, {})[author] = (poem, passed)
    yield paths, stored


@pytest.fixture
def scale_report(scale_reports: tuple[dict[str, Path], dict]) -> tuple[Path, dict]:
    """The one-file report of `scale_reports` and what the store holds."""
    paths, stored = scale_reports
    return paths["file"], stored


def test_the_page_holds_each_poem_text_once(scale_report: tuple[Path, dict]) -> None:
    path, stored = scale_report
    assert not parts_folder(path).exists()
    html = path.read_text(encoding="utf-8")
    texts = [poem for authors in stored.values() for poem, _ in authors.values()]
    assert len(texts) == len(stored) * 11 == 42 * 11 and len(set(texts)) == len(texts)
    # The human poems too: a prompt with a human poem does not repeat it as its original.
    assert [html.count(json_for_html(text)) for text in texts] == [1] * len(texts)
    # The page's main JSON holds no poem; each prompt's poems are in their own element.
    main = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html)
    assert main is not None and not any(json_for_html(t) in main.group(1) for t in texts)
    chunks = re.findall(
        r'<script type="application/json" id="browser-part-(\d+)">(.*?)</script>', html
    )
    assert [int(n) for n, _ in chunks] == list(range(len(stored)))
    assert all(len(json.loads(chunk)) == 11 for _, chunk in chunks)


def test_a_folder_report_holds_each_poem_text_once_beside_its_page(
    scale_reports: tuple[dict[str, Path], dict],
) -> None:
    paths, stored = scale_reports
    page = paths["folder"].read_text(encoding="utf-8")
    texts = [poem for authors in stored.values() for poem, _ in authors.values()]
    assert not any(json_for_html(text) in page for text in texts)
    assert "browser-part-" not in page
    files = sorted(parts_folder(paths["folder"]).iterdir(), key=lambda f: int(f.stem[8:]))
    assert [f.name for f in files] == [f"browser-{k}.js" for k in range(len(files))]
    assert 3 <= len(files) < 42 and all(f.stat().st_size < 2 * PART_BYTES for f in files)
    assert all(f.read_bytes().isascii() for f in files)  # read the same in any encoding
    # Each file: POEMETRIC_PART(build, section, first part, [parts]) with the parts in order.
    parts: list[list[dict]] = []
    builds = set()
    for f in files:
        call = re.fullmatch(r'POEMETRIC_PART\("(\w+)","browser",(\d+),(\[.*\])\);\n',
                            f.read_text(encoding="ascii"), re.S)  # fmt: skip
        assert call is not None and int(call.group(2)) == len(parts)
        builds.add(call.group(1))
        parts += json.loads(call.group(3))
    assert len(builds) == 1 and len(parts) == len(stored)
    shown = [poem["t"] for chunk in parts for poem in chunk]
    assert sorted(shown) == sorted(texts)  # each poem once
    # The page is what remains: the one-file page less its poems.
    size = sum(f.stat().st_size for f in files)
    assert len(page) < paths["file"].stat().st_size - size + 20_000


def _show(page: Page, index: int) -> None:
    """Click prompt `index` and wait until its poems are drawn (a folder report loads them)."""
    page.locator(f"#prompt-{index}").click()
    page.wait_for_selector(f"#prompt-view[data-prompt='{index}']:not([aria-busy])")


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


@pytest.mark.parametrize("layout", ["file", "folder"])
def test_a_click_shows_that_prompts_poems_and_filters_follow_the_run(
    scale_reports: tuple[dict[str, Path], dict], browser: Browser, layout: str
) -> None:
    paths, stored = scale_reports
    path = paths[layout]
    prompt_ids = list(stored)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    for index in (len(prompt_ids) - 1, 23, 0, 23):  # late, middle, first, back again
        _show(page, index)
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
    _show(page, failed[-1])
    prompt = stored[prompt_ids[failed[-1]]]
    assert _cards(page) == {
        HUMAN_AUTHOR: _lines(prompt[HUMAN_AUTHOR][0]),
        "model-e": _lines(prompt["model-e"][0]),
    }
    assert errors == []
    page.close()


def test_a_folder_report_reads_a_prompts_poems_from_disk_when_shown(
    scale_reports: tuple[dict[str, Path], dict], browser: Browser
) -> None:
    """Opened from file://, the folder report loads only the first prompt's file of poems; a
    prompt whose file was not loaded shows its poems once that file is read, with no request
    but the report's own files."""
    paths, stored = scale_reports
    path = paths["folder"]
    prompt_ids = list(stored)
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    files = parts_folder(path)
    assert requests == [path.as_uri(), (files / "browser-0.js").as_uri()]
    assert _cards(page) == {a: _lines(poem) for a, (poem, _) in stored[prompt_ids[0]].items()}
    last = len(prompt_ids) - 1
    _show(page, last)
    assert requests[2:] == [(files / f"browser-{len(list(files.iterdir())) - 1}.js").as_uri()]
    assert _cards(page) == {a: _lines(poem) for a, (poem, _) in stored[prompt_ids[last]].items()}
    assert page.locator("#prompt-view .poem-card").count() == 11
    assert "Café “noir”, déjà vu — 😀 ✓" in page.locator("#prompt-view").inner_text()
    _show(page, 0)  # read already: nothing loaded again
    assert len(requests) == 3 and errors == []
    assert "this page and its folder split_files" in page.locator("footer").inner_text()
    page.close()


def test_a_folder_report_without_its_folder_says_where_the_poems_are(
    scale_reports: tuple[dict[str, Path], dict], browser: Browser, tmp_path: Path
) -> None:
    """The page copied (or mailed) alone opens, and names the folder it needs."""
    paths, _ = scale_reports
    alone = tmp_path / "split.html"
    alone.write_bytes(paths["folder"].read_bytes())
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(alone.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    message = page.locator("#prompt-view p.error").inner_text()
    assert "did not load" in message and "split_files/browser-0.js" in message
    assert "beside split.html" in message
    assert page.locator("#prompt-list li[role=option]").count() == 42  # the list still works
    page.locator("#filter-search").fill("no such title")
    assert page.locator("#prompt-count").inner_text() == "0 of 42 prompts"
    assert errors == []
    page.close()
