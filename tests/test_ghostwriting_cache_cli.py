"""The kept ghostwriting measures with real CLI processes: a read-only run is analysed as a
writable one is (reading what the run keeps, storing nothing), and two commands started at
once on one run keep its measures whole."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
from test_ghostwriting_cache import Counts, analysed, made_run, poem_texts, poems

from poemetric.store import RunStore
from poemetric.store.measure_cache import MeasureCache

COMMAND = [sys.executable, "-m", "poemetric"]


def read_only_prefix() -> list[str]:
    """As root (whom permissions do not stop): without the capabilities that let root write a
    file regardless of its mode, as on a read-only mount (as tests/test_store_readonly.py)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: cannot make a run read-only")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def analyze(run: Path, out: Path, *, read_only: bool = False) -> dict[str, bytes]:
    """`poemetric analyze`'s files, with the run's folder written as RUN (it is in notes)."""
    prefix = read_only_prefix() if read_only else []
    args = [*prefix, *COMMAND, "analyze", "--run", str(run), "--out", str(out), "--no-progress"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return {p.name: p.read_bytes().replace(str(run).encode(), b"RUN") for p in out.iterdir()}


def read_only(run: Path) -> Path:
    """`run`, its store at rest in one file, made read-only (files and folder)."""
    assert sorted(p.name for p in run.iterdir()) == ["poemetric.sqlite"]
    (run / "poemetric.sqlite").chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    run.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    return run


@pytest.fixture(autouse=True)
def _writable_again(tmp_path: Path) -> Iterator[None]:
    yield
    for folder in (tmp_path, *tmp_path.rglob("*")):
        if folder.is_dir():
            folder.chmod(stat.S_IRWXU)


def test_a_read_only_run_is_analysed_as_a_writable_one(tmp_path: Path) -> None:
    source = made_run(tmp_path / "made")
    never = Path(shutil.copytree(source, tmp_path / "never" / "run"))
    expected = analyze(source, tmp_path / "expected")  # measures every poem and keeps them

    # Never analysed, read-only: every poem measured, nothing stored, nothing made there.
    assert analyze(read_only(never), tmp_path / "a", read_only=True) == expected
    assert sorted(p.name for p in never.iterdir()) == ["poemetric.sqlite"]
    with closing(
        sqlite3.connect(f"{(never / 'poemetric.sqlite').as_uri()}?mode=ro", uri=True)
    ) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert "measure_cache" not in tables

    # Analysed before it was copied: the kept measures are read from the read-only copy. One
    # poem's kept rhyme density is changed first, so that the output shows it was read.
    kept = Path(shutil.copytree(source, tmp_path / "kept" / "run"))
    with RunStore(kept, create=False) as store:
        (version,) = [r[0] for r in store.query(
            "SELECT version FROM measure_cache_versions WHERE kind = 'ghostwriting text'")]  # fmt: skip
        item, value = next(iter(MeasureCache(store).read(version).items()))
    value[4] = 0.123456789
    with closing(sqlite3.connect(kept / "poemetric.sqlite")) as conn, conn:
        conn.execute("UPDATE measure_cache SET value = ? WHERE item = ?", (json.dumps(value), item))
    shown = analyze(read_only(kept), tmp_path / "b", read_only=True)
    assert b"0.123456789" in shown["ghostwriting_poems.csv"]
    assert b"0.123456789" not in expected["ghostwriting_poems.csv"]
    assert sorted(p.name for p in kept.iterdir()) == ["poemetric.sqlite"]


def test_two_commands_at_once_keep_the_measures_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = made_run(tmp_path / "made")
    commands = [
        [*COMMAND, "analyze", "--run", str(run), "--out", str(tmp_path / "a"), "--no-progress"],
        [*COMMAND, "report", "--run", str(run), "--out", str(tmp_path / "report.html")],
        [*COMMAND, "analyze", "--run", str(run), "--out", str(tmp_path / "b"), "--no-progress"],
    ]
    started = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
               for c in commands]  # fmt: skip
    for process in started:
        output, _ = process.communicate(timeout=300)
        assert process.returncode == 0, output
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "b").iterdir())
    assert all(
        (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes() for f in files
    )
    with closing(sqlite3.connect(run / "poemetric.sqlite")) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        kinds = dict(conn.execute(
            "SELECT v.kind, COUNT(*) FROM measure_cache c JOIN measure_cache_versions v "
            "USING (version) GROUP BY v.kind"))  # fmt: skip
    # Each text once; each poem's nearest reference once (none of the human poems share a text
    # and an excluded id with another poem).
    assert kinds == {"ghostwriting text": poem_texts(run), "ghostwriting uniqueness": poems(run)}
    counts = Counts(monkeypatch)
    assert analysed(run, tmp_path / "c") == {
        name: (tmp_path / "a" / name).read_bytes() for name in files
    }
    assert counts.reset() == (0, 0)
