"""A throwaway copy of a run's store, for a command that must leave the run as it is
(`generate --dry-run` prepares the run in the copy to plan it)."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from poemetric.store.db import DB_NAME, StoreError, not_a_store


@contextmanager
def scratch_copy(run_dir: Path) -> Iterator[Path]:
    """A temporary run folder holding a copy of `run_dir`'s store (none when the run has no store
    yet), removed afterwards. The run is only read: no folder, file or row is made in it."""
    with tempfile.TemporaryDirectory(prefix="poemetric-plan-") as scratch:
        folder = Path(scratch)
        source = run_dir / DB_NAME
        if source.is_file():
            copy_store(source, folder / DB_NAME)
        yield folder


def copy_store(source: Path, target: Path) -> None:
    """Copy a store with SQLite's backup API: a consistent snapshot, even while another process
    writes to it (its write-ahead log included)."""
    # With a write-ahead log beside it (another process at work), read-only: nothing to remove
    # afterwards. Without one, a read-only connection would leave the -wal and -shm files it
    # makes behind; a plain connection that writes nothing removes them when it closes.
    in_use = any(source.with_name(source.name + s).exists() for s in ("-wal", "-shm"))
    uri = source.resolve().as_uri() + ("?mode=ro" if in_use else "")
    try:
        with closing(sqlite3.connect(uri, uri=True, timeout=60.0)) as reader:
            reader.execute("PRAGMA query_only = ON")
            with closing(sqlite3.connect(target)) as copy:
                reader.backup(copy)
    except sqlite3.DatabaseError as error:
        if isinstance(error, sqlite3.OperationalError):
            raise
        raise StoreError(not_a_store(source, error)) from None
