"""A run-store table written to a file: CSV, JSONL or Parquet, chosen by the file suffix
(`RunStore.export`, `poemetric export`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from poemetric.paths import replaced_when_done
from poemetric.store.connect import StoreError
from poemetric.store.frames import export_frame

#: The suffixes `export_table` writes.
EXPORT_SUFFIXES = frozenset({".csv", ".jsonl", ".ndjson", ".parquet"})


def export_suffix(destination: Path) -> str:
    """The suffix of `destination`, lower case; a StoreError for one `export_table` does not write."""
    suffix = destination.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise StoreError(f"cannot export to {destination}: use .csv, .jsonl or .parquet")
    return suffix


def export_table(conn: sqlite3.Connection, table: str, destination: Path) -> Path:
    """Write `table` (a known table of the store) to `destination` (generations with the
    form, metre and rhyme pattern each was asked for: `frames.export_frame`); a half-written
    file never replaces the one there (Ctrl-C leaves no truncated table)."""
    suffix = export_suffix(destination)
    frame = export_frame(conn, table)
    destination.parent.mkdir(parents=True, exist_ok=True)
    with replaced_when_done(destination) as temp:
        if suffix == ".csv":
            frame.to_csv(temp, index=False)
        elif suffix == ".parquet":
            frame.to_parquet(temp, index=False)
        elif not frame.empty:  # an empty table stays an empty file, not pandas' "\n"
            frame.to_json(temp, orient="records", lines=True, force_ascii=False)
    return destination
