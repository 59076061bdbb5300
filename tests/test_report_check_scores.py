"""The poem browser's score line under a form check's summary ("form 0.62 · meter 0.70 · ...")
printed other numbers than the summary: the payload rounded each score to three decimals and
report.js's toFixed(2) rounded it again, half up, where the checker's summary rounds once
(Python's). A meter of 0.625 (5 of 8 lines) read 0.63 under a summary saying 0.62, and 0.6951
read 0.69 under a summary saying 0.70 (4% of the synthetic paper run's cards)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report import build_report

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: Scores on which the two roundings part: ties in binary (0.625, 0.125) and a score whose
#: three-decimal rounding lands on a tie (0.6951 -> 0.695, stored as 0.69499...).
SCORES = {"form_score": 0.625, "meter_score": 0.6951, "rhyme_score": 0.125}


def test_score_line_prints_the_summary_s_numbers(tmp_path: Path, browser: Browser) -> None:
    run = tmp_path / "run"
    with build_synthetic_run(run, authors=("human", "model-a"), poems_per_form=1) as store:
        shown = ", ".join(f"{key.split('_')[0]} {value:.2f}" for key, value in SCORES.items())
        summary = f"FAIL sonnet: {shown} (threshold 0.70)"
        explanation = json.dumps({"summary": summary, "issues": [], "threshold": 0.7})
        with store.transaction() as db:
            db.execute(
                "UPDATE form_checks SET form_score = ?, meter_score = ?, rhyme_score = ?, "
                "passed = 0, explanation = ?",
                (*SCORES.values(), explanation),
            )
        page_path = build_report(store, run / "report" / "index.html")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(page_path.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    checks = page.locator(".poem-grid .check")
    assert checks.count() >= 1
    for index in range(checks.count()):
        check = checks.nth(index)
        assert check.locator("p.summary").inner_text() == summary
        assert check.locator("p.scores").inner_text() == "form 0.62 · meter 0.70 · rhyme 0.12"
    page.close()
