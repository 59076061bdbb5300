"""What `report` holds and reads for the poem browser (docs/benchmarks.md, "The poem browser a
prompt at a time"): each prompt's poems are encoded as they are read, not held as Python
objects all at once; a folder report's part files are made and written one at a time; with
--judge, a prompt's judgments are read through the unique index, not the judge's. Checked by
the bytes Python allocates (tracemalloc) and SQLite's steps, never by the process's resident
size or time, which move with the machine's load. The page and its files are the same as
before (compared with `diff -r` on study-sized runs; the browser's own tests check them)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report.build import load_report_run
from poemetric.report.model import ReportRun, Section
from poemetric.report.parts import encode_parts, part_files, parts_folder, write_report
from poemetric.report.sections.browser import browser

MODELS = tuple(f"model-{chr(ord('a') + i)}" for i in range(10))


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReportRun]:
    """120 prompts, 11 authors, three judges: 1,320 poems, 3,960 judgments with comments."""
    folder = tmp_path_factory.mktemp("browser_memory") / "run"
    with build_synthetic_run(
        folder,
        authors=(HUMAN_AUTHOR, *MODELS),
        poems_per_form=40,
        judges=("judge-x", "judge-y", "judge-z"),
    ) as store:
        yield load_report_run(store)


def _json_bytes(section: Section) -> int:
    return sum(len(part) for part in encode_parts([section])["browser"])


def test_the_browser_holds_about_its_json_not_every_poem_as_objects(run: ReportRun) -> None:
    # Built all at once, the poems, form checks and judgments as dicts, lists and strings took
    # 3.9 times their JSON at its peak here (and were held to the end of the report); a
    # prompt's poems at a time, encoded at once, 1.4 times.
    tracemalloc.start()
    try:
        section = browser(run)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert section is not None
    assert len(section.parts) == 120
    assert all(isinstance(part, bytes) for part in section.parts)
    assert peak < 2 * _json_bytes(section)


def test_a_folder_reports_files_are_made_as_they_are_written(
    run: ReportRun, tmp_path: Path
) -> None:
    # Made at once, every part file's text was held beside the parts (1.1 times their JSON
    # here); made and written one at a time, about one file (40 KB) at a time: 0.1 times.
    section = browser(run)
    assert section is not None
    encoded = encode_parts([section])
    size = sum(len(part) for part in encoded["browser"])
    page = tmp_path / "index.html"
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        index, files = part_files(encoded, parts_folder(page).name, part_bytes=40_000)
        write_report(page, "<!doctype html>", files)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    written = sorted(parts_folder(page).iterdir())
    assert len(written) == len(index["sections"]["browser"]) > 20
    assert peak - base < size / 4


def _browser_steps(run: ReportRun) -> int:
    """SQLite's virtual-machine steps (in thousands) while the browser section is built."""
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    run.store.conn.set_progress_handler(count, 1_000)
    try:
        browser(run)
    finally:
        run.store.conn.set_progress_handler(None, 1_000)
    return steps[0]


def test_the_browser_of_one_judge_reads_only_each_prompts_judgments(run: ReportRun) -> None:
    # Given --judge's `judge IN (...)`, SQLite took the judge's index for a prompt's judgments
    # (a plain JOIN or `generation_id IN`) and went through every judgment of the judge for
    # each prompt: 9 times the steps of every judge's browser here. Each prompt's generations
    # first, then their judgments by the unique index: about half.
    one_judge = load_report_run(run.store, judge="judge-y")
    assert list(one_judge.data.chosen_judges or ()) == ["judge-y"]
    assert _browser_steps(one_judge) <= _browser_steps(run)
