"""A run this process cannot write (copied from a cluster to a read-only mount, files without
write permission): the commands that only read it work, with their output elsewhere, and those
that write it say so in one line (real CLI processes on a real run)."""

from __future__ import annotations

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

SIDES = ("", "-wal", "-shm")


def poemetric(*args: str, read_only: bool = False) -> subprocess.CompletedProcess[str]:
    """Run the CLI. `read_only`: as root (whom permissions do not stop), without the
    capabilities that let root write a file regardless of its mode, as a read-only mount would."""
    prefix: list[str] = []
    if read_only and os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot make a run read-only")
        prefix = [setpriv, "--bounding-set=-dac_override,-dac_read_search"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "poemetric", *args],
        env={**os.environ, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A small run whose last rows are still in its write-ahead log: a connection held open
    (another process still at work) keeps the log from being folded into the store."""
    run = tmp_path_factory.mktemp("source") / "run"
    run.mkdir()
    store = run / "poemetric.sqlite"
    sqlite3.connect(store).execute("PRAGMA journal_mode=WAL").connection.close()
    with closing(sqlite3.connect(store)) as holder:
        holder.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the log
        done = poemetric("generate", "--run", str(run), "--limit", "3", "--no-progress")
        assert done.returncode == 0, done.stdout + done.stderr
        yield run, holder


def read_only_copy(source: Path, target: Path, sides: tuple[str, ...] = SIDES) -> Path:
    """The store's files as they are (`sides`), or none: the store at rest, all in one file."""
    target.mkdir()
    if not sides:
        with (
            closing(sqlite3.connect(source / "poemetric.sqlite")) as conn,
            closing(sqlite3.connect(target / "poemetric.sqlite")) as copy,
        ):
            conn.backup(copy)
        sides = ("",)
    for side in sides:
        if side:  # the -wal, -shm files beside the store
            shutil.copyfile(source / f"poemetric.sqlite{side}", target / f"poemetric.sqlite{side}")
        elif not (target / "poemetric.sqlite").exists():
            shutil.copyfile(source / "poemetric.sqlite", target / "poemetric.sqlite")
    for side in sides:
        (target / f"poemetric.sqlite{side}").chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    target.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    return target


@pytest.fixture(autouse=True)
def _writable_again(tmp_path: Path) -> Iterator[None]:
    yield
    for folder in (tmp_path, *tmp_path.rglob("*")):
        if folder.is_dir():
            folder.chmod(stat.S_IRWXU)


def generations(source: Path) -> int:
    with closing(sqlite3.connect(source / "poemetric.sqlite")) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM generations").fetchone()[0])


def test_readers_work_on_a_read_only_run(
    made: tuple[Path, sqlite3.Connection], tmp_path: Path
) -> None:
    source, _ = made
    run = read_only_copy(source, tmp_path / "run", ())  # a run at rest: no -wal, no -shm
    out = tmp_path / "out"
    done = poemetric("export", "generations", "--run", str(run), "--to", str(out), read_only=True)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = generations(source)
    assert f"generations {rows:>7} rows" in done.stdout
    assert len((out / "generations.csv").read_text().splitlines()) > rows
    assert sorted(p.name for p in run.iterdir()) == ["poemetric.sqlite"]  # nothing made there

    # Without --to the export would go into the run: said in one line, exit 2.
    done = poemetric("export", "--run", str(run), read_only=True)
    assert done.returncode == 2
    assert "is read-only here: give --to" in done.stderr and "Traceback" not in done.stderr

    # A command that writes to the run says so, and does nothing.
    done = poemetric("generate", "--run", str(run), "--limit", "3", read_only=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "read-only here" in done.stderr and "Traceback" not in done.stderr


def test_a_copy_with_its_write_ahead_log_is_read_whole(
    made: tuple[Path, sqlite3.Connection], tmp_path: Path
) -> None:
    source, _ = made
    assert (source / "poemetric.sqlite-wal").stat().st_size > 0  # rows not yet in the store
    run = read_only_copy(source, tmp_path / "run")
    out = tmp_path / "out"
    done = poemetric("export", "generations", "--run", str(run), "--to", str(out), read_only=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"generations {generations(source):>7} rows" in done.stdout

    # The log without its -shm file cannot be read from a read-only folder: an error, not a
    # store silently missing its last rows.
    partial = read_only_copy(source, tmp_path / "partial", ("", "-wal"))
    done = poemetric("export", "--run", str(partial), "--to", str(out), read_only=True)
    assert done.returncode == 2
    assert "poemetric.sqlite-shm" in done.stderr and "Traceback" not in done.stderr


def test_survey_serve_refuses_a_read_only_run(
    made: tuple[Path, sqlite3.Connection], tmp_path: Path
) -> None:
    """Serving a survey from a read-only run started, printed the raters' links, and then
    answered each save with a server error: every answer is a write to the run."""
    source, _ = made
    built = tmp_path / "built"
    shutil.copytree(source, built)
    done = poemetric(
        "survey", "build", "--run", str(built), "--raters", "2", "--per-rater", "3",
        "--per-poem", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert poemetric("survey", "links", "--run", str(built)).returncode == 0  # makes the secret
    run = read_only_copy(built, tmp_path / "run", ())  # at rest: the build closed its log
    # `survey links` needs the run's secret: without it (not copied), one line, not a traceback.
    done = poemetric("survey", "links", "--run", str(run), read_only=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "survey-secret.key" in done.stderr and "Traceback" not in done.stderr

    run.chmod(stat.S_IRWXU)
    shutil.copy2(built / "survey-secret.key", run / "survey-secret.key")
    run.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
    done = poemetric("survey", "links", "--run", str(run), read_only=True)
    assert done.returncode == 0 and "/r/" in done.stdout, done.stdout + done.stderr
    done = poemetric("survey", "serve", "--run", str(run), "--port", "1", read_only=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "read-only here" in done.stderr and "Traceback" not in done.stderr
    assert "/r/" not in done.stdout  # no rater was sent a link to a page that cannot save
