"""Readers of a run that another process is writing (real processes on one run store): what
they read is one moment of the run."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pandas as pd
import pytest

from poemetric.store import RunStore
from poemetric.store.connect import WAL_SIZE_LIMIT

#: A writer that stores a generation and its call log row in one transaction, as the runner
#: stores an answer, until the file `stop` appears; it prints "ready" after its first commit.
WRITER = """
import sys
from pathlib import Path
from poemetric.store import RunStore

run, stop = Path(sys.argv[1]), Path(sys.argv[2])
with RunStore(run) as store:
    i = 0
    while not stop.exists():
        with store.transaction():
            store.save_generation(dict(generation_id=f"g{i}", prompt_id="q1", poem_id="p1",
                                       author="m", sample_index=i, status="ok", poem="x"))
            store.log_call(cache_key=f"k{i}", provider="p", model="m", attempt=1, outcome="ok")
        if i == 0:
            print("ready", flush=True)
        i += 1
"""


def seeded(run: Path) -> Path:
    with RunStore(run) as store:
        template_hash = store.add_template("t", "Write a {{ form }}.")
        store.add_poems(
            [dict(poem_id="p1", dataset="d", position=0, form="sonnet", content="x", record="{}")]
        )
        store.add_prompts(
            [dict(prompt_id="q1", poem_id="p1", template_hash=template_hash, text="Write.")]
        )
    return run


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Path]:
    """A run with a writer at work on it for the whole test."""
    run = seeded(tmp_path / "run")
    stop = tmp_path / "stop"
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(run), str(stop)],
        env=os.environ.copy(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        yield run
    finally:
        stop.touch()
        process.wait(timeout=30)


def test_an_export_during_writes_is_one_moment_of_the_run(writer: Path, tmp_path: Path) -> None:
    for attempt in range(3):
        out = tmp_path / f"export{attempt}"
        args = ["export", "generations", "calls", "--run", str(writer), "--to", str(out)]
        done = subprocess.run(
            [sys.executable, "-m", "poemetric", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        generations = len(pd.read_csv(out / "generations.csv"))
        calls = len(pd.read_csv(out / "calls.csv"))
        # Written together, so exported together; and the counts printed are the files' rows.
        assert generations == calls
        assert f"generations {generations:>7} rows" in done.stdout
        assert f"calls       {calls:>7} rows" in done.stdout


def test_a_snapshot_reads_one_moment_and_refuses_writes(writer: Path) -> None:
    with RunStore(writer, create=False) as store:
        with store.snapshot():
            first = store.count("generations")
            time.sleep(0.2)  # the writer commits meanwhile
            assert store.count("generations") == first == store.count("calls")
            with pytest.raises(Exception, match="only reads"):
                store.set_meta("x", 1)
        time.sleep(0.1)
        assert store.count("generations") > first  # and sees the new rows afterwards


def wal_size(run: Path) -> int:
    wal = run / "poemetric.sqlite-wal"
    return wal.stat().st_size if wal.exists() else 0


def wait_until(condition: Callable[[], bool], timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_the_log_a_long_reader_let_grow_is_cut_back_afterwards(writer: Path) -> None:
    with RunStore(writer, create=False) as store:
        with store.snapshot():  # a long report: the writer's rows pile up in the log
            grown = wait_until(lambda: wal_size(writer) > 2 * WAL_SIZE_LIMIT, timeout_s=20)
            assert grown, f"the log grew to {wal_size(writer)} bytes only"
        # Once folded into the store, the log is cut back: it no longer keeps its peak size.
        assert wait_until(lambda: wal_size(writer) <= WAL_SIZE_LIMIT, timeout_s=10), wal_size(
            writer
        )
