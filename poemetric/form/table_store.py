"""Precomputed tables kept on disk once per machine and read one key at a time.

A `DiskTable` is a read-only key -> value table in an SQLite file under the user cache dir
(`$POEMETRIC_CACHE_DIR`, else platformdirs' ``user_cache_dir("poemetric")``). The file name
holds a hash of the table's version tag (what made it: code, data, Python), and the tag is
checked again inside the file; a missing, stale or unreadable file is rebuilt and atomically
replaced, and when a table is written the older versions of it beyond the newest `KEEP` are
deleted. A process opens the file (well under a millisecond) and looks up only the keys it
needs, each once (a dict in the process remembers answers, misses included), instead of
unmarshalling a whole table per process. A process that has looked up `BULK_AFTER` distinct
keys then reads the whole table at once from a marshal copy kept in the same file: that read
costs about what 10,000 single lookups do (`bench/bench_table_reads.py`), so batches of up to a
few thousand poems (2,000-9,000 distinct words) never pay it, and a larger one pays it once, at
most about twice what the cheaper way would have cost for its table reads.
An unwritable cache dir costs the build in each process, nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from poemetric.paths import user_cache_path

#: Versions of one table kept side by side (e.g. checkouts of two branches sharing a cache dir).
KEEP = 3
#: Distinct keys looked up one by one before the whole table is read at once (a whole read costs
#: about 10,000 lookups: switching after 12,000 keeps any batch within about twice its best cost).
BULK_AFTER = 12000
#: Files of the marshal tables that the SQLite ones replaced: deleted when a table is written.
_LEGACY = ("cmudict-*.marshal", "word-entries-*.marshal", "meter-templates-*.marshal")


def cache_dir() -> Path:
    """Where precomputed tables live (`$POEMETRIC_CACHE_DIR` overrides)."""
    return user_cache_path()


Build = Callable[[], Iterable[tuple[str, Any]]]


class DiskTable:
    """`build()`'s (key, value) pairs (values: str, bytes, int or float), stored as
    ``<name>-<hash of tag>.sqlite`` in `directory` (default: `cache_dir()`) on first use."""

    def __init__(self, name: str, tag: str, build: Build, directory: Path | None = None) -> None:
        self.name, self._build = name, build
        self.tag = f"{tag}; marshal {marshal.version}"
        self._directory = directory
        self._memo: dict[str, Any] = {}
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._in_memory = False  # `_memo` holds every key (read in bulk, or the file unwritable)

    @property
    def path(self) -> Path:
        digest = hashlib.sha256(self.tag.encode()).hexdigest()[:16]
        return (self._directory or cache_dir()) / f"{self.name}-{digest}.sqlite"

    def get(self, key: str) -> Any:
        """The value stored under `key`, or None."""
        try:
            return self._memo[key]
        except KeyError:
            pass
        connection = self._open()
        if connection is None:  # held in memory: `_memo` has every key
            return self._memo.get(key)
        if len(self._memo) >= BULK_AFTER:
            (whole,) = connection.execute("SELECT data FROM whole").fetchone()
            self._memo, self._in_memory = marshal.loads(whole), True
            return self._memo.get(key)
        row = connection.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
        value = self._memo[key] = None if row is None else row[0]
        return value

    def items(self) -> Iterator[tuple[str, Any]]:
        """Every (key, value) pair, in key order."""
        connection = self._open()
        if connection is None:
            yield from sorted(self._memo.items())
            return
        yield from connection.execute("SELECT key, value FROM entries ORDER BY key")

    def _open(self) -> sqlite3.Connection | None:
        if self._in_memory:
            return None
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        path = self.path
        connection = _connect(path, self.tag)
        if connection is None:
            pairs = list(self._build())
            if _write(path, self.tag, pairs):
                _delete_old_versions(path, self.name)
                connection = _connect(path, self.tag)
            if connection is None:  # the cache dir is not writable: keep the table in memory
                self._memo, self._in_memory = dict(pairs), True
                return None
        self._connection, self._pid = connection, os.getpid()
        return connection


def _connect(path: Path, tag: str) -> sqlite3.Connection | None:
    """A read-only connection to `path` if it holds a complete table with this tag."""
    if not path.is_file():
        return None
    try:
        # immutable: the file is never changed in place (a new version replaces it), so SQLite
        # may skip locking; check_same_thread: reads only, from any thread.
        connection = sqlite3.connect(
            f"{path.as_uri()}?mode=ro&immutable=1", uri=True, check_same_thread=False
        )
        row = connection.execute("SELECT tag FROM meta").fetchone()
    except sqlite3.Error:
        return None
    if row is None or row[0] != tag:
        connection.close()
        return None
    return connection


def _write(path: Path, tag: str, pairs: list[tuple[str, Any]]) -> bool:
    """Write the table to a temporary file and move it into place; False if that failed."""
    temp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        os.close(handle)
        connection = sqlite3.connect(temp)
        try:
            connection.execute("PRAGMA journal_mode = OFF")
            connection.execute("CREATE TABLE meta (tag TEXT NOT NULL)")
            connection.execute("CREATE TABLE entries (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
            connection.executemany("INSERT INTO entries VALUES (?, ?)", pairs)
            connection.execute("CREATE TABLE whole (data BLOB NOT NULL)")
            connection.execute("INSERT INTO whole VALUES (?)", (marshal.dumps(dict(pairs)),))
            connection.execute("INSERT INTO meta VALUES (?)", (tag,))  # last: marks it complete
            connection.commit()
        finally:
            connection.close()
        os.replace(temp, path)
        return True
    except (OSError, sqlite3.Error):
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
        return False


def _delete_old_versions(current: Path, name: str) -> None:
    """Keep the newest `KEEP` files of this table (`current` among them); drop legacy files."""
    others = [p for p in current.parent.glob(f"{name}-*.sqlite") if p != current]
    legacy = [p for pattern in _LEGACY for p in current.parent.glob(pattern)]
    for path in [*sorted(others, key=_mtime, reverse=True)[KEEP - 1 :], *legacy]:
        with contextlib.suppress(OSError):  # another process removed it first
            path.unlink()


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
