"""`poemetric export --format parquet` types a TEXT column as a string even where every value
is NULL.

pyarrow gave a column of nothing but NULLs its `null` type: a run's `calls.detail` (no call
failed), `generations.error`, every text column of an empty table. The Parquet exports of two
runs (or two shards), one with an error text and one without, then could not be read as one
folder (`pandas.read_parquet(folder)`: "Unsupported cast from large_string to null").
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store.schema import EXPORTABLE_TABLES


def _run_with_calls(run: Path, detail: str | None) -> None:
    with RunStore(run) as store:
        store.log_call(
            cache_key="k", provider="p", model="m", attempt=1, outcome="ok" if detail is None
            else "error", http_status=200 if detail is None else 500, latency_s=0.5, detail=detail,
        )  # fmt: skip


def _export(run: Path, destination: Path, *tables: str) -> None:
    args = ["export", *tables, "--run", str(run), "--to", str(destination)]
    result = CliRunner().invoke(app, [*args, "--format", "parquet"])
    assert result.exit_code == 0, result.output


def test_text_columns_are_strings_in_every_table(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _run_with_calls(run, detail=None)
    _export(run, tmp_path / "out")
    text = pq.read_schema(tmp_path / "out" / "calls.parquet").field("cache_key").type
    assert pa.types.is_string(text) or pa.types.is_large_string(text)
    conn = sqlite3.connect(run / "poemetric.sqlite")
    try:
        for table in EXPORTABLE_TABLES:
            schema = pq.read_schema(tmp_path / "out" / f"{table}.parquet")
            declared = conn.execute(f"SELECT name, type FROM pragma_table_info('{table}')")
            for name, kind in declared:
                if kind.upper() == "TEXT":  # the type of text that is there: calls.cache_key
                    assert schema.field(name).type == text, (table, name)
    finally:
        conn.close()
    calls = pd.read_parquet(tmp_path / "out" / "calls.parquet")
    assert calls["detail"].isna().all() and calls["latency_s"].tolist() == [0.5]


def test_exports_of_two_runs_read_as_one_folder(tmp_path: Path) -> None:
    # the file without a detail first: its schema is the folder's
    for name, detail in (("a-quiet", None), ("b-failed", "HTTP 500: upstream timed out")):
        _run_with_calls(tmp_path / name, detail)
        _export(tmp_path / name, tmp_path / "calls" / f"{name}.parquet", "calls")
    both = pd.read_parquet(tmp_path / "calls")
    assert sorted(both["detail"].fillna("")) == ["", "HTTP 500: upstream timed out"]
    assert sorted(both["http_status"]) == [200, 500]
