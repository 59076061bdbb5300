"""Load a written report page in headless Debian Chromium and measure it; optionally save the
visible text of every section (and of the poem browser after clicks) to compare two pages.

Prints JSON: the page's size and, for a folder report, its folder of poems (files, bytes; the
total); per load (fresh page, file:// URL, no network), the time from navigation start to
DOMContentLoaded, to the load event and to the report's "ready" mark (the first prompt drawn),
median and max; the time from a click on a prompt to the next frame after its poems are drawn
(`click`: all clicks; `click_first`: the first three, on prompts far apart, whose poems the page
had not read yet: in a folder report their file is loaded then), and from a click on an author's
check box; the JS heap when ready (before any garbage collection: what reading the page took)
and after the clicks and a garbage collection, and the DOM nodes (Chrome's Performance metrics).

With `--text OUT.json`, the first load also writes `inner_text` of every section, then of the
poem browser's view after a click on every `--every`-th prompt (and the last), after one author
is switched off, and with the "failed" filter: two pages show the same content when the files
are equal.

Usage: .venv/bin/python bench/report_page.py PAGE.html [--loads 3] [--text OUT.json] [--every 1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
from pathlib import Path
from typing import Any

#: Click the prompt and resolve at the next frame after its poems are drawn: at once on a page
#: that draws them in the click (no `data-prompt` on the view), else when the view names the
#: prompt and is not busy (a folder report loading the poems' file).
CLICK = """(i) => new Promise(done => { const item = document.getElementById('prompt-' + i);
  const view = document.getElementById('prompt-view');
  const drawn = () => !('prompt' in view.dataset)
    || (view.dataset.prompt === String(i) && !view.hasAttribute('aria-busy'));
  const t = performance.now();
  const finish = () => requestAnimationFrame(() => setTimeout(() => done(performance.now() - t), 0));
  const watch = new MutationObserver(() => { if (drawn()) { watch.disconnect(); finish(); } });
  watch.observe(view, {attributes: true});
  item.click();
  if (drawn()) { watch.disconnect(); finish(); } })"""
#: Click an author's check box and resolve at the next frame after it.
AUTHOR = """(k) => new Promise(done => {
  const box = document.querySelectorAll('#filter-authors input')[k];
  const t = performance.now(); box.click();
  requestAnimationFrame(() => setTimeout(() => done(performance.now() - t), 0)); })"""
TIMING = """() => { const nav = performance.getEntriesByType('navigation')[0];
  const ready = performance.getEntriesByName('poemetric-report-ready')[0];
  return [nav.domContentLoadedEventEnd, nav.loadEventEnd, ready.startTime]; }"""
TIMEOUT_MS = 600_000
#: What each load measures: times (ms), then the JS heap (MB) and the DOM nodes.
TIMES = ("dom", "load", "ready", "click", "click_first", "author")
KEYS = (*TIMES, "heap_ready_mb", "heap_mb", "nodes")


def visible_text(page: Any, every: int) -> dict[str, Any]:
    sections = page.evaluate("[...document.querySelectorAll('main > section')].map(s => s.id)")
    text: dict[str, Any] = {s: page.locator(f"section#{s}").inner_text() for s in sections}
    count = page.evaluate("document.querySelectorAll('#prompt-list li').length")
    views: dict[str, str] = {}
    for i in [*range(0, count, every), count - 1]:
        page.evaluate(CLICK, i)
        views[str(i)] = page.locator("#prompt-view").inner_text()
    page.evaluate(AUTHOR, 2)
    page.evaluate(CLICK, 0)
    views["author 2 off, prompt 0"] = page.locator("#prompt-view").inner_text()
    page.select_option("#filter-check", "fail")
    views["failed: count"] = page.locator("#prompt-count").inner_text()
    views["failed: view"] = page.locator("#prompt-view").inner_text()
    text["browser views"] = views
    return text


def measure(path: Path, loads: int, text_out: Path | None, every: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    runs: dict[str, list[float]] = {k: [] for k in KEYS}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        for n in range(loads):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            cdp = page.context.new_cdp_session(page)
            cdp.send("Performance.enable")
            page.goto(path.as_uri(), wait_until="load", timeout=TIMEOUT_MS)
            page.wait_for_selector("html[data-ready=true]", timeout=TIMEOUT_MS)
            for key, value in zip(("dom", "load", "ready"), page.evaluate(TIMING), strict=True):
                runs[key].append(value)
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            runs["heap_ready_mb"].append(metrics["JSHeapUsedSize"] / 1e6)
            count = page.evaluate("document.querySelectorAll('#prompt-list li').length")
            for order, i in enumerate((count // 3, count // 2, count - 1, 5, 1)):
                runs["click"].append(page.evaluate(CLICK, i))
                if order < 3:  # prompts far apart, not shown before
                    runs["click_first"].append(runs["click"][-1])
            for k in (3, 3, 7, 7):  # an author off, on again; another
                runs["author"].append(page.evaluate(AUTHOR, k))
            cdp.send("HeapProfiler.collectGarbage")
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            runs["heap_mb"].append(metrics["JSHeapUsedSize"] / 1e6)
            runs["nodes"].append(metrics["Nodes"])
            if text_out is not None and n == 0:
                page.goto(path.as_uri(), wait_until="load", timeout=TIMEOUT_MS)
                page.wait_for_selector("html[data-ready=true]", timeout=TIMEOUT_MS)
                text = visible_text(page, every)
                text_out.write_text(json.dumps(text, ensure_ascii=False, indent=0), "utf-8")
            page.close()
        browser.close()
    folder = path.with_name(f"{path.stem}_files")  # poemetric.report.parts.parts_folder
    files = [f.stat().st_size for f in folder.iterdir()] if folder.is_dir() else []
    result: dict[str, Any] = {
        "size_mb": round(path.stat().st_size / 1e6, 2),
        "folder_files": len(files),
        "folder_mb": round(sum(files) / 1e6, 2),
        "total_mb": round((path.stat().st_size + sum(files)) / 1e6, 2),
    }
    for key, values in runs.items():
        result[key] = {"median": round(statistics.median(values), 1), "max": round(max(values), 1)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--loads", type=int, default=3)
    parser.add_argument("--text", type=Path, help="write the visible text here (JSON)")
    parser.add_argument("--every", type=int, default=1, help="text of every N-th prompt")
    args = parser.parse_args()
    print(json.dumps(measure(args.page.resolve(), args.loads, args.text, args.every)))


if __name__ == "__main__":
    main()
