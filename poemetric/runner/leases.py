"""Job leases: two processes working on one run never buy the same answer.

Before a model's jobs run, the runner leases them in the run store (one row per job: stage, job
key, holder). A job leased by another *live* process is left to it and reported with who holds
it (pid, host, start, command). A lease whose holder is dead no longer counts: on the same host a
holder is dead when its pid is gone (or now belongs to a process started at another time); on
another host (a shared file system) when it has not renewed its heartbeat for `STALE_AFTER_S`.
So a SIGKILLed process never blocks the resume, and leases are released when a process ends.
A run folder copied while a command wrote to it holds that command's holder row and leases too;
the command works on the original, not the copy, so a holder on this host that does not have the
copy's store file open (`holds_open`) holds nothing there.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from poemetric.store.db import RunStore, utc_now

HEARTBEAT_S = 10.0
STALE_AFTER_S = 60.0


def process_start(pid: int) -> str | None:
    """The kernel's start time of `pid` (Linux /proc), to tell a reused pid from the holder."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[19] if len(fields) > 19 else None


def _process_state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def pid_alive(pid: int, started: str | None) -> bool:
    """True while `pid` runs and is the process that started at `started` (when known)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: alive
    if _process_state(pid) in ("Z", "X"):
        return False
    current = process_start(pid)
    return started is None or current is None or current == started


def holds_open(pid: int, path: Path) -> bool | None:
    """Whether the process `pid` of this host has the file at `path` open (Linux /proc: the
    same device and inode, whatever path it opened it by); None where that cannot be told (no
    /proc, another user's process, no file at `path`)."""
    try:
        target = os.stat(path)
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for descriptor in descriptors:
        try:
            opened = os.stat(f"/proc/{pid}/fd/{descriptor}")
        except OSError:  # closed meanwhile
            continue
        if (opened.st_dev, opened.st_ino) == (target.st_dev, target.st_ino):
            return True
    return False


def _cutoff() -> str:
    """Heartbeats older than this are a dead holder's (another host's)."""
    return (datetime.now(UTC) - timedelta(seconds=STALE_AFTER_S)).isoformat(timespec="milliseconds")


def this_process() -> dict[str, object]:
    """This process as `process_alive` checks it later: pid, host, kernel start time."""
    pid = os.getpid()
    return {"pid": pid, "host": socket.gethostname(), "process_start": process_start(pid)}


def _holder_alive(
    pid: int, host: str, started: str | None, heartbeat: str | None, cutoff: str
) -> bool:
    """The rule for a process of `host`: on this host its pid runs (started at `started`); on
    another one (a shared file system), where its pid means nothing here, its `heartbeat` (the
    freshest of its lease holder rows; None: it has none) is not older than `cutoff`."""
    if host == socket.gethostname():
        return pid_alive(pid, started)
    return heartbeat is not None and heartbeat >= cutoff


def process_alive(store: RunStore, pid: int, host: str, started: str | None) -> bool:
    """Whether the process `pid` on `host` (`this_process`) still runs, as leases tell it
    (`_holder_alive`)."""
    heartbeat = None
    if host != socket.gethostname():
        rows = store.query(
            "SELECT MAX(heartbeat_at) FROM holders WHERE pid = ? AND host = ?", (pid, host)
        )
        heartbeat = rows[0][0] if rows else None
    return _holder_alive(pid, host, started, heartbeat, _cutoff())


@dataclass(frozen=True)
class HolderInfo:
    holder: str
    pid: int
    host: str
    started_at: str
    command: str | None

    def describe(self) -> str:
        command = f" ({self.command})" if self.command else ""
        return f"pid {self.pid} on {self.host}, started {self.started_at}{command}"


@dataclass
class Claim:
    """The outcome of leasing some jobs: those this process may run, and those held elsewhere."""

    mine: set[str] = field(default_factory=set)
    elsewhere: Counter[str] = field(default_factory=Counter)
    holders: dict[str, HolderInfo] = field(default_factory=dict)

    @property
    def held_elsewhere(self) -> int:
        return sum(self.elsewhere.values())

    def describe_holders(self) -> str:
        return "; ".join(
            f"{count} held by {self.holders[holder].describe()}"
            for holder, count in self.elsewhere.most_common()
            if holder in self.holders
        )


class Leases:
    """This process as a lease holder on one run store. Use as a context manager."""

    def __init__(self, store: RunStore, command: str | None = None) -> None:
        self.store = store
        self.holder = uuid.uuid4().hex[:16]
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self.command = command if command is not None else _command_line()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Leases:
        now = utc_now()
        with self.store.transaction() as conn:
            conn.execute(
                "INSERT INTO holders(holder, pid, host, process_start, command, started_at, "
                "heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    self.holder,
                    self.pid,
                    self.host,
                    process_start(self.pid),
                    self.command,
                    now,
                    now,
                ),
            )
        self._thread = threading.Thread(target=self._beat, name="poemetric-lease", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self.store.transaction() as conn:
            conn.execute("DELETE FROM leases WHERE holder = ?", (self.holder,))
            conn.execute("DELETE FROM holders WHERE holder = ?", (self.holder,))

    def _beat(self) -> None:
        conn = sqlite3.connect(self.store.path, timeout=60.0)
        try:
            while not self._stop.wait(HEARTBEAT_S):
                try:
                    conn.execute(
                        "UPDATE holders SET heartbeat_at = ? WHERE holder = ?",
                        (utc_now(), self.holder),
                    )
                    conn.commit()
                except sqlite3.Error:
                    continue  # a busy store: try again at the next beat
        finally:
            conn.close()

    def claim(self, stage: str, keys: Sequence[str]) -> Claim:
        """Lease `keys` of `stage` for this process (dead holders' leases are taken over)."""
        claim = Claim()
        if not keys:
            return claim
        now = utc_now()
        with self.store.transaction() as conn:
            self._drop_dead_holders(conn)
            conn.executemany(
                "INSERT OR IGNORE INTO leases(stage, job_key, holder, acquired_at) "
                "VALUES (?, ?, ?, ?)",
                [(stage, key, self.holder, now) for key in keys],
            )
            holders_by_key = _lease_holders(conn, stage, keys)
            for key in keys:
                holder = holders_by_key.get(key, self.holder)
                if holder == self.holder:
                    claim.mine.add(key)
                else:
                    claim.elsewhere[holder] += 1
            for row in conn.execute(
                "SELECT holder, pid, host, started_at, command FROM holders WHERE holder IN "
                f"({', '.join('?' * len(claim.elsewhere))})",
                list(claim.elsewhere),
            ):
                claim.holders[row[0]] = HolderInfo(*row)
        return claim

    def release(self, stage: str, keys: Iterable[str]) -> None:
        with self.store.transaction() as conn:
            conn.executemany(
                "DELETE FROM leases WHERE stage = ? AND job_key = ? AND holder = ?",
                [(stage, key, self.holder) for key in keys],
            )

    def _drop_dead_holders(self, conn: sqlite3.Connection) -> None:
        cutoff = _cutoff()
        dead: list[str] = []
        for holder, pid, host, started, heartbeat in conn.execute(
            "SELECT holder, pid, host, process_start, heartbeat_at FROM holders WHERE holder != ?",
            (self.holder,),
        ):
            if not holder_at_work(self.store.path, int(pid), host, started, heartbeat, cutoff):
                dead.append(holder)
        for holder in dead:
            conn.execute("DELETE FROM leases WHERE holder = ?", (holder,))
            conn.execute("DELETE FROM holders WHERE holder = ?", (holder,))
        # Leases whose holder row is gone (a store copied mid-run) hold nothing.
        conn.execute("DELETE FROM leases WHERE holder NOT IN (SELECT holder FROM holders)")


def holder_at_work(
    store_file: Path,
    pid: int,
    host: str,
    started: str | None,
    heartbeat: str | None,
    cutoff: str | None = None,
) -> bool:
    """Whether a holder row of the store at `store_file` is a process at work on it
    (`_holder_alive`; `cutoff`: `_cutoff()` when not given); a live process of this host that
    does not have the store open holds the run this store was copied from while it ran, not
    this copy. `merge` asks it of a store it merges (`store.merge_started`)."""
    if not _holder_alive(pid, host, started, heartbeat, cutoff or _cutoff()):
        return False
    return host != socket.gethostname() or holds_open(pid, store_file) is not False


def holders_at_work(store: RunStore, stage: str) -> list[HolderInfo]:
    """The processes at work on `stage` (a result table: 'generations') of `store`: those
    holding leases of it, alive (`holder_at_work`), oldest first."""
    cutoff = _cutoff()
    rows = store.query(
        "SELECT holder, pid, host, started_at, command, process_start, heartbeat_at FROM holders "
        "WHERE holder IN (SELECT holder FROM leases WHERE stage = ?) ORDER BY started_at",
        (stage,),
    )
    return [
        HolderInfo(row[0], int(row[1]), row[2], row[3], row[4])
        for row in rows
        if holder_at_work(store.path, int(row[1]), row[2], row[5], row[6], cutoff)
    ]


def _lease_holders(conn: sqlite3.Connection, stage: str, keys: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for start in range(0, len(keys), 500):
        chunk = list(keys[start : start + 500])
        for key, holder in conn.execute(
            f"SELECT job_key, holder FROM leases WHERE stage = ? AND job_key IN "
            f"({', '.join('?' * len(chunk))})",
            [stage, *chunk],
        ):
            found[key] = holder
    return found


def _command_line() -> str:
    argv = [os.path.basename(sys.argv[0]), *sys.argv[1:]] if sys.argv else []
    text = " ".join(argv)
    return text if len(text) <= 200 else text[:197] + "..."
