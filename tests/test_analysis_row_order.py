"""The analysis of a run does not depend on the order its rows were stored in: `merge sh/a sh/b`
and `merge sh/b sh/a` store the same poems in another order, and the means came out different
in their last digits (form_checks.csv: meter 0.6832153846153847 against ...844) and the per-poem
tables in another row order."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd

from poemetric.analysis import analyze_run
from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.store import RunStore

TABLES_STORED_IN_ORDER = ("generations", "form_checks", "judgments")


def _reverse_stored_order(path: Path) -> None:
    """Store every row of the poem tables again, last first (what a merge in the other order
    of its sources does), keeping their contents."""
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        for table in TABLES_STORED_IN_ORDER:
            conn.execute(f"CREATE TEMP TABLE reversed AS SELECT * FROM {table} ORDER BY rowid DESC")
            conn.execute(f"DELETE FROM {table}")
            conn.execute(f"INSERT INTO {table} SELECT * FROM reversed")
            conn.execute("DROP TABLE reversed")


def test_analysis_tables_do_not_depend_on_stored_row_order(tmp_path: Path) -> None:
    build_synthetic_run(tmp_path / "a", poems_per_form=5, seed=3).close()
    build_synthetic_run(tmp_path / "b", poems_per_form=5, seed=3).close()
    _reverse_stored_order(tmp_path / "b" / "poemetric.sqlite")
    results = []
    for name in ("a", "b"):
        store = RunStore(tmp_path / name)
        try:
            results.append(analyze_run(store, n_boot=0))
        finally:
            store.close()
    first, second = results
    assert sorted(first.tables) == sorted(second.tables)
    for name, table in first.tables.items():
        # Exact: equal to the last digit, in the same row order, as a rerun must be.
        pd.testing.assert_frame_equal(table, second.tables[name], check_exact=True, obj=name)
