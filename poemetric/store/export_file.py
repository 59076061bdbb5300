"""A run-store table written to a file: CSV, JSONL or Parquet, chosen by the file suffix
(`RunStore.export`, `poemetric export`)."""

from __future__ import annotations

import csv
import json
import math
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from poemetric.paths import replaced_when_done
from poemetric.questionnaire import DIMENSIONS
from poemetric.store.connect import StoreError
from poemetric.store.frames import TableKinds, column_kinds, export_frames
from poemetric.store.schema import export_order

if TYPE_CHECKING:
    import pandas as pd

#: The suffixes `export_table` writes.
EXPORT_SUFFIXES = frozenset({".csv", ".jsonl", ".ndjson", ".parquet"})

#: How a CSV file writes an N/A answer ("no imagery is used"), stored as 0: R's and pandas'
#: missing value, text that a spreadsheet's AVERAGE passes over, and not the blank of a score
#: never given. As 0, a spreadsheet's mean of the column counted it as a score below 1.
CSV_NA = "NA"

#: The items whose answer may be N/A (imagery, literary devices): the `judgments` columns, and
#: the `survey_answers.question` values, whose stored 0 is N/A.
NA_ITEMS = tuple(dimension.key for dimension in DIMENSIONS if dimension.allows_na)


def export_suffix(destination: Path) -> str:
    """The suffix of `destination`, lower case; a StoreError for one `export_table` does not write."""
    suffix = destination.suffix.lower()
    if suffix not in EXPORT_SUFFIXES:
        raise StoreError(f"cannot export to {destination}: use .csv, .jsonl or .parquet")
    return suffix


