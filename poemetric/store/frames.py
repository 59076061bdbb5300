"""A run-store table as a pandas frame whose columns keep the types SQLite declares.

`pandas.read_sql_query` infers each column's dtype from its values: an INTEGER column with a
NULL (the scores of an unparsable judge answer, a row without an attention check, a call without
an HTTP status) became float64, and an exported CSV wrote `4.0` for 4. Here a column declared INTEGER is a
nullable integer (pandas "Int64": `4` in CSV and JSONL, empty / null for NULL, int64 with nulls in
Parquet), built from the stored values themselves (no detour through float, which rounds a whole
number above 2**53), and a column declared REAL is float64 even when every value is NULL (an empty
table), so that a Parquet file of an empty table has the column types of a full one. A column
holding values its declared type does not describe (SQLite keeps 2.5 or text in an INTEGER
column as they are) keeps the dtype pandas infers, as every other column does.

`export_frames` gives the same frame in pieces of `EXPORT_CHUNK_ROWS` rows, for `poemetric export`:
the whole table as Python objects and a frame was 4 to 5 times the table's text in memory (a
90 MB judgments CSV took 420 MB), and a study's 450,000 judgments with a reasoning judge's raw
answers would not fit. Each piece's columns have the dtypes the whole frame gives them (`_Plan`:
read from the table with SQL first), so the pieces written one after another make the file the
whole frame made.

`WHOLE_NUMBER_COLUMNS` are declared REAL but hold whole numbers only: a survey answer's `score`
(1-5, 0 for N/A, NULL beside a comment) was written `4.0`. They are written as INTEGER columns
are while every value is whole. Line grades (`line_annotations.fluency`, `coherence`: 0, 0.5 or
1) are real numbers and stay floats.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from poemetric.store.schema import export_order

if TYPE_CHECKING:
    import pandas as pd

#: Table -> columns declared REAL that hold whole numbers (see the module's doc).
WHOLE_NUMBER_COLUMNS: dict[str, frozenset[str]] = {"survey_answers": frozenset({"score"})}


#: The request a generation answered, from the dataset poem its prompt was built from (the
#: `poems` row of its `poem_id`): the columns `poemetric form check` reads beside the poem, so
#: that exported generations are checked against what the run's form stage checks them against.
REQUEST_COLUMNS = ("form", "meter", "rhyme")


#: Rows of a table `export_frames` reads, and `poemetric export` writes, at a time.
EXPORT_CHUNK_ROWS = 5_000


def export_frame(conn: sqlite3.Connection, table: str) -> pd.DataFrame:
    """`table_frame` in the table's export order (`schema.EXPORT_ORDER`: its natural key), and
    for `generations` each row's requested form, metre and rhyme pattern after its own columns
    (without them `form check` refused an exported generations file: no `form` column)."""
    frame = table_frame(conn, table, export_order(table))
    return _with_requests(conn, table, frame, _requests(conn) if table == "generations" else {})


def export_frames(
    conn: sqlite3.Connection,
    table: str,
    rows: int | None = None,
    *,
    kinds: TableKinds | None = None,
) -> Iterator[pd.DataFrame]:
    """`export_frame`'s rows in order, at most `rows` (default `EXPORT_CHUNK_ROWS`) at a time
    (one empty frame for an empty table), each column of the dtype it has in `export_frame`
    (values converted alike). `kinds`: the table's `column_kinds`, when the caller has read
    them already (one scan of the table fewer)."""
    rows = rows or EXPORT_CHUNK_ROWS
    plan = _Plan.of(conn, table, kinds or column_kinds(conn, table))
    if plan is None:  # an empty table
        yield export_frame(conn, table)
        return
    requests = _requests(conn) if table == "generations" else {}
    texts = _request_texts(conn) if table == "generations" else ()
    cursor = conn.execute(f"SELECT * FROM {table}{export_order(table)}")
    while chunk := [tuple(row) for row in cursor.fetchmany(rows)]:
        frame = _with_requests(conn, table, plan.frame(chunk), requests)
        for column in texts:  # a piece's column of NULLs is text as the whole one is
            frame[column] = frame[column].astype(_text_dtype())
        yield frame


def _request_texts(conn: sqlite3.Connection) -> list[str]:
    """The `REQUEST_COLUMNS` that hold a text for some generation: text in the whole frame,
    also in a piece whose poems have none (a first piece of poems without a metre)."""
    return [
        column
        for column in REQUEST_COLUMNS
        if conn.execute(
            "SELECT EXISTS (SELECT 1 FROM generations g JOIN poems p ON p.poem_id = g.poem_id "
            f"WHERE p.{column} IS NOT NULL)"
        ).fetchone()[0]
    ]


def _text_dtype() -> Any:
    """The dtype pandas gives a column of text (str from pandas 3 on, object before)."""
    import pandas as pd

    return pd.Series(["a"]).dtype


def _requests(conn: sqlite3.Connection) -> dict[str, tuple[Any, ...]]:
    columns = ", ".join(REQUEST_COLUMNS)
    return {row[0]: row[1:] for row in conn.execute(f"SELECT poem_id, {columns} FROM poems")}


def _with_requests(
    conn: sqlite3.Connection,
    table: str,
    frame: pd.DataFrame,
    requests: dict[str, tuple[Any, ...]],
) -> pd.DataFrame:
    if table != "generations":
        return frame
    for index, column in enumerate(REQUEST_COLUMNS):
        frame[column] = [
            requests.get(poem_id, (None,) * len(REQUEST_COLUMNS))[index]
            for poem_id in frame["poem_id"]
        ]
    return frame


def table_frame(conn: sqlite3.Connection, table: str, order: str = "") -> pd.DataFrame:
    """Every row of `table` (a checked table name), its columns typed by their declared type;
    `order`: an ORDER BY clause (`schema.export_order`), none for the stored order."""
    import pandas as pd  # here, not at module level: CLI start-up time

    cursor = conn.execute(f"SELECT * FROM {table}{order}")
    names = [description[0] for description in cursor.description]
    rows = [tuple(row) for row in cursor]
    frame = pd.DataFrame.from_records(rows, columns=names, coerce_float=True)
    return _typed(conn, table, names, rows, frame)


def _typed(
    conn: sqlite3.Connection,
    table: str,
    names: list[str],
    rows: list[tuple[Any, ...]],
    frame: pd.DataFrame,
) -> pd.DataFrame:
    """`frame` (of `rows`), its INTEGER and REAL columns typed as `table_frame`'s doc says."""
    import pandas as pd

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


