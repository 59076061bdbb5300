"""Per-poem values kept in the run store from one command to the next (the table
`measure_cache`): `analyze`, `report` and `figures`, run one after another on one run, measure
each poem once (poemetric.ghostwriting.cached_measures says what is kept, under which keys).

A value is stored under (version, item). `version` is a digest of everything the values of one
kind depend on besides the poem itself (the code that measures, the options, a reference
corpus); `item` is a digest of the poem's own input (its text, ...). A changed input has another
digest, so a stale value is never read: it is not found, and is measured again. Nothing is
changed in place.

* Reading uses the store's own connection: a command inside `RunStore.snapshot()` reads the
  cache as of its snapshot, and a read-only run (a copy on a read-only mount) reads it too.
* Writing uses a connection of its own, in one IMMEDIATE transaction: a command inside a
  snapshot cannot write on the store's connection, and a value keyed by the digest of its input
  is right whatever other processes committed since. Two commands storing values at once:
  SQLite runs one transaction after the other, and the second writes the same values again.
  A read-only run, a lock held longer than `WRITE_TIMEOUT_S`, a full disk: nothing is stored,
  and the command goes on with the values it measured (`write` returns False).
* The tables are made when first written, not by a schema migration: a cache is no reason for
  a new schema version (which an older POEMetric refuses to open, and which a read-only run of
  the older version cannot be migrated to). `merge` does not copy them and `export` does not
  list them.
* Each kind keeps the values of the `KEEP` versions written last: writing a newer version
  deletes the rows of the older ones.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from contextlib import closing
from typing import Any

from poemetric.store.db import RunStore, utc_now

TABLE = "measure_cache"
VERSIONS_TABLE = "measure_cache_versions"
#: Versions kept per kind: the tables' and the figure's reference corpora (they differ in a run
#: prepared with `--limit`), and a few `ghostwriting metrics` options besides.
KEEP = 4
#: How long a write waits for another process's write lock before giving up (nothing stored).
WRITE_TIMEOUT_S = 10.0

_CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (version TEXT NOT NULL, item TEXT NOT NULL, "
    "value TEXT NOT NULL, PRIMARY KEY (version, item)) WITHOUT ROWID",
    f"CREATE TABLE IF NOT EXISTS {VERSIONS_TABLE} (version TEXT PRIMARY KEY, "
    "kind TEXT NOT NULL, written_at TEXT NOT NULL)",
)


class MeasureCache:
    """The values a run store keeps for `version`s of measures (see the module docstring)."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    def read(self, version: str) -> dict[str, Any]:
        """Every value stored under `version`, by item, decoded from JSON; empty when nothing
        was stored yet (no table in this store, or in the snapshot being read). A value that is
        not JSON is left out (measured again)."""
        try:
            rows = self.store.conn.execute(
                f"SELECT item, value FROM {TABLE} WHERE version = ?", (version,)
            ).fetchall()
        except sqlite3.OperationalError:  # no such table
            return {}
        found: dict[str, Any] = {}
        for item, value in rows:
            try:
                found[str(item)] = json.loads(value)
            except (TypeError, ValueError):
                continue
        return found

    def write(self, kind: str, version: str, values: Mapping[str, Any]) -> bool:
        """Store `values` (item -> a JSON-able value: floats, NaN included, come back equal)
        under `version` of `kind`, and delete the rows of the kind's versions older than the
        `KEEP` newest. False when nothing could be stored (a read-only run, a lock not released
        in time, a full disk): the caller has its values all the same."""
        if not values:
            return True
        if self.store.read_only:
            return False
        rows = [(version, item, json.dumps(value)) for item, value in values.items()]
        try:
            # mode=rw: a store removed meanwhile is not made again, empty.
            uri = f"{self.store.path.resolve().as_uri()}?mode=rw"
            connection = sqlite3.connect(
                uri, uri=True, timeout=WRITE_TIMEOUT_S, isolation_level=None
            )
            with closing(connection) as conn:  # closed without COMMIT: rolled back
                conn.execute("BEGIN IMMEDIATE")
                for statement in _CREATE:
                    conn.execute(statement)
                conn.executemany(
                    f"INSERT OR REPLACE INTO {TABLE} (version, item, value) VALUES (?, ?, ?)",
                    rows,
                )
                # REPLACE gives a rewritten version a new rowid: the order of writing, which
                # breaks ties of `written_at` (milliseconds: two writes in one were kept or
                # forgotten by their names' order)
                conn.execute(
                    f"INSERT OR REPLACE INTO {VERSIONS_TABLE} (version, kind, written_at) "
                    "VALUES (?, ?, ?)",
                    (version, kind, utc_now()),
                )
                _forget_old_versions(conn, kind)
                conn.execute("COMMIT")
        except (sqlite3.Error, OSError):
            return False
        return True


def _forget_old_versions(conn: sqlite3.Connection, kind: str) -> None:
    old = conn.execute(
        f"SELECT version FROM {VERSIONS_TABLE} WHERE kind = ? "
        "ORDER BY written_at DESC, rowid DESC LIMIT -1 OFFSET ?",
        (kind, KEEP),
    ).fetchall()
    for (version,) in old:
        conn.execute(f"DELETE FROM {TABLE} WHERE version = ?", (version,))
        conn.execute(f"DELETE FROM {VERSIONS_TABLE} WHERE version = ?", (version,))
