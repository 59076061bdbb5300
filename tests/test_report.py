"""The run report: `make demo` + `make report` give one self-contained HTML file; in headless
Chromium (offline) every author, every human poem title, every poem and a form-check
explanation are reachable, keys and filters work, and a judge's comments show (escaped)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import DemoTemplate, copy_demo_run
from markupsafe import Markup
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.judge.stage import run_judging
from poemetric.report import Section, build_report
from poemetric.report import registry as report_registry
from poemetric.report.model import ReportRun
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HOSTILE = "<script>window.__pwned = 1</script>"
JUDGE_ANSWER = {
    "1": 4, "2": 5, "3": 3, "4": 4, "5": 2, "6": 3, "7": 4, "8": 0,
    "9": f"No devices. {HOSTILE}", "10": 4,
    "11": "Solid but safe: <img src=x onerror='window.__pwned = 2'>", "12": 2,
    "13": "</script><b>too regular</b>",
}  # fmt: skip


@pytest.fixture(scope="module")
def demo_run(
    tmp_path_factory: pytest.TempPathFactory, demo_run_template: DemoTemplate
) -> Iterator[tuple[Path, Path, Path]]:
    """`poemetric demo` (a copy of the worker's demo run) then `poemetric report` (the make
    targets), then the same run judged through a local OpenAI-protocol server and reported
    again: (run, report, judged report). Tests ask for it before `browser`: the pipeline's
    asyncio must run before Playwright's."""
    run = copy_demo_run(demo_run_template, tmp_path_factory.mktemp("demo") / "demo")
    runner = CliRunner()
    assert "report" in demo_run_template.output and (run / "report" / "index.html").is_file()
    result = runner.invoke(app, ["report", "--run", str(run)])
    assert result.exit_code == 0, result.output
    report = run / "report" / "index.html"
    os.environ[TEST_KEY_ENV] = TEST_KEY
    try:
        with OpenAIServer(lambda call: json.dumps(JUDGE_ANSWER), api_key=TEST_KEY) as server:
            spec = openai_spec(server.base_url, name="local-judge")
            with RunStore(run, create=False) as store:
                judged = run_judging(store, spec, options=FAST)
                assert judged.errors == 0
                judged_report = build_report(store, run / "report" / "judged.html")
    finally:
        os.environ.pop(TEST_KEY_ENV, None)
    yield run, report, judged_report


