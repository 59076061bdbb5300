"""A run-store table as a pandas frame whose columns keep the types SQLite declares.

`pandas.read_sql_query` infers each column's dtype from its values: an INTEGER column with a
NULL (a judge score left N/A, a row without an attention check, a call without an HTTP status)
became float64, and an exported CSV wrote `4.0` for 4. Here a column declared INTEGER is a
nullable integer (pandas "Int64": `4` in CSV and JSONL, empty / null for NULL, int64 with nulls in
Parquet), built from the stored values themselves (no detour through float, which rounds a whole
number above 2**53), and a column declared REAL is float64 even when every value is NULL (an empty
table), so that a Parquet file of an empty table has the column types of a full one. A column
holding values its declared type does not describe (SQLite keeps 2.5 or text in an INTEGER
column as they are) keeps the dtype pandas infers, as every other column does.

`WHOLE_NUMBER_COLUMNS` are declared REAL but hold whole numbers only: a survey answer's `score`
(1-5, 0 for N/A, NULL beside a comment) was written `4.0`. They are written as INTEGER columns
are while every value is whole. Line grades (`line_annotations.fluency`, `coherence`: 0, 0.5 or
1) are real numbers and stay floats.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: Table -> columns declared REAL that hold whole numbers (see the module's doc).
WHOLE_NUMBER_COLUMNS: dict[str, frozenset[str]] = {"survey_answers": frozenset({"score"})}


#: The request a generation answered, from the dataset poem its prompt was built from (the
#: `poems` row of its `poem_id`): the columns `poemetric form check` reads beside the poem, so
#: that exported generations are checked against what the run's form stage checks them against.
REQUEST_COLUMNS = ("form", "meter", "rhyme")


def export_frame(conn: sqlite3.Connection, table: str) -> pd.DataFrame:
    """`table_frame`, and for `generations` each row's requested form, metre and rhyme pattern
    after its own columns (without them `form check` refused an exported generations file: no
    `form` column)."""
    frame = table_frame(conn, table)
    if table != "generations":
        return frame
    columns = ", ".join(REQUEST_COLUMNS)
    requests = {row[0]: row[1:] for row in conn.execute(f"SELECT poem_id, {columns} FROM poems")}
    for index, column in enumerate(REQUEST_COLUMNS):
        frame[column] = [
            requests.get(poem_id, (None,) * len(REQUEST_COLUMNS))[index]
            for poem_id in frame["poem_id"]
        ]
    return frame


def table_frame(conn: sqlite3.Connection, table: str) -> pd.DataFrame:
    """Every row of `table` (a checked table name), its columns typed by their declared type."""
    import pandas as pd  # here, not at module level: CLI start-up time

    cursor = conn.execute(f"SELECT * FROM {table}")
    names = [description[0] for description in cursor.description]
    rows = [tuple(row) for row in cursor]
    frame = pd.DataFrame.from_records(rows, columns=names, coerce_float=True)
    declared = dict(conn.execute(f"SELECT name, type FROM pragma_table_info('{table}')"))
    whole_numbers = WHOLE_NUMBER_COLUMNS.get(table, frozenset())
    for index, name in enumerate(names):
        affinity = "INTEGER" if name in whole_numbers else _affinity(declared.get(name, ""))
        if affinity not in ("INTEGER", "REAL"):
            continue
        values = [row[index] for row in rows]
        if affinity == "INTEGER" and all(_whole(value) for value in values):
            ints = [None if value is None else int(value) for value in values]
            frame[name] = pd.array(ints, dtype="Int64")
        elif affinity == "REAL" and all(value is None or _number(value) for value in values):
            frame[name] = frame[name].astype("float64")
    return frame


def _affinity(declared: str | None) -> str:
    """SQLite's type affinity of a declared column type (its rules 1 to 5, in their order)."""
    upper = (declared or "").upper()
    if "INT" in upper:
        return "INTEGER"
    if any(word in upper for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if not upper or "BLOB" in upper:
        return "BLOB"
    if any(word in upper for word in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _whole(value: Any) -> bool:
    """NULL or a whole number (SQLite stores 4.0 in an INTEGER column as 4, but 2.5 as 2.5)."""
    return value is None or isinstance(value, int) or (_number(value) and value.is_integer())
