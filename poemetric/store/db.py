"""The run store: one SQLite database per run directory.

Every stage reads the previous stage's rows and writes its own in transactions. Writes are
idempotent: a row that already succeeded is never overwritten by a re-run, and a failed row is
replaced by the next attempt's result.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

from poemetric.store.connect import (
    ReadOnlyStoreError,
    StoreError,
    connect_read_only,
    connect_read_write,
    missing_store,
    not_a_store,
    open_failure,
    read_only_message,
    writable,
)
from poemetric.store.schema import EXPORTABLE_TABLES, MIGRATIONS, SCHEMA_VERSION

DB_NAME = "poemetric.sqlite"

#: Result tables the batch runner writes, with the natural key of their rows.
RESULT_TABLE_KEYS: dict[str, tuple[str, ...]] = {
    "generations": ("prompt_id", "author", "sample_index"),
    "judgments": ("generation_id", "judge", "sample_index"),
    "style_matches": ("trial_id", "judge", "sample_index"),
    "recognitions": ("poem_id", "judge", "sample_index"),
    "probe_choices": ("pair_id", "scorer", "sample_index"),
    "probe_lines": ("line_id",),
}


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def stable_id(*parts: object, length: int = 16) -> str:
    """Deterministic short id from the parts' JSON encoding."""
    payload = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:length]


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


