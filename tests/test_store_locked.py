"""Another process holds a run store's write lock past the busy timeout (a sqlite3 shell or a
database browser with changes not written yet, a command stuck inside one write). Every command
that then had to write ended in a `sqlite3.OperationalError: database is locked` traceback,
naming neither the store nor what to do; it is one `error:` line saying both, exit 1, and what
was stored before is kept."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted
from test_store_damaged_pages import run_main

from poemetric.generation.stage import run_generation
from poemetric.providers.base import Completion, GenerationRequest, TokenUsage
from poemetric.store import RunStore, StoreWriteError, connect


@pytest.fixture(autouse=True)
def _short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connect, "BUSY_TIMEOUT_S", 0.2)
    monkeypatch.setattr(connect, "_OPENED", [], raising=False)


@contextmanager
def write_lock_held(run: Path) -> Iterator[None]:
    """The store's write lock, held by a connection of its own (another process's)."""
    with closing(sqlite3.connect(run / "poemetric.sqlite", isolation_level=None)) as other:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")


def said_locked(said: str, run: Path) -> bool:
    return said.startswith(
        f"could not write the run store {run / 'poemetric.sqlite'} (database is locked: another "
        "process held its write lock for over 0 s: "
    ) and said.endswith("run the same command again: it asks only what is not stored")


def test_a_stage_that_cannot_store_for_a_lock_says_so(tmp_path: Path) -> None:
    """The lock is taken while the first answer is on its way: the runner cannot store it."""
    store = prepared_store(tmp_path / "run", poems=2)
    other = sqlite3.connect(store.path, isolation_level=None)

    def lock_then_answer(request: GenerationRequest, number: int) -> Completion:
        if number == 1:
            other.execute("BEGIN IMMEDIATE")
        return Completion(
            text="A poem\nof two lines", usage=TokenUsage(input_tokens=10, output_tokens=5)
        )

    provider = use_scripted(lock_then_answer)
    spec = scripted_spec()
    try:
        with pytest.raises(StoreWriteError) as stopped:
            run_generation(store, [spec], options=dataclasses.replace(FAST, concurrency=1))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert said_locked(str(stopped.value), store.run_dir), stopped.value
    assert len(provider.calls) >= 1
    # the stage stopped at the answer it could not store: no row of it, nothing half-written
    assert store.count("generations", "author = ?", (spec.name,)) == 0
    store.close()


def test_the_command_line_names_the_locked_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    RunStore(run).close()
    with write_lock_held(run):
        status = run_main(["generate", "--run", str(run), "--limit", "2", "--no-progress"],
                          monkeypatch)  # fmt: skip
    said = capsys.readouterr().err
    assert status == 1, said
    (line,) = said.splitlines()
    assert line.startswith("error: ") and said_locked(line.removeprefix("error: "), run), line


def test_merge_names_the_locked_destination(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`merge` opens every source and the destination: the lock message said "a run store",
    not which one held the lock. It names the destination, the store it writes."""
    part, into = tmp_path / "part", tmp_path / "into"
    prepared_store(part, poems=1).close()
    prepared_store(into, poems=1).close()
    with write_lock_held(into):
        status = run_main(["merge", str(part), "--into", str(into)], monkeypatch)
    said = capsys.readouterr().err
    assert status == 1, said
    (line,) = said.splitlines()
    assert line.startswith("error: ") and said_locked(line.removeprefix("error: "), into), line
