"""A run store that cannot be written any more (a full disk, a used-up quota, `ulimit -f`) while
a stage runs: the command stops with one line that says what is kept and how to go on, not a
traceback, and the same command again finishes the run."""

from __future__ import annotations

import dataclasses
import os
import resource
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted

from poemetric.generation.stage import run_generation
from poemetric.store import RunStore, StoreWriteError


def test_a_full_store_stops_the_stage_and_the_resume_finishes_it(tmp_path: Path) -> None:
    provider = use_scripted()
    store = prepared_store(tmp_path, poems=8)
    spec = scripted_spec()
    options = dataclasses.replace(FAST, samples=6)
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    # SQLite's own "database or disk is full" (SQLITE_FULL), a few rows from now.
    store.conn.execute(f"PRAGMA max_page_count = {pages + 4}")
    with pytest.raises(StoreWriteError) as stopped:
        run_generation(store, [spec], options=options)
    said = str(stopped.value)
    assert said.startswith(
        f"could not write the run store {store.path} (database or disk is full: is its disk "
        "full, or your disk quota used up?); the command stopped. Every answer stored before "
        "is kept"
    ), said
    assert "run the same command again" in said
    kept = store.count("generations", "author = ? AND status = 'ok'", (spec.name,))
    assert kept < 8 * 6

    store.conn.execute("PRAGMA max_page_count = 1073741823")  # space again
    provider.calls.clear()
    report = run_generation(store, [spec], options=options)
    assert report.models[0].already_done == kept and report.errors == 0
    assert len(provider.calls) == 8 * 6 - kept  # nothing stored was asked again
    assert store.count("generations", "author = ? AND status = 'ok'", (spec.name,)) == 8 * 6


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_the_command_line_says_it_in_one_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    command = [sys.executable, "-m", "poemetric", "generate", "--run", str(run), "--no-progress"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    first = subprocess.run([*command, "--limit", "2"], capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr
    with RunStore(run, create=False) as store:  # folds the write-ahead log into the store
        done = store.count("generations", "status = 'ok'")
    room = (run / "poemetric.sqlite").stat().st_size + 16 * 1024

    def limited() -> None:  # `ulimit -f`: a write past it fails (Python ignores SIGXFSZ)
        resource.setrlimit(resource.RLIMIT_FSIZE, (room, room))

    full = subprocess.run(
        [*command, "--limit", "16", "--samples", "8"],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=limited,
    )
    assert full.returncode == 1, full.stderr
    assert "Traceback" not in full.stderr, full.stderr[-3000:]
    (line,) = [line for line in full.stderr.splitlines() if line.startswith("error:")]
    assert line.startswith(f"error: could not write the run store {run / 'poemetric.sqlite'} ")
    again = subprocess.run(
        [*command, "--limit", "16", "--samples", "8"], capture_output=True, text=True, env=env
    )
    assert again.returncode == 0, again.stderr
    with RunStore(run, create=False) as store:
        assert store.count("generations", "status = 'ok'") > done
        assert store.count("generations", "status != 'ok'") == 0


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_new_run_on_a_full_disk_is_one_line_too(tmp_path: Path) -> None:
    """Before any stage runs (the new run's store made, its dataset stored)."""
    run = tmp_path / "run"
    command = [sys.executable, "-m", "poemetric", "generate", "--run", str(run), "--limit", "2"]

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    full = subprocess.run(
        [*command, "--no-progress"],
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        preexec_fn=limited,
    )
    assert full.returncode == 1, full.stderr
    assert "Traceback" not in full.stderr, full.stderr[-3000:]
    assert full.stderr.startswith(  # named: the one store the command opened
        f"error: could not write the run store {run / 'poemetric.sqlite'} (disk I/O error: is "
        "its disk "
    ), full.stderr


def test_an_operational_error_without_a_sqlite_code_is_no_disk_failure() -> None:
    """An `OperationalError` raised by Python code (a plugin, a wrapper) has no
    `sqlite_errorcode`: reading it raised AttributeError inside the command line's own error
    handler, which then printed a traceback (unredacted) in place of the error."""
    from poemetric.store.connect import disk_failure, primary_code

    error = sqlite3.OperationalError("raised by hand")
    assert primary_code(error) == 0 and disk_failure(error) is None


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
@pytest.mark.parametrize("command", [["export", "--format", "csv"], ["analyze"]], ids=" ".join)
def test_a_run_that_cannot_be_opened_on_a_full_disk_is_named(
    tmp_path: Path, command: list[str]
) -> None:
    """SQLite makes the store's -wal and -shm files even for a command that only reads it: on a
    full disk every command failed with 'could not write a run store (disk I/O error: ...)',
    naming no store."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    before = (run / "poemetric.sqlite").read_bytes()
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    xfsz = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, limits[1]))
    try:
        args = [*command, "--run", str(run), "--out", str(tmp_path / "out")]
        result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, xfsz)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"error: could not open the run store {run / 'poemetric.sqlite'} (disk I/O error: is its "
        "disk full, your disk quota or a file size limit reached, or the disk failing?); "
    ), line
    assert line.endswith("free space there and run the same command again")
    assert (run / "poemetric.sqlite").read_bytes() == before


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_merge_names_the_source_it_could_not_open_on_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`merge` opens several stores: a source that could not be opened on a full disk (its -shm
    file) was 'could not write a run store', naming none of them. The first source, open
    elsewhere (its -shm file there already), opens; the second cannot, and is named."""
    from test_store_damaged_pages import run_main

    first, second = tmp_path / "first", tmp_path / "second"
    prepared_store(second, poems=1).close()
    held = prepared_store(first, poems=1)  # its -wal and -shm stay while it is open
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    xfsz = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails
    resource.setrlimit(resource.RLIMIT_FSIZE, (1024, limits[1]))
    try:
        args = ["merge", str(first), str(second), "--into", str(tmp_path / "into")]
        status = run_main(args, monkeypatch)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, xfsz)
        held.close()
    said = capsys.readouterr().err
    assert status == 1, said
    (line,) = said.splitlines()
    assert line.startswith(
        f"error: could not open the run store {second / 'poemetric.sqlite'} (disk I/O error: "
    ), line
    assert not (tmp_path / "into").exists()
