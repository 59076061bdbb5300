"""Run store: schema, migrations, idempotent writes, export."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from poemetric.store import RunStore, StoreError
from poemetric.store.schema import SCHEMA_VERSION


def _seed(store: RunStore) -> str:
    template_hash = store.add_template("t", "Write a {{ form }}.")
    store.add_poems(
        [dict(poem_id="p1", dataset="d", position=0, form="sonnet", content="x", record="{}")]
    )
    store.add_prompts(
        [dict(prompt_id="q1", poem_id="p1", template_hash=template_hash, text="Write a sonnet.")]
    )
    return template_hash


def _generation(status: str, poem: str | None = None) -> dict[str, object]:
    return dict(
        generation_id="g1", prompt_id="q1", poem_id="p1", author="m", status=status, poem=poem
    )


def test_new_store_is_wal_and_current(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        assert store.schema_version == SCHEMA_VERSION
        mode = store.conn.execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"


def test_refuses_newer_schema(tmp_path: Path) -> None:
    RunStore(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "poemetric.sqlite")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this POEMetric"):
        RunStore(tmp_path)


def test_missing_store_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no run store"):
        RunStore(tmp_path / "nope", create=False)


ROUNDS = 25
OPENERS = 3


def _open_each_new_run(base: Path, barrier: Any, errors: Any) -> None:
    """One of the processes of `test_processes_opening_a_new_run_at_once`: every round, open the
    round's new run the moment all the others do."""
    for round_ in range(ROUNDS):
        barrier.wait(timeout=60)
        try:
            RunStore(base / f"run{round_}").close()
        except Exception as error:
            errors.put(f"round {round_}: {type(error).__name__}: {error}")
    errors.put(None)


def test_processes_opening_a_new_run_at_once(tmp_path: Path) -> None:
    """Two shards started together on one new run: both create its store at the same moment.
    Each migrated it anew ("table meta already exists"), or met SQLite's instant "database is
    locked" while both switched it to write-ahead logging, and died with a traceback."""
    context = multiprocessing.get_context("spawn")  # as on Windows and macOS
    barrier, errors = context.Barrier(OPENERS), context.Queue()
    openers = [
        context.Process(target=_open_each_new_run, args=(tmp_path, barrier, errors))
        for _ in range(OPENERS)
    ]
    for opener in openers:
        opener.start()
    failures, done = [], 0
    while done < OPENERS:  # each opener's failures, then its None
        report = errors.get(timeout=120)
        done += report is None
        failures += [] if report is None else [report]
    for opener in openers:
        opener.join(timeout=60)
    assert failures == []
    for round_ in range(ROUNDS):
        with RunStore(tmp_path / f"run{round_}", create=False) as store:
            assert store.schema_version == SCHEMA_VERSION
            assert store.query("SELECT COUNT(*) FROM survey_edits")[0][0] == 0  # the last migration


def test_a_new_run_another_process_is_switching_to_wal_is_waited_for(tmp_path: Path) -> None:
    """While another process switches a new store to write-ahead logging it holds a write lock on
    it (still in rollback mode), and SQLite answered "database is locked" at once, without
    waiting for the busy timeout."""
    (tmp_path / "run").mkdir()
    other = sqlite3.connect(tmp_path / "run" / "poemetric.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    opened: list[object] = []

    def open_run() -> None:
        try:
            with RunStore(tmp_path / "run") as store:
                opened.append(store.schema_version)
        except sqlite3.Error as error:
            opened.append(f"{type(error).__name__}: {error}")

    opener = threading.Thread(target=open_run)
    opener.start()
    opener.join(timeout=0.5)  # failed by now without waiting; waits for the lock with the fix
    other.execute("ROLLBACK")
    other.close()
    opener.join(timeout=60)
    assert opened == [SCHEMA_VERSION]


def test_success_is_never_overwritten_and_errors_are_replaced(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        _seed(store)
        assert store.save_generation(_generation("error"))
        assert store.save_generation(_generation("ok", "first"))
        assert not store.save_generation(_generation("ok", "second"))
        assert not store.save_generation(_generation("error"))
        rows = store.query("SELECT status, poem, attempts FROM generations")
        assert [tuple(r) for r in rows] == [("ok", "first", 2)]


def test_inserts_are_idempotent(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        first = _seed(store)
        second = _seed(store)
        assert first == second
        assert store.count("poems") == store.count("prompts") == store.count("templates") == 1


def test_failed_transaction_writes_nothing(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        _seed(store)
        with pytest.raises(RuntimeError), store.transaction() as conn:
            conn.execute(
                "INSERT INTO meta(key, value) VALUES ('a', '1')",
            )
            raise RuntimeError("interrupted")
        assert store.get_meta("a") is None


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_export_round_trip(tmp_path: Path, suffix: str) -> None:
    with RunStore(tmp_path / "run") as store:
        _seed(store)
        store.save_generation(_generation("ok", "line one\nline two"))
        path = store.export("generations", tmp_path / f"out{suffix}")
    if suffix == ".csv":
        frame = pd.read_csv(path)
    elif suffix == ".jsonl":
        frame = pd.read_json(path, lines=True)
    else:
        frame = pd.read_parquet(path)
    assert frame.loc[0, "poem"] == "line one\nline two"
    assert frame.loc[0, "status"] == "ok"


def test_export_rejects_unknown_format_and_table(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        with pytest.raises(StoreError, match=r"\.csv, \.jsonl or \.parquet"):
            store.export("poems", tmp_path / "x.xlsx")
        with pytest.raises(StoreError, match="unknown table"):
            store.export("sqlite_master", tmp_path / "x.csv")


def test_meta_and_cache(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.set_meta("dataset", {"name": "demo"})
        assert store.get_meta("dataset") == {"name": "demo"}
        store.cache_completion("k", "openai", "gpt-4o", {"text": "poem"})
        store.cache_completion("k", "openai", "gpt-4o", {"text": "other"})
        assert store.cached_completion("k") == {"text": "poem"}
        assert json.loads(store.query("SELECT completion FROM response_cache")[0][0]) == {
            "text": "poem"
        }
