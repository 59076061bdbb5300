"""Time the run report at the paper's scale: build it, then load it in headless Chromium.

The run is synthetic (poemetric.analysis.synthetic.paper_scale_run): 203 prompts over the seven
forms, the human poets and the 30 models of `paper30` (6,090 LLM poems, every one distinct), a
form check with an explanation and one judgment with three comments per poem. Prints:

* build: CPU seconds of `build_report` (process time, so other load on the machine does not
  count) and wall seconds; the page's size (and its folder's, for a folder report);
* load: per page load in Chromium (fresh page each time, file:// URL, no network), the time
  from navigation start to DOMContentLoaded, to the load event, and to the report's "ready" mark
  (the poem browser has drawn the first prompt's 31 poems), median and max over the loads;
* interaction: median time to draw a prompt after pressing `j` (31 poem cards), and to apply
  an author filter.

Usage: .venv/bin/python bench/bench_report.py [--loads 5] [--prompts 203]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from poemetric.analysis.synthetic import PAPER_FORMS, paper_scale_run
from poemetric.report import build_report


def scaled_forms(prompts: int) -> dict[str, int]:
    total = sum(PAPER_FORMS.values())
    return {form: max(1, round(count * prompts / total)) for form, count in PAPER_FORMS.items()}


def load_times(path: Path, loads: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    times: dict[str, list[float]] = {"dom": [], "load": [], "ready": [], "next": [], "filter": []}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"]
        )
        for _ in range(loads):
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_selector("html[data-ready=true]")
            timing = page.evaluate(
                """() => {
                  const nav = performance.getEntriesByType('navigation')[0];
                  const ready = performance.getEntriesByName('poemetric-report-ready')[0];
                  return {dom: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
                          ready: ready.startTime};
                }"""
            )
            for key in ("dom", "load", "ready"):
                times[key].append(timing[key])
            page.locator("#prompt-list").focus()
            for _ in range(5):
                page.keyboard.press("j")
                page.wait_for_selector("#prompt-view:not([aria-busy])")  # a folder report's file
                times["next"].append(
                    float(page.locator("#prompt-view").get_attribute("data-render-ms") or "nan")
                )
            started = page.evaluate("performance.now()")
            page.locator("#filter-authors input").nth(1).uncheck()
            page.wait_for_function("document.querySelectorAll('.poem-card').length === 30")
            times["filter"].append(page.evaluate("performance.now()") - started)
            page.close()
        browser.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=203)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        with paper_scale_run(run, prompts=scaled_forms(args.prompts)) as store:
            poems = store.count("generations", "author != 'human'")
            originals = store.count("poems")
            authors = len(store.query("SELECT DISTINCT author FROM generations"))
            cpu, wall = time.process_time(), time.perf_counter()
            path = build_report(store)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        size = path.stat().st_size / 1e6
        folder = path.with_name(f"{path.stem}_files")  # a folder report's poems (--prompts 1000)
        files = [f.stat().st_size for f in folder.iterdir()] if folder.is_dir() else []
        beside = f" + {folder.name}/ {sum(files) / 1e6:.1f} MB" if files else ""
        print(f"run: {poems} LLM poems + {originals} human, {authors} authors, "
              "1 judge with comments")  # fmt: skip
        print(
            f"build_report: {cpu:.2f} s CPU, {wall:.2f} s wall; {path.name} {size:.1f} MB{beside}"
        )
        times = load_times(path, args.loads)
    for key, label in (("dom", "DOMContentLoaded"), ("load", "load event"),
                       ("ready", "browser ready (first prompt drawn)"),
                       ("next", "next prompt drawn (j)"), ("filter", "author filter applied")):  # fmt: skip
        values = times[key]
        print(
            f"{label:36s} median {statistics.median(values):7.1f} ms  max {max(values):7.1f} ms  (n={len(values)})"
        )


if __name__ == "__main__":
    main()
