"""Without judgments the leaderboard ranks the authors by form-check pass rate. An author with
no pass rate (no poem the checker could assess: an unknown form, an unreadable annotation) made
the ranking key NaN, and Python's sort left the rows around it unsorted: an author passing no
poem above one passing all of them. It now ranks last, "n/a"."""

from __future__ import annotations

import re
from pathlib import Path

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.report import build_report

PASSED = {"m1": 0, "m3": 1, "m4": 1}


def test_an_author_without_a_pass_rate_ranks_last_and_the_others_by_rate(tmp_path: Path) -> None:
    authors = ("human", "m1", "m2", "m3", "m4")
    with build_synthetic_run(tmp_path / "run", authors=authors, judges=()) as store:
        of_author = "generation_id IN (SELECT generation_id FROM generations WHERE author = ?)"
        store.conn.execute(
            f"UPDATE form_checks SET passed = NULL, error = 'unknown form' WHERE {of_author}",
            ("m2",),
        )
        for author, passed in PASSED.items():
            store.conn.execute(f"UPDATE form_checks SET passed = ? WHERE {of_author}",
                               (passed, author))  # fmt: skip
        store.conn.execute(f"UPDATE form_checks SET passed = 1 WHERE {of_author}", ("human",))
        store.conn.commit()
        html = build_report(store).read_text(encoding="utf-8")
    board = html[html.index('<section id="leaderboard"') : html.index('<section id="form-checks"')]
    assert "No judgments yet" in board
    rows = re.findall(r'class="label"[^>]*>(.*?)</text>', board)
    assert rows == ["Human", "m3", "m4", "m1", "m2"]
    assert re.findall(r"<title>(m\d: .*?)</title>", board) == [
        "m3: 1.00 [0.76, 1.00]", "m4: 1.00 [0.76, 1.00]", "m1: 0.00 [0.00, 0.24]", "m2: no mean"
    ]  # fmt: skip


def test_an_author_the_judge_scored_no_poem_of_is_named_not_ranked(tmp_path: Path) -> None:
    """Every judgment of model-b's poems failed (an answer that did not parse): the judge's
    board and dimension charts left model-b out without a word."""
    with build_synthetic_run(tmp_path / "run", poems_per_form=1) as store:
        store.conn.execute(
            "UPDATE judgments SET status = 'error', error = 'parse: no JSON' WHERE generation_id "
            "IN (SELECT generation_id FROM generations WHERE author = 'model-b')"
        )
        store.conn.commit()
        html = build_report(store).read_text(encoding="utf-8")
    board = html[html.index('<section id="leaderboard"') : html.index('<section id="dimensions"')]
    assert re.findall(r'<td class="author">(.*?)</td>', board) == ["Human", "model-a"]
    assert "Not ranked (no poem scored by judge-x): model-b." in board
    charts = html[html.index('<section id="dimensions"') : html.index('<section id="form-checks"')]
    assert "In no chart (no poem scored by this judge): model-b." in charts