#: A value of each of SQLite's kinds (`typeof`), as Python reads them: pandas infers a column's
#: dtype from the kinds of its values, not the values themselves.
_KIND_VALUES: dict[str, Any] = {"integer": 0, "real": 0.5, "text": "", "blob": b"", "null": None}
_SQL_TYPES = tuple(_KIND_VALUES)


@dataclass(frozen=True)
class TableKinds:
    """A table's row count, and per column (in the table's order) the kinds of value it holds:
    SQLite's `typeof` names (`integer`, `real`, `text`, `blob`, `null`)."""

    rows: int
    columns: dict[str, frozenset[str]]


def column_kinds(conn: sqlite3.Connection, table: str) -> TableKinds:
    """The `TableKinds` of `table` (a checked table name), read in one scan of it."""
    names = [d[0] for d in conn.execute(f"SELECT * FROM {table} LIMIT 0").description]
    kinds = ", ".join(f'group_concat(DISTINCT typeof("{name}"))' for name in names)
    found = conn.execute(f"SELECT COUNT(*), {kinds} FROM {table}").fetchone()
    return TableKinds(
        found[0],
        {
            name: frozenset(str(listed).split(",")) if listed is not None else frozenset()
            for name, listed in zip(names, found[1:], strict=True)
        },
    )


@dataclass(frozen=True)
class _Plan:
    """How `table_frame` types each column of a whole table, read with SQL: the kinds of value
    (SQLite's `typeof`) each column holds, and so its dtype in the whole frame. pandas infers
    a column's dtype from the kinds of value in it (int64, float64 for numbers with a NULL, str
    for text, object for mixed kinds), so a frame of one value of each kind has the whole
    frame's inferred dtypes; `_typed`'s choices (Int64, float64) are made as it makes them,
    over every value of the column."""

    names: list[str]
    #: Per column, its dtype in `table_frame`'s frame of the whole table.
    final: list[Any]

    @classmethod
    def of(cls, conn: sqlite3.Connection, table: str, kinds: TableKinds) -> _Plan | None:
        """The plan of `table`, whose `column_kinds` are `kinds`; None for an empty table."""
        import numpy as np
        import pandas as pd

        if not kinds.rows:
            return None
        names = list(kinds.columns)
        samples = [
            [_KIND_VALUES[kind] for kind in _SQL_TYPES if kind in held]
            for held in kinds.columns.values()
        ]
        length = max(map(len, samples))
        # Each column's values repeated to one length: the kinds in each column stay the same.
        columns = [[values[i % len(values)] for i in range(length)] for values in samples]
        sample = pd.DataFrame.from_records(
            list(zip(*columns, strict=True)), columns=names, coerce_float=True
        )
        declared = dict(conn.execute(f"SELECT name, type FROM pragma_table_info('{table}')"))
        whole_numbers = WHOLE_NUMBER_COLUMNS.get(table, frozenset())
        final = list(sample.dtypes)
        for index, (name, held) in enumerate(kinds.columns.items()):
            affinity = "INTEGER" if name in whole_numbers else _affinity(declared.get(name, ""))
            if affinity == "INTEGER" and _all_whole(conn, table, name, held):
                final[index] = pd.Int64Dtype()
            elif affinity == "REAL" and held <= {"integer", "real", "null"}:
                final[index] = np.dtype("float64")
        return cls(names, final)

    def frame(self, rows: list[tuple[Any, ...]]) -> pd.DataFrame:
        """The frame of `rows` (some of the table's), typed as the whole table's frame."""
        import pandas as pd

        frame = pd.DataFrame.from_records(rows, columns=self.names, coerce_float=True)
        for index, name in enumerate(self.names):
            final = self.final[index]
            if str(final) == "Int64":
                ints = [None if row[index] is None else int(row[index]) for row in rows]
                frame[name] = pd.array(ints, dtype="Int64")
            elif frame[name].dtype == final:
                continue
            elif str(final) == "object":  # mixed kinds: the values as they are, as a whole
                frame[name] = pd.Series([row[index] for row in rows], dtype=object)
            else:  # numbers (float64) or text (str) beside a piece of NULLs, ints, ...
                frame[name] = frame[name].astype(final)
        return frame


def _all_whole(conn: sqlite3.Connection, table: str, name: str, held: frozenset[str]) -> bool:
    """Whether every value of the column is NULL or a whole number (`_whole`), the column
    holding the kinds `held`: its real values are looked at one by one."""
    if not held <= {"integer", "real", "null"}:
        return False
    if "real" not in held:
        return True
    reals = conn.execute(f'SELECT "{name}" FROM {table} WHERE typeof("{name}") = \'real\'')
    return all(_whole(value) for (value,) in reals)