def _open(browser: Browser, path: Path) -> tuple[Page, list[str], list[str]]:
    """A fresh page on `path`, recording every request that is not the file itself, and
    every script error."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url) if r.url != path.as_uri() else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    return page, requests, errors


def _ok_poems(run: Path) -> int:
    with RunStore(run, create=False) as store:
        return store.count("generations", "status = 'ok'")


def test_report_is_one_self_contained_file(demo_run: tuple[Path, Path, Path]) -> None:
    _, report, _ = demo_run
    html = report.read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", html)
    assert "default-src 'none'" in html  # the page may not fetch anything, even if it tried
    assert [p.name for p in report.parent.iterdir() if p.suffix == ".html"]  # one file each
    assert "<svg" in html and "Markov baseline" in html


def test_every_author_title_poem_and_explanation_is_reachable(
    demo_run: tuple[Path, Path, Path], browser: Browser
) -> None:
    run, report, _ = demo_run
    page, requests, errors = _open(browser, report)
    with RunStore(run, create=False) as store:
        titles = [r[0] for r in store.query("SELECT title FROM poems ORDER BY position")]
    authors = page.locator("#filter-authors label").all_inner_texts()
    assert [a.strip() for a in authors] == ["Human", "Markov baseline"]
    assert page.locator("#prompt-list .title").all_inner_texts() == titles
    # Walk every prompt with the keyboard: every stored poem is drawn exactly once.
    page.locator("#prompt-list").focus()
    page.keyboard.press("Home")
    seen = 0
    for index in range(len(titles)):
        assert page.locator("#prompt-view h3").inner_text() == titles[index]
        seen += page.locator("#prompt-view .poem-card").count()
        page.keyboard.press("j")
    assert seen == _ok_poems(run)
    # A failed poem shows the checker's explanation and marks the lines it names.
    failed = page.locator(".poem-card.fail")
    page.locator("#filter-check").select_option("fail")
    assert failed.count() >= 1
    summary = failed.first.locator(".check .summary").inner_text()
    assert summary.startswith("FAIL ") and "threshold" in summary
    assert failed.first.locator(".check ul.issues li").count() >= 1
    assert failed.first.locator("ol.poem-lines li.flagged").count() >= 1
    assert requests == [] and errors == []
    page.close()


def test_keyboard_navigation(demo_run: tuple[Path, Path, Path], browser: Browser) -> None:
    _, report, _ = demo_run
    page, _, errors = _open(browser, report)
    options = page.locator("#prompt-list li[role=option]")
    selected = page.locator("#prompt-list li[aria-selected=true]")
    assert selected.get_attribute("data-index") == "0"
    page.locator("#prompt-list").focus()
    page.keyboard.press("j")
    page.keyboard.press("ArrowDown")
    assert selected.get_attribute("data-index") == "2"
    page.keyboard.press("k")
    assert selected.get_attribute("data-index") == "1"
    page.keyboard.press("End")
    assert selected.get_attribute("data-index") == str(options.count() - 1)
    assert "#prompt=" in page.url  # a prompt can be linked to
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "filter-search"
    assert errors == []
    page.close()


def test_filters(demo_run: tuple[Path, Path, Path], browser: Browser) -> None:
    run, report, _ = demo_run
    page, _, errors = _open(browser, report)
    visible = page.locator("#prompt-list li[role=option]:not([hidden])")
    total = visible.count()
    page.locator("#filter-form").select_option("limerick")
    with RunStore(run, create=False) as store:
        limericks = store.count("poems", "form = 'limerick'")
    assert visible.count() == limericks and "limerick" in visible.first.inner_text()
    page.locator("#filter-form").select_option("")
    page.locator("#filter-search").fill("sonnet 18")
    assert visible.count() == 1
    page.locator("#filter-search").fill("")
    assert visible.count() == total
    page.locator("#filter-check").select_option("pass")
    assert all(s == "pass" for s in page.locator(".poem-grid .poem-card").evaluate_all(
        "cards => cards.map(c => c.dataset.check)"))  # fmt: skip
    page.locator("#filter-check").select_option("")
    page.get_by_label("Markov baseline").uncheck()
    assert page.locator(".poem-grid .poem-card").count() == 0
    assert page.locator(".original .poem-card.human").count() == 1  # the original stays
    page.get_by_role("button", name="all").click()
    assert page.locator(".poem-grid .poem-card").count() == 1
    # A search matching nothing, then cleared: the prompt chosen before is the one selected.
    page.locator("#prompt-list li[role=option]").nth(2).click()
    page.locator("#filter-search").fill("no such title")
    assert page.locator("#prompt-count").inner_text() == f"0 of {total} prompts"
    page.locator("#filter-search").fill("")
    selected = page.locator("#prompt-list li[aria-selected=true]")
    assert selected.count() == 1 and selected.get_attribute("data-index") == "2"
    assert errors == []
    page.close()


def test_filtered_out_prompts_leave_the_list_on_screen(
    demo_run: tuple[Path, Path, Path], browser: Browser
) -> None:
    # The filter set `hidden` on the prompts it left out, but `.prompt-list li` is
    # `display: flex`, which overrides the attribute: "5 of 16 prompts" over all 16 still listed.
    run, report, _ = demo_run
    page, _, errors = _open(browser, report)
    prompts = page.locator("#prompt-list li[role=option]")
    total = prompts.count()
    page.locator("#filter-form").select_option("limerick")
    with RunStore(run, create=False) as store:
        limericks = store.count("poems", "form = 'limerick'")
    assert 0 < limericks < total
    shown = [prompts.nth(i).is_visible() for i in range(total)]
    assert shown.count(True) == limericks
    assert page.locator("#prompt-count").inner_text() == f"{limericks} of {total} prompts"
    page.locator("#filter-form").select_option("")
    assert all(prompts.nth(i).is_visible() for i in range(total))
    assert errors == []
    page.close()


def test_judge_scores_and_comments_show_escaped(
    demo_run: tuple[Path, Path, Path], browser: Browser, tmp_path: Path
) -> None:
    _, _, judged = demo_run
    html = judged.read_text(encoding="utf-8")
    assert HOSTILE not in html and "</script><b>" not in html
    page, requests, errors = _open(browser, judged)
    judgment = page.locator(".poem-grid .poem-card .judgment").first
    assert judgment.locator("h5").inner_text() == "local-judge"
    comments = judgment.locator("dl.comments dd").all_inner_texts()
    assert comments == [JUDGE_ANSWER["9"], JUDGE_ANSWER["11"], JUDGE_ANSWER["13"]]
    assert judgment.locator("td.score").all_inner_texts()[6:8] == ["4", "N/A"]
    assert page.evaluate("window.__pwned") is None
    assert page.locator("dl.comments b, dl.comments img, dl.comments script").count() == 0
    # The judge's sections: leaderboard with CIs, ten dimension charts, the judges table.
    assert page.locator("#leaderboard svg.chart").count() == 1
    assert page.locator("#dimensions svg.chart").count() == 10
    assert "local-judge" in page.locator("#judges").inner_text()
    page.screenshot(path=str(tmp_path / "report.png"), full_page=False)
    assert (tmp_path / "report.png").stat().st_size > 20_000
    assert requests == [] and errors == []
    page.close()


def test_score_heads_on_a_poem_card_are_not_cut(
    demo_run: tuple[Path, Path, Path], browser: Browser
) -> None:
    """Ten equal columns cut "Form" to "Fo…" (at 1400 px, and in every 300 px card)."""
    _, _, judged = demo_run
    page, _, errors = _open(browser, judged)
    heads = page.locator(".poem-grid .judgment table.scores").first.locator("th")
    cut = "ths => ths.filter(th => { const r = document.createRange(); r.selectNodeContents(th);"
    cut += " return r.getBoundingClientRect().width > th.clientWidth - 2; }).length"
    for width in (1000, 1400):  # a card of 300 px, the narrowest, and the reported width
        page.set_viewport_size({"width": width, "height": 900})
        assert heads.all_inner_texts()[:3] == ["Form", "Thm", "Voc"]
        assert heads.evaluate_all(cut) == 0, width
    assert heads.first.get_attribute("title").startswith("1. The poem follows")
    assert errors == []
    page.close()


def test_a_poem_card_names_the_human_authorship_item_as_the_tables_do(
    demo_run: tuple[Path, Path, Path], browser: Browser
) -> None:
    """A poem card headed the judge's human-authorship score `Hum` and its comment "Why human
    (Q13)", read as the human poets (the author is human), where the report's charts and tables
    say `Human authorship`."""
    _, _, judged = demo_run
    page, _, errors = _open(browser, judged)
    judgment = page.locator(".poem-grid .poem-card .judgment").first
    heads = judgment.locator("table.scores th")
    assert heads.all_inner_texts()[-2:] == ["Qual", "Auth"]
    assert heads.last.get_attribute("title") == "12. The poem is written by a human."
    assert judgment.locator("dl.comments dt").all_inner_texts() == [
        "Why devices (Q9)", "Why quality (Q11)", "Why human authorship (Q13)"
    ]  # fmt: skip
    assert "12. Human authorship" in page.locator("#dimensions").inner_text()
    assert errors == []
    page.close()


def test_poem_text_cannot_break_out_of_the_data(tmp_path: Path) -> None:
    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        store.conn.execute(
            "UPDATE generations SET poem = ? WHERE author = 'model-a'",
            ("</script><script>window.__pwned = 3</script>\u2028line & more",),
        )
        path = build_report(store)
    html = path.read_text(encoding="utf-8")
    assert "<script>window.__pwned = 3" not in html
    chunks = re.findall(
        r'<script type="application/json" id="browser-part-\d+">(.*?)</script>', html, re.S
    )
    poems = [poem for chunk in chunks for poem in json.loads(chunk)]
    assert any(p["t"].startswith("</script><script>window.__pwned") for p in poems)


def test_sections_are_a_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new section is one decorated function; one with nothing to show is left out."""
    builders = dict(report_registry._BUILDERS)
    monkeypatch.setattr(report_registry, "_BUILDERS", builders)

    @report_registry.section(55)
    def probes(run: ReportRun) -> Section:
        return Section("probes", "Minimal pairs", Markup("<p id='probe-body'>pairs</p>"),
                       data={"n": len(run.data.generations)})  # fmt: skip

    @report_registry.section(56)
    def nothing(run: ReportRun) -> Section | None:
        return None

    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        html = build_report(store).read_text(encoding="utf-8")
    order = [m.group(1) for m in re.finditer(r'<section id="([a-z-]+)"', html)]
    assert order.index("lexical") < order.index("probes") < order.index("browser")
    assert "<p id='probe-body'>pairs</p>" in html and '"probes":{"n":' in html
    assert len(order) == len(set(order))


