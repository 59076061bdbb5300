"""Opening a run store's SQLite connection: read-write with write-ahead logging, or read-only
where this process cannot write the run (a run copied from a cluster to a read-only mount, files
without write permission), so that the commands that only read a run work there too."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from poemetric.text.listing import first_few

#: How long a statement waits for another process's lock before "database is locked".
BUSY_TIMEOUT_S = 60.0

#: The size the write-ahead log is cut back to once it is folded into the store. It grows past
#: that while a reader holds a snapshot (every row committed meanwhile stays in the log: 78 MB
#: during a 6 s `report` beside a busy `judge`), and without a limit it kept that size on disk
#: for as long as any process had the run open.
WAL_SIZE_LIMIT = 16 * 1024 * 1024

#: The run stores this process opened, in order (`damaged_stores`).
_OPENED: list[Path] = []


class StoreError(RuntimeError):
    pass


class ReadOnlyStoreError(StoreError):
    """A command tried to write to a run store it can only read."""


class StoreWriteError(StoreError):
    """A command could not write to a run store: its disk is full, a disk quota or file size
    limit was reached, or the disk fails (`write_failure`)."""


def write_failure(path: Path, error: sqlite3.OperationalError) -> StoreWriteError | None:
    """What to say when a stage could not write the store at `path`: SQLITE_FULL (a full disk)
    or SQLITE_IOERR (what a disk quota or a file size limit, `ulimit -f`, gives); None for any
    other error. Every transaction committed before is in the store, whole."""
    if (locked := lock_failure(path, error)) is not None:
        return StoreWriteError(locked)
    why = disk_failure(error)
    if why is None:
        return None
    return StoreWriteError(
        f"could not write the run store {path} ({error}: {why}); the command stopped. Every "
        "answer stored before is kept; answers that arrived after the failure were not stored. "
        "Free space there and run the same command again: it asks only what is not stored"
    )


def lock_failure(path: Path | None, error: sqlite3.OperationalError) -> str | None:
    """What to say when `error` is SQLite's "database is locked" (SQLITE_BUSY): another process
    held the write lock of the store at `path` (None: not known) past `BUSY_TIMEOUT_S`; None for
    any other error. Every transaction committed before is in the store, whole."""
    if primary_code(error) != sqlite3.SQLITE_BUSY:
        return None
    store = "a run store" if path is None else f"the run store {path}"
    return (
        f"could not write {store} ({error}: another process held its write lock for over "
        f"{BUSY_TIMEOUT_S:.0f} s: a sqlite3 shell or a database browser with changes not "
        "written yet, or a command stuck inside one write?); the command stopped. Everything "
        "stored before is kept; once that process lets go, run the same command again: it asks "
        "only what is not stored"
    )


def only_opened_store() -> Path | None:
    """The run store this process opened, where it opened one only (`note_opened`)."""
    return _OPENED[0] if len(_OPENED) == 1 else None


def open_failure(path: Path, error: sqlite3.OperationalError) -> StoreWriteError | None:
    """What to say when the store at `path` could not be opened for a disk failure
    (`disk_failure`: SQLite makes and writes its `-wal` and `-shm` files beside it even for a
    command that only reads); None for any other error."""
    why = disk_failure(error)
    if why is None:
        return None
    return StoreWriteError(
        f"could not open the run store {path} ({error}: {why}); SQLite writes beside it (its "
        "-wal and -shm files) even to read it. Nothing stored in it is lost: free space there "
        "and run the same command again"
    )


def primary_code(error: sqlite3.Error) -> int:
    """SQLite's primary result code of `error` (`SQLITE_FULL`, `SQLITE_BUSY`, ...); 0 for an
    error raised without one (by Python code rather than by SQLite)."""
    return int(getattr(error, "sqlite_errorcode", 0)) & 0xFF


def disk_failure(error: sqlite3.OperationalError) -> str | None:
    """The question a failed write raises (`is its disk full ...?`) when `error` is SQLITE_FULL
    or SQLITE_IOERR; None for any other error."""
    code = primary_code(error)
    if code == sqlite3.SQLITE_FULL:
        return "is its disk full, or your disk quota used up?"
    if code == sqlite3.SQLITE_IOERR:
        return (
            "is its disk full, your disk quota or a file size limit reached, or the disk failing?"
        )
    return None


def run_above(path: Path, store_name: str) -> Path | None:
    """The nearest folder above `path` that is a run (it holds `store_name`), or None: the run
    meant by a `--run` inside it (`runs/x/analysis`, `runs/x/report/index.html`, or the default
    `runs/default` from inside a run's folder, or from a folder inside one: `..`). A relative
    `path` is searched up from the current folder too (its own `parents` end at `.`: from
    `runs/x/analysis`, `generate` made a run inside the run) and the run is named relative to it."""
    try:
        absolute = Path(os.path.abspath(path))
        found = next((d for d in absolute.parents if (d / store_name).is_file()), None)
        if found is None or path.is_absolute():
            return found
        return Path(os.path.relpath(found))
    except (OSError, ValueError):
        return None


def missing_store(run_dir: Path, store_name: str, start: str, use: str = "--run ") -> str:
    """What to say of `run_dir`, which has no store: the run above it (`use` names how to give
    it: `--run `, or `RUN=` under make) when it is inside one, else the runs near it
    (`runs_beside`) and `start`, the commands that start a run there. Inside a run those
    commands made a run inside the run: only the run above is named."""
    path = run_dir / store_name
    above = run_above(run_dir, store_name)
    if above is not None:
        return f"no run store at {path}; the folder {above} above it is a run: {use}{above}"
    return f"no run store at {path}{runs_beside(run_dir, store_name)}; start a run with {start}"


def runs_beside(run_dir: Path, store_name: str, shown: int = 5) -> str:
    """`; runs beside it: A, B` naming the run stores near `run_dir`, which has none and is in
    no run (`missing_store` names a run above it), or '': the runs in it (`--run runs`),
    `runs/NAME` for a bare `--run NAME`, and the runs in its parent folder (a mistyped `--run`,
    or the default `runs/default` after `poemetric demo` made `runs/demo`)."""
    try:
        inside = sorted(str(path.parent) for path in run_dir.glob(f"*/{store_name}"))
        if inside:
            return f"; runs in it: {first_few(inside, shown)}"
        named = Path("runs") / run_dir
        if not run_dir.is_absolute() and len(run_dir.parts) == 1 and (named / store_name).is_file():
            return f"; a run is at {named}: --run {named}"
        runs = sorted(str(path.parent) for path in run_dir.parent.glob(f"*/{store_name}"))
    except OSError:
        return ""
    if not runs:
        return ""
    return f"; runs beside it: {first_few(runs, shown)}"


def not_a_store(path: Path, error: sqlite3.DatabaseError) -> str:
    """What to say of a store file SQLite cannot read ("file is not a database")."""
    return (
        f"{path} is not a run store SQLite can read ({error}); is it damaged, or only partly "
        "copied?"
    )


def note_opened(path: Path) -> None:
    """Remember that this process opened the run store at `path`: a command that later meets a
    damaged page in it (`damaged_stores`) can name it."""
    if path not in _OPENED:
        _OPENED.append(path)


def damaged_stores(error: sqlite3.DatabaseError) -> list[Path]:
    """The run stores this process opened that SQLite finds damaged, when `error` says a page
    it read was (SQLITE_CORRUPT, SQLITE_NOTADB); else none. A store whose first pages are whole
    opens, and a torn copy failed only at the first damaged page a command read, in a traceback
    that named no file."""
    if primary_code(error) not in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return []
    return [path for path in _OPENED if not _whole(path)]


def _whole(path: Path) -> bool:
    """Whether `PRAGMA quick_check` finds the store at `path` whole (a store removed since: yes,
    there is nothing to name)."""
    if not path.is_file():
        return True
    wal = path.with_name(path.name + "-wal")
    query = "mode=ro" if wal.exists() and wal.stat().st_size > 0 else "mode=ro&immutable=1"
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?{query}", uri=True, timeout=5.0)
        try:
            return bool(conn.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok")
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return True  # locked or unreadable now: not known to be damaged
    except sqlite3.DatabaseError:
        return False


def writable(path: Path) -> bool:
    """Whether this process may write the store at `path`: the file, and its folder, where
    SQLite makes the `-wal` and `-shm` files beside it."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def read_only_message(path: Path) -> str:
    return (
        f"run store {path} is read-only here (a read-only folder or file): this command writes "
        "to the run; copy the run folder to a writable place and run it there"
    )


def connect_read_write(path: Path) -> sqlite3.Connection:
    note_opened(path)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        _use_wal(conn, deadline=time.monotonic() + BUSY_TIMEOUT_S)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(f"PRAGMA journal_size_limit={WAL_SIZE_LIMIT}")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    except BaseException:
        conn.close()
        raise
    return conn


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that never writes, not even the `-wal` and `-shm` files. Without a
    write-ahead log beside the store (a run at rest) the file is opened as immutable: SQLite
    then needs no `-shm` file, which it could not make in a read-only folder. With one, its rows
    are read through the `-shm` file beside it; without that file they could not be, and
    reading the store without them would silently leave out the last rows: an error says so."""
    wal = path.with_name(path.name + "-wal")
    shm = path.with_name(path.name + "-shm")
    live = wal.exists() and wal.stat().st_size > 0
    if live and not shm.exists():
        raise StoreError(
            f"{path} cannot be read here: {wal.name} beside it holds rows not yet in the store, "
            f"and without {shm.name} (not copied?) SQLite can only read them from a writable "
            "folder; copy the run folder to a writable place, or copy its -shm file too"
        )
    query = "mode=ro" if live else "mode=ro&immutable=1"
    note_opened(path)
    conn = sqlite3.connect(
        f"{path.resolve().as_uri()}?{query}",
        uri=True,
        timeout=BUSY_TIMEOUT_S,
        isolation_level=None,
    )
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA query_only=ON")
        conn.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
    except BaseException:
        conn.close()
        raise
    return conn


def _use_wal(conn: sqlite3.Connection, *, deadline: float) -> None:
    """Switch the store to write-ahead logging. Two processes switching a new store at the same
    moment: SQLite answers one of them "database is locked" at once, without waiting for the busy
    timeout, so that one tries again (and then finds the store switched)."""
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if primary_code(error) != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
