"""The run report's probes section put scorers run on different pairs side by side with no word
of it (only the Pairs column hinted), as `probe report` did before it warned. The section now
shows a note naming each scorer, its files, its pairs and how many not every scorer scored (the
comparison of `probe report`, `poemetric.probes.pair_sets`). The real CLI: `probe build`, `probe
run` into RUN/probes/, `report --run`; the page in headless Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

WIDE = {"COLUMNS": "400"}


def invoke(*args: str) -> None:
    result = CliRunner().invoke(app, list(args), env=WIDE)
    assert result.exit_code == 0, result.output


def probes_section(page: Path) -> str:
    html = page.read_text(encoding="utf-8")
    section = html[html.index('<section id="probes"') :]
    return section[: section.index("</section>")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    """A run with `ngram` on every pair and `ngram:2` on the first 3 (`--limit 3`), its report
    (`report --run`), and how many pairs there are. Built before `browser` (asyncio first)."""
    run = tmp_path_factory.mktemp("probe-pairs") / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    probes = run / "probes"
    probes.mkdir()
    pairs = tmp_path_factory.mktemp("pairs") / "pairs.jsonl"
    invoke("probe", "build", "demo", "--tasks", "rhyme_line_swap", "-o", str(pairs))
    invoke("probe", "run", str(pairs), "--scorer", "ngram", "-o", str(probes / "full.jsonl"))
    invoke("probe", "run", str(pairs), "--scorer", "ngram:2", "--limit", "3",
           "-o", str(probes / "three.jsonl"))  # fmt: skip
    invoke("report", "--run", str(run), "--bootstrap", "0")
    yield run / "report" / "index.html", len(pairs.read_text(encoding="utf-8").splitlines())


def test_scorers_on_different_pairs_are_named_above_the_table(runs: tuple[Path, int]) -> None:
    page, total = runs
    assert total > 3
    section = probes_section(page)
    note = section[section.index('id="probe-pair-sets"') : section.index("<table")]
    assert "The 2 scorers were not run on the same pairs, so their accuracies compare" in note
    assert f"<li>ngram:3 (full.jsonl): {total} pairs, {total - 3} not scored by every " in note
    assert "<li>ngram:2 (three.jsonl): 3 pairs, 0 not scored by every scorer</li>" in note
    assert "compares them on the 3 pairs every scorer scored" in note


def test_scorers_on_the_same_pairs_get_no_note(tmp_path: Path) -> None:
    run = tmp_path / "run"
    build_synthetic_run(run, poems_per_form=1).close()
    (run / "probes").mkdir()
    pairs = tmp_path / "pairs.jsonl"
    invoke("probe", "build", "demo", "--tasks", "rhyme_line_swap", "-o", str(pairs))
    for scorer in ("ngram", "ngram:2"):
        invoke("probe", "run", str(pairs), "--scorer", scorer, "-o",
               str(run / "probes" / f"{scorer.replace(':', '-')}.jsonl"))  # fmt: skip
    invoke("report", "--run", str(run), "--bootstrap", "0")
    section = probes_section(run / "report" / "index.html")
    assert "ngram:2" in section and "ngram:3" in section
    assert "probe-pair-sets" not in section and "not run on the same pairs" not in section


def test_the_note_is_seen_in_a_browser(runs: tuple[Path, int], browser: Browser) -> None:
    page_path, total = runs
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(page_path.as_uri())
    page.wait_for_selector("html[data-ready=true]")
    note = page.locator("#probes #probe-pair-sets")
    note.scroll_into_view_if_needed()
    assert note.is_visible()
    assert note.locator("li").all_inner_texts() == [
        "ngram:2 (three.jsonl): 3 pairs, 0 not scored by every scorer",
        f"ngram:3 (full.jsonl): {total} pairs, {total - 3} not scored by every scorer",
    ]
    box, table = note.bounding_box(), page.locator("#probes table.data").first.bounding_box()
    assert box and table and box["y"] + box["height"] <= table["y"]  # read before the numbers
    assert box["width"] > 300  # not squeezed
    # A warning's colour, not the grey of the section's explanations.
    colour = note.evaluate("e => getComputedStyle(e).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)")
    if shots := os.environ.get("POEMETRIC_SCREENSHOTS"):
        page.locator("#probes").screenshot(path=str(Path(shots) / "probes-pair-sets.png"))
    assert errors == []
    page.close()