def test_report_cli_errors(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", "--run", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "error: no run store" in result.stderr


def test_expert_ratings_add_the_agreement_section(tmp_path: Path) -> None:
    from poemetric.analysis.synthetic import write_synthetic_experts

    with build_synthetic_run(tmp_path / "run", poems_per_form=3) as store:
        experts = write_synthetic_experts(
            store, tmp_path / "experts.csv", authors=("human", "model-a"), experts=3
        )
        without = build_report(store, tmp_path / "plain.html").read_text(encoding="utf-8")
        html = build_report(store, tmp_path / "experts.html", experts=experts, n_boot=20)
    text = html.read_text(encoding="utf-8")
    assert 'id="agreement"' not in without and 'id="agreement"' in text
    assert "3 experts rated" in text and "Human experts" in text
    assert "(paper Table 2)" in text and re.search(r"<td>judge-x</td><td>Quality</td>", text)


def test_ghostwriting_and_judge_behaviour_sections(
    demo_run: tuple[Path, Path, Path], browser: Browser
) -> None:
    _, _, judged = demo_run
    page, requests, errors = _open(browser, judged)
    rows = page.locator("#ghostwriting table.data").first.locator("tbody tr").all_inner_texts()
    assert [row.split("\t")[0] for row in rows] == ["Human", "Markov baseline"]
    judges = page.locator("#judges table.data thead").inner_text()
    assert "Parse failures" in judges and "Not judged" in judges and "Re-asked" in judges
    assert requests == [] and errors == []
    page.close()


def test_report_opens_at_its_top_and_keeps_section_links(
    demo_run: tuple[Path, Path, Path], browser: Browser
) -> None:
    """The page starts at the overview (not scrolled to the browser, no #prompt added), a link
    to a section stays on that section, and a #prompt link cut short still opens."""
    _, report, _ = demo_run
    page, _, errors = _open(browser, report)
    assert page.evaluate("window.scrollY") == 0 and "#" not in page.url
    for fragment in ("#leaderboard", "#prompt=%E0%A4"):
        page.goto("about:blank")  # a new load, not a jump within the open page
        page.goto(report.as_uri() + fragment)
        page.wait_for_selector("html[data-ready=true]")
        assert page.url.endswith(fragment)
    assert page.locator("#prompt-list li[aria-selected=true]").get_attribute("data-index") == "0"
    assert errors == []
    page.close()


def test_arrow_keys_outside_the_browser_scroll_the_page(
    demo_run: tuple[Path, Path, Path], browser: Browser
) -> None:
    """Reading the overview, ↓ and End scroll the page; j still steps the poem browser."""
    _, report, _ = demo_run
    page, _, errors = _open(browser, report)
    selected = page.locator("#prompt-list li[aria-selected=true]")
    page.locator("#overview h2").click()  # focus on the page itself, not in the browser
    page.keyboard.press("ArrowDown")
    page.keyboard.press("End")
    for _ in range(40):  # (wait_for_function evaluates a string, which the page's CSP forbids)
        if page.evaluate("window.scrollY") > 0:
            break
        page.wait_for_timeout(50)
    assert page.evaluate("window.scrollY") > 0
    assert selected.get_attribute("data-index") == "0"
    page.keyboard.press("j")
    assert selected.get_attribute("data-index") == "1"
    page.keyboard.press("/")
    page.keyboard.press("Escape")  # out of the search field, back to the prompt list
    page.keyboard.press("ArrowDown")
    assert selected.get_attribute("data-index") == "2"
    assert errors == []
    page.close()


def test_prompt_list_counts_poems_not_failed_generations(tmp_path: Path) -> None:
    with build_synthetic_run(tmp_path / "run", authors=("human", "model-a"),
                             poems_per_form=1) as store:  # fmt: skip
        store.conn.execute(
            "UPDATE generations SET status = 'error', poem = NULL, error = 'timeout' "
            "WHERE author = 'model-a' AND prompt_id = 'p-sonnet-0'"
        )
        html = build_report(store).read_text(encoding="utf-8")
    metas = re.findall(r'data-form="(\w+)".*?<span class="meta">(.*?)</span>', html)
    assert ("sonnet", "sonnet · <bdi>Anonymous</bdi> · 1 poem · 1 failed") in metas
    assert ("ballad", "ballad · <bdi>Anonymous</bdi> · 2 poems") in metas
