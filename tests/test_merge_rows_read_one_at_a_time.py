"""`poemetric merge` reads a table's rows that the destination holds already one at a time.

It read them all into memory at once (`fetchall`) to compare them with the destination's: a
study's stores merged again (450,000 judgments, with a reasoning judge's raw answers) held every
answer of the table in memory together. Measured with tracemalloc (Python's own allocations,
not a time): merging 200 generations of 60 KB each again, all identical, took 12 MB at once.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from poemetric.store import RunStore
from poemetric.store.db import utc_now
from poemetric.store.merge import merge_runs

ROWS = 200
ANSWER_BYTES = 60_000


def _store(run: Path) -> None:
    now = utc_now()
    with RunStore(run) as store, store.transaction() as conn:
        conn.execute(
            "INSERT INTO poems(poem_id, dataset, position, form, content, record) "
            "VALUES ('p', 'd', 0, 'sonnet', 'a poem', '{}')"
        )
        conn.execute("INSERT INTO templates VALUES ('t', 'default', 'Write a {form}.')")
        conn.execute("INSERT INTO prompts VALUES ('q', 'p', 't', 'Write a sonnet.')")
        conn.executemany(
            "INSERT INTO generations (generation_id, prompt_id, poem_id, author, sample_index, "
            "status, raw_response, poem, created_at) VALUES (?, 'q', 'p', 'm', ?, 'ok', ?, ?, ?)",
            [(f"g{i}", i, f"{i:06d}" + "x" * ANSWER_BYTES, f"poem {i}", now) for i in range(ROWS)],
        )


def test_rows_held_already_are_compared_one_at_a_time(tmp_path: Path) -> None:
    _store(tmp_path / "a")
    merge_runs([tmp_path / "a"], tmp_path / "merged")  # every row copied
    tracemalloc.start()
    try:
        report = merge_runs([tmp_path / "a"], tmp_path / "merged")  # every row held already
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.tables["generations"].identical == ROWS
    assert report.tables["generations"].copied == 0
    assert not report.conflicts
    assert peak < ROWS * ANSWER_BYTES / 4, f"{peak / 1e6:.1f} MB at once"
    with RunStore(tmp_path / "merged") as store:
        assert store.count("generations") == ROWS