class RunStore:
    """A run directory's SQLite database. Use as a context manager or call `close()`."""

    def __init__(self, run_dir: str | Path, *, create: bool = True) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DB_NAME
        if not self.path.exists() and not create:
            run = shlex.quote(str(self.run_dir))  # `poemetric demo` alone makes runs/demo
            start = f"`poemetric generate --run {run}` or `poemetric demo --run {run}`"
            raise StoreError(missing_store(self.run_dir, DB_NAME, start))
        #: True where this process cannot write the run (a read-only copy): reading works,
        #: and a write raises `ReadOnlyStoreError` saying so.
        self.read_only = self.path.exists() and not writable(self.path)
        self._in_snapshot = False
        try:
            if self.read_only:
                self.conn = connect_read_only(self.path)
            else:
                self.run_dir.mkdir(parents=True, exist_ok=True)
                self.conn = connect_read_write(self.path)
        except sqlite3.DatabaseError as error:
            if isinstance(error, sqlite3.OperationalError):
                if (failure := open_failure(self.path, error)) is None:
                    raise
                raise failure from None
            raise StoreError(not_a_store(self.path, error)) from None
        try:
            self._migrate()
        except BaseException as error:
            self.conn.close()
            if isinstance(error, sqlite3.DatabaseError) and not isinstance(
                error, sqlite3.OperationalError
            ):
                raise StoreError(not_a_store(self.path, error)) from None
            raise

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def _migrate(self) -> None:
        """Apply the missing migrations, each in its own write transaction that reads the
        version again: another process opening the same new run at the same moment (two shards
        started together) may have applied it meanwhile, and a migration must not run twice."""
        while not self._check_version():
            if self.read_only:
                raise ReadOnlyStoreError(
                    f"{self.path} has schema version {self.schema_version}, older than this "
                    f"POEMetric's ({SCHEMA_VERSION}), and is read-only here: copy the run folder "
                    "to a writable place and run any command on it there once to upgrade it"
                )
            with self.transaction() as conn:
                if self._check_version():
                    break
                version = self.schema_version
                for statement in _split_sql(MIGRATIONS[version]):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {version + 1}")

    def _check_version(self) -> bool:
        """True when the store is current; an error when it is newer than this POEMetric."""
        current = self.schema_version
        if current > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {current}, newer than this POEMetric "
                f"({SCHEMA_VERSION}); upgrade POEMetric to read it"
            )
        return current == SCHEMA_VERSION

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """An IMMEDIATE transaction: all of its writes land, or none do. Inside another
        transaction it is a savepoint of that one: its writes land when the outer one commits
        (so a caller can make several of this class's writes, and the reads that decide them,
        one transaction: `prepare_run`). On a read-only store: `ReadOnlyStoreError`."""
        if self.read_only:
            raise ReadOnlyStoreError(read_only_message(self.path))
        if self._in_snapshot:
            raise StoreError("a write inside RunStore.snapshot(), which only reads")
        if self.conn.in_transaction:
            self.conn.execute("SAVEPOINT nested")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK TO nested")
                self.conn.execute("RELEASE nested")
                raise
            else:
                self.conn.execute("RELEASE nested")
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees the store as it was at one moment, however many rows other
        processes commit meanwhile (a report's counts agree with its tables; an export's files
        with one another). Nothing may be written inside. The snapshot keeps writers' newer rows
        in the write-ahead log while it lasts; they are folded into the store afterwards."""
        if self.conn.in_transaction:
            yield
            return
        self.conn.execute("BEGIN")
        self._in_snapshot = True
        failed = False
        try:
            self.conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # it starts here
            yield
        except BaseException:
            failed = True
            raise
        finally:
            self._in_snapshot = False
            # A failed read may have ended the snapshot already (pandas rolls back on an error),
            # and its end must not hide the error that failed the read.
            if self.conn.in_transaction:
                try:
                    self.conn.execute("COMMIT")
                except sqlite3.Error:
                    if not failed:
                        raise

    # -- generic helpers -----------------------------------------------------------------
    def query(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        return list(self.conn.execute(sql, tuple(params)))

    def count(self, table: str, where: str = "1", params: Iterable[Any] = ()) -> int:
        _check_table(table)
        return int(
            self.conn.execute(
                f"SELECT COUNT(*) FROM {table} WHERE {where}", tuple(params)
            ).fetchone()[0]
        )

    def frame(self, table: str) -> pd.DataFrame:
        """The table, its INTEGER columns as nullable integers (`4`, not `4.0`, beside a NULL)."""
        _check_table(table)
        from poemetric.store.frames import table_frame

        return table_frame(self.conn, table)

    def set_meta(self, key: str, value: Any) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, to_json(value)),
            )

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def update_meta(self, key: str, change: Callable[[Any], Any]) -> None:
        """Replace a meta entry by `change(current)` (current: None when absent), read and
        written in one IMMEDIATE transaction, so that two processes adding to one entry do not
        lose each other's additions; nothing is written when the value stays the same."""
        with self.transaction():
            current = self.get_meta(key)
            changed = change(current)
            if changed != current:
                self.set_meta(key, changed)

    # -- dataset snapshot and prompts ----------------------------------------------------
    def add_poems(self, rows: Iterable[Mapping[str, Any]]) -> int:
        """Insert poems (dict rows with the `poems` columns); existing ids are left alone."""
        return self._insert_ignore("poems", rows)

    def add_template(self, name: str, text: str) -> str:
        template_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self._insert_ignore(
            "templates", [{"template_hash": template_hash, "name": name, "text": text}]
        )
        return template_hash

    def add_prompts(self, rows: Iterable[Mapping[str, Any]]) -> int:
        return self._insert_ignore("prompts", rows)

    # -- results --------------------------------------------------------------------------
    def save_generation(self, row: Mapping[str, Any]) -> bool:
        """Insert or update one generation; a stored success is never replaced.

        Returns True when the row was written.
        """
        return self._upsert_result("generations", ("prompt_id", "author", "sample_index"), row)

    def save_judgment(self, row: Mapping[str, Any]) -> bool:
        return self._upsert_result("judgments", ("generation_id", "judge", "sample_index"), row)

    def save_form_check(self, row: Mapping[str, Any]) -> None:
        data = {"created_at": utc_now(), **row}
        if isinstance(data.get("explanation"), (dict, list)):
            data["explanation"] = to_json(data["explanation"])
        cols = list(data)
        updates = ", ".join(f"{c} = excluded.{c}" for c in cols if c != "generation_id")
        with self.transaction() as conn:
            conn.execute(
                f"INSERT INTO form_checks ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
                f"ON CONFLICT(generation_id) DO UPDATE SET {updates}",
                [data[c] for c in cols],
            )

    # -- response cache and call log -------------------------------------------------------
    def cached_completion(self, cache_key: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT completion FROM response_cache WHERE cache_key = ?", (cache_key,)
        ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def cache_completion(
        self, cache_key: str, provider: str, model: str, completion: Mapping[str, Any]
    ) -> None:
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO response_cache(cache_key, provider, model, completion, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (cache_key, provider, model, to_json(dict(completion)), utc_now()),
            )

    def save_result_and_cache(
        self,
        table: str,
        row: Mapping[str, Any],
        *,
        cache_key: str | None = None,
        provider: str = "",
        model: str = "",
        completion: Mapping[str, Any] | None = None,
        replace_cache: bool = False,
        key: tuple[str, ...] | None = None,
    ) -> bool:
        """Store a response in the cache and its result row in ONE transaction.

        `table` is a result table: one of `RESULT_TABLE_KEYS`, or a stage's own table whose natural
        `key` columns are given. A crash can therefore never leave a paid response that is
        neither cached nor stored. `replace_cache` overwrites an existing cache entry (used when
        a user forces a fresh call for a response that could not be parsed).
        """
        key = key or RESULT_TABLE_KEYS.get(table)
        if key is None:
            raise StoreError(
                f"save_result_and_cache: unknown result table {table!r}; pass its key columns"
            )
        sql, params = _upsert_statement(table, key, row)
        verb = "INSERT OR REPLACE" if replace_cache else "INSERT OR IGNORE"
        with self.transaction() as conn:
            if cache_key is not None and completion is not None:
                conn.execute(
                    f"{verb} INTO response_cache(cache_key, provider, model, completion, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (cache_key, provider, model, to_json(dict(completion)), utc_now()),
                )
            return conn.execute(sql, params).rowcount > 0

    def log_call(self, **fields: Any) -> None:
        data = {"created_at": utc_now(), **fields}
        cols = list(data)
        with self.transaction() as conn:
            conn.execute(
                f"INSERT INTO calls ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [data[c] for c in cols],
            )

    # -- export -----------------------------------------------------------------------------
    def export(self, table: str, destination: str | Path) -> Path:
        """Write one table to CSV, JSONL or Parquet, chosen by the file suffix
        (`poemetric.store.export_file`)."""
        from poemetric.store.export_file import export_suffix, export_table

        export_suffix(Path(destination))  # a wrong suffix is said first, as before
        _check_table(table)
        return export_table(self.conn, table, Path(destination))

    # -- internals --------------------------------------------------------------------------
    def _insert_ignore(self, table: str, rows: Iterable[Mapping[str, Any]]) -> int:
        written = 0
        with self.transaction() as conn:
            for row in rows:
                cols = list(row)
                cur = conn.execute(
                    f"INSERT OR IGNORE INTO {table} ({', '.join(cols)}) "
                    f"VALUES ({', '.join('?' * len(cols))})",
                    [row[c] for c in cols],
                )
                written += cur.rowcount
        return written

    def _upsert_result(self, table: str, key: tuple[str, ...], row: Mapping[str, Any]) -> bool:
        sql, params = _upsert_statement(table, key, row)
        with self.transaction() as conn:
            return conn.execute(sql, params).rowcount > 0


def _upsert_statement(
    table: str, key: tuple[str, ...], row: Mapping[str, Any]
) -> tuple[str, list[Any]]:
    """The upsert of `_upsert_result` as (sql, params), for use inside a wider transaction."""
    data = {"created_at": utc_now(), **row}
    for name, value in list(data.items()):
        if isinstance(value, (dict, list, tuple)):
            data[name] = to_json(value)
    cols = list(data)
    updates = ", ".join(f"{c} = excluded.{c}" for c in cols if c not in key)
    sql = (
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))}) "
        f"ON CONFLICT({', '.join(key)}) DO UPDATE SET {updates}, "
        f"attempts = {table}.attempts + 1 WHERE {table}.status != 'ok'"
    )
    return sql, [data[c] for c in cols]


def _check_table(table: str) -> None:
    if table not in EXPORTABLE_TABLES and table not in {
        "meta",
        "response_cache",
        "holders",
        "leases",
    }:
        raise StoreError(f"unknown table {table!r}; tables: {', '.join(EXPORTABLE_TABLES)}")


def _split_sql(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
