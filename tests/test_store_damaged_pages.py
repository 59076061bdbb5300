"""A run store whose first pages are whole but a later one is damaged (a torn copy of a run at
work, docs/running.md) opens, and a command fails only at the first damaged page it reads. It
ended in a `DatabaseError: database disk image is malformed` traceback (exit 1) naming no file;
it is one `error:` line naming the store, exit 2, as a store damaged from its first page is."""

from __future__ import annotations

import gc
import signal
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_runner_support import prepared_store

from poemetric.cli import main
from poemetric.runner import stopping
from poemetric.store import connect


@pytest.fixture(autouse=True)
def _no_store_opened_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stores other tests of this process opened (one command is one process)."""
    monkeypatch.setattr(connect, "_OPENED", [], raising=False)


@pytest.fixture
def damaged_run(tmp_path: Path) -> Iterator[Path]:
    """A prepared demo run whose `poems` table's root page is overwritten: SQLite opens the
    store, reads its schema version and its tables' list, and fails on reading a poem."""
    run = tmp_path / "run"
    store = prepared_store(run, poems=3)
    page_size = store.conn.execute("PRAGMA page_size").fetchone()[0]
    root = store.conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'poems'").fetchone()
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    with (run / "poemetric.sqlite").open("r+b") as file:
        file.seek((root[0] - 1) * page_size)
        file.write(b"\xff" * 64)
    yield run


def run_main(args: list[str], monkeypatch: pytest.MonkeyPatch) -> int:
    """`poemetric ARGS` through `main`, as the installed command runs it: its exit status."""
    monkeypatch.setattr(sys, "argv", ["poemetric", *args])
    monkeypatch.setattr(stopping._state, "installed", stopping._state.installed)  # main sets it
    sigterm = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as ended:
            main()
    finally:
        gc.unfreeze()  # main freezes what it built for a process about to end
        signal.signal(signal.SIGTERM, sigterm)
    return int(ended.value.code or 0)


@pytest.mark.parametrize("command", [["export", "--format", "csv"], ["analyze"]], ids=" ".join)
def test_a_store_damaged_past_its_first_pages_is_one_error_line(
    damaged_run: Path,
    tmp_path: Path,
    command: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    store = damaged_run / "poemetric.sqlite"
    before = store.read_bytes()
    status = run_main([*command, "--run", str(damaged_run), "--out", str(tmp_path / "out")],
                      monkeypatch)  # fmt: skip
    said = capsys.readouterr().err
    assert status == 2, said
    (line,) = said.splitlines()
    assert line == (
        f"error: {store} is not a run store SQLite can read (database disk image is malformed); "
        "is it damaged, or only partly copied?"
    )
    assert store.read_bytes() == before


def test_an_error_of_a_whole_store_names_none(tmp_path: Path) -> None:
    """A damaged-page error while every store opened is whole (another SQLite file a command
    reads) names no run store: it stays a crash with its traceback."""
    from poemetric.store.connect import damaged_stores

    prepared_store(tmp_path / "whole", poems=1).close()
    error = sqlite3.DatabaseError("database disk image is malformed")
    error.sqlite_errorcode = sqlite3.SQLITE_CORRUPT
    assert damaged_stores(error) == []
