"""A reader that stops early (`poemetric models | head`): every command ends quietly with status
141 (128 + SIGPIPE, as git and coreutils), where Click exited 1 and `docs` 0; a stage whose log
reader goes away mid-run still stores every answer (poemetric.cli.closed_output)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from poemetric.cli.closed_output import EXIT_STATUS

SRC = str(Path(__file__).resolve().parents[1])


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC, "OMP_NUM_THREADS": "1", "COLUMNS": "80", **extra}


def into_closed_pipe(
    tmp_path: Path, *args: str, stderr_too: bool = False
) -> subprocess.CompletedProcess[str]:
    """`poemetric ARGS` with stdout (and stderr with `stderr_too`) a pipe whose reader is
    already gone, as `| head -0` leaves it."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "poemetric", *args],
            stdout=write_end,
            stderr=write_end if stderr_too else subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=_env(),
            timeout=120,
        )
    finally:
        os.close(write_end)


def _ratings(tmp_path: Path) -> Path:
    rows = ["unit,rater,score"] + [
        f"u{u},r{r},{(u + r) % 5 + 1}" for u in range(60) for r in (1, 2)
    ]
    path = tmp_path / "ratings.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["models"],
        ["prompts", "render", "--limit", "3"],
        ["docs", "running"],
        ["agree", "ratings.csv", "--format", "json", "--bootstrap", "5"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_a_command_whose_reader_has_gone_ends_quietly_with_141(
    tmp_path: Path, args: list[str]
) -> None:
    _ratings(tmp_path)
    done = into_closed_pipe(tmp_path, *args)
    assert done.returncode == EXIT_STATUS == 141
    assert done.stderr == ""  # no traceback, no "Exception ignored" at exit


def test_form_check_of_many_poems_writes_its_file_then_ends_quietly(tmp_path: Path) -> None:
    """The rows go to --output in full; the summary for the terminal has no reader."""
    poems = tmp_path / "poems.csv"
    limerick = "There was an Old Man with a beard / Who said it is just as I feared"
    rows = ["id,form,content"] + [f'p{i},limerick,"{limerick}"' for i in range(200)]
    poems.write_text("\n".join(rows) + "\n", encoding="utf-8")
    done = into_closed_pipe(tmp_path, "form", "check", "poems.csv", "-o", "checks.jsonl")
    assert (done.returncode, done.stderr) == (141, "")
    assert len((tmp_path / "checks.jsonl").read_text(encoding="utf-8").splitlines()) == 200


def test_an_error_line_to_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`poemetric ... 2>&1 | head -0`: the error message has no reader either."""
    done = into_closed_pipe(tmp_path, "analyze", "--run", "nowhere", stderr_too=True)
    assert done.returncode == 141


def _stored(run: Path) -> dict[str, int]:
    with sqlite3.connect(run / "poemetric.sqlite") as db:
        rows = db.execute(
            "SELECT author, count(*) FROM generations WHERE status = 'ok' GROUP BY author"
        )
        return dict(rows.fetchall())


@pytest.mark.parametrize("progress", ["--progress", "--no-progress"])
def test_a_stage_whose_reader_leaves_mid_run_stores_every_answer(
    tmp_path: Path, progress: str
) -> None:
    """`poemetric generate ... | head -2`: the reader leaves after the first lines while the
    markov model answers 228 jobs. Its progress lines stop (no traceback from their thread) and
    the stage goes on to store every answer; where nothing was written during the run
    (--no-progress) the summary at the end finds the pipe closed: status 141, all stored."""
    run = tmp_path / "run"
    jobs = ["--dataset", "lear-limericks", "--models", "markov", "--samples", "6", "--limit", "all"]
    process = subprocess.Popen(
        [sys.executable, "-m", "poemetric", "generate", "--run", str(run), progress, *jobs],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=_env(POEMETRIC_PROGRESS_EVERY="0.02"),
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    if progress == "--progress":  # up to a progress line, mid-run
        assert any(b"] markov: " in process.stdout.readline() for _ in range(5))
    process.stdout.close()
    errors = process.stderr.read().decode()
    status = process.wait(timeout=120)
    assert first.startswith(b"run ")
    assert "Traceback" not in errors and "Exception" not in errors
    assert _stored(run) == {"human": 38, "markov": 228}
    assert status == (0 if progress == "--progress" else 141)


def test_a_usage_error_to_a_closed_stderr_alone_keeps_its_status(tmp_path: Path) -> None:
    """`poemetric generate --bogus 2> >(head -0)`: stdout was fine, yet the usage error that
    could not be written made the status 141, not Click's 2 (a script's `$? -eq 2` check)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "poemetric", "generate", "--bogus"],
            stdout=subprocess.PIPE,
            stderr=write_end,
            text=True,
            cwd=tmp_path,
            env=_env(),
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stdout) == (2, "")


def test_a_broken_pipe_elsewhere_is_not_taken_for_a_closed_output() -> None:
    """An EPIPE of a connection to a server, while stdout and stderr are fine, is a failure to
    report (a traceback), not a quiet end: Click took every EPIPE for its stdout's."""
    import errno

    from poemetric.cli.closed_output import output_closed

    assert output_closed(BrokenPipeError(errno.EPIPE, "Broken pipe")) is None
    assert output_closed(ConnectionResetError(errno.ECONNRESET, "reset")) is None