def export_table(conn: sqlite3.Connection, table: str, destination: Path) -> Path:
    """Write `table` (a known table of the store) to `destination` (generations with the
    form, metre and rhyme pattern each was asked for: `frames.export_frame`), a piece of rows at
    a time (`frames.export_frames`: the file the whole table's frame made); a half-written file
    never replaces the one there (Ctrl-C leaves no truncated table)."""
    suffix = export_suffix(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    with replaced_when_done(destination) as temp:
        if suffix == ".csv":
            write_csv(lambda: (na_written(table, f) for f in export_frames(conn, table)), temp)
        elif suffix == ".parquet":
            kinds = column_kinds(conn, table)
            _refuse_mixed_kinds(conn, table, destination, kinds)
            write_parquet_frames(export_frames(conn, table, kinds=kinds), temp)
        else:
            with temp.open("w", encoding="utf-8", newline="\n") as out:
                for frame in export_frames(conn, table):
                    write_jsonl_rows(frame, out)
    return destination


def _refuse_mixed_kinds(
    conn: sqlite3.Connection, table: str, destination: Path, kinds: TableKinds
) -> None:
    """A StoreError naming the first column of `table` that holds text (or bytes) beside
    numbers, and the first row that does, before a Parquet file is begun: Parquet holds one
    type per column, and pyarrow's own error ("Could not convert 'x' with type str: tried to
    convert to int64") came as a crash, after the pieces before it were written."""
    for name, stored in kinds.columns.items():
        held = stored - {"null"}
        numbers = held & {"integer", "real"}
        if not numbers or held <= {"integer", "real"}:
            continue
        odd = sorted(held - numbers)
        quoted = ", ".join(repr(kind) for kind in odd)
        rowid, value = conn.execute(
            f'SELECT rowid, "{name}" FROM {table} WHERE typeof("{name}") IN ({quoted}) '
            "ORDER BY rowid LIMIT 1"
        ).fetchone()
        (row,) = conn.execute(  # its row in the CSV or JSONL file (`export_order`)
            f"SELECT n FROM (SELECT rowid AS r, row_number() OVER ({export_order(table).strip()})"
            f" AS n FROM {table}) WHERE r = ?",
            (rowid,),
        ).fetchone()
        raise StoreError(
            f"{destination}: column {name!r} of {table} holds numbers and {' and '.join(odd)} "
            f"(row {row}: {value!r}), and a Parquet column holds one type; export {table} as "
            "CSV or JSONL, which write each value as stored"
        )


def na_written(table: str, frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` (a piece of `table`) with each N/A answer, stored as 0, as `CSV_NA`: in the
    `judgments` columns of `NA_ITEMS`, and in `survey_answers.score` on those items. JSONL and
    Parquet keep the stored 0 (typed integer columns; `poemetric export --help` says so)."""
    if table == "judgments":
        for key in NA_ITEMS:
            if key in frame.columns:
                frame[key] = _na_marked(frame[key], frame[key].eq(0))
    elif table == "survey_answers" and {"question", "score"} <= set(frame.columns):
        na = frame["question"].isin(NA_ITEMS) & frame["score"].eq(0)
        frame["score"] = _na_marked(frame["score"], na)
    return frame


def _na_marked(column: pd.Series, na: pd.Series) -> pd.Series:
    """`column` as objects (numbers as they were, NULL blank) with `CSV_NA` where `na`."""
    na = na.fillna(False).astype(bool)
    if not na.any():
        return column
    marked = column.astype(object)
    marked[na] = CSV_NA
    return marked


def write_csv(frames: Callable[[], Iterator[pd.DataFrame]], path: Path) -> None:
    """The frames `frames()` gives, one CSV (one header), quoted as `csv_quoting` quotes the
    whole table: minimally, unless a piece holds a bare carriage return, which starts the file
    again with every field quoted."""
    quoting: Literal[0, 1] = csv.QUOTE_MINIMAL
    while True:
        with path.open("w", encoding="utf-8", newline="") as out:
            for index, frame in enumerate(frames()):
                if quoting == csv.QUOTE_MINIMAL and csv_quoting(frame) == csv.QUOTE_ALL:
                    quoting = csv.QUOTE_ALL
                    break
                frame.to_csv(out, index=False, header=index == 0, quoting=quoting)
            else:
                return


def csv_quoting(frame: pd.DataFrame) -> Literal[0, 1]:
    """Minimal quoting, or every field quoted where a text holds a carriage return without a
    line feed: Python's csv writer (pandas writes through it) quotes a field holding a character
    of its line terminator, "\n", but not a bare "\r", which every reader takes for the end of a
    row (a model's answer with "\r" line breaks was read back as several rows)."""
    for name in frame.columns:
        if frame[name].dtype.kind in "biuf":  # numbers: no text in them
            continue
        for value in frame[name]:
            if isinstance(value, str) and "\r" in value and "\n" not in value:
                return csv.QUOTE_ALL
    return csv.QUOTE_MINIMAL


def write_parquet_frames(frames: Iterator[pd.DataFrame], path: Path) -> None:
    """The frames (of one table, alike in columns and dtypes) as one Parquet file, a row group
    each, a column of nothing but NULLs typed as text: pyarrow gives it its `null` type, and the
    files of two runs, one with an error text and one without, could not be read as one folder
    ("Unsupported cast from large_string to null"). The INTEGER and REAL columns already carry
    their type (`frames.table_frame`); what is left untyped is text, given the type pandas gives
    text (string, large_string from pandas 3 on). A piece's column of NULLs where the table
    holds text elsewhere is that text type, as in a frame of the whole table."""
    import pandas as pd  # here, not at module level: CLI start-up time
    import pyarrow as pa
    import pyarrow.parquet as pq

    text = pa.Table.from_pandas(pd.DataFrame({"text": ["a"]}), preserve_index=False)[0].type
    writer = None
    try:
        for frame in frames:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if writer is None:
                fields = [
                    pa.field(field.name, text) if pa.types.is_null(field.type) else field
                    for field in table.schema
                ]
                schema = pa.schema(fields, metadata=table.schema.metadata)
                writer = pq.ParquetWriter(path, schema)
            writer.write_table(table.cast(schema))
    finally:
        if writer is not None:
            writer.close()


def write_jsonl_rows(frame: pd.DataFrame, out: TextIO) -> None:
    """One JSON object a row, each number as stored: pandas' `to_json` rounds floats to 10
    decimal places (a latency of 1.5e-11 s was written 0.0, 2**60 as 1.152921505e+18), where
    `json` writes the shortest text that reads back as the same float. Missing values (NULL,
    pandas' NA, NaN) and infinite floats are null, as `to_json` wrote them."""
    import pandas as pd  # here, not at module level: CLI start-up time

    def cell(value: Any) -> Any:
        if value is pd.NA or (isinstance(value, float) and not math.isfinite(value)):
            return None
        return value

    names = [str(name) for name in frame.columns]
    columns = [frame[name].tolist() for name in frame.columns]
    for values in zip(*columns, strict=True):
        record = dict(zip(names, map(cell, values), strict=True))
        line = json.dumps(record, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        out.write(line + "\n")
