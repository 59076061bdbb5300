"""A command whose output (tables, figures, export files) finds no space to be written: a full
disk, a used-up quota or a file size limit. It ended in a traceback (`OSError: [Errno 28] No
space left on device` from pandas; from `figures`, matplotlib's `AttributeError: 'Stream' object
has no attribute 'pos'` hiding it); it is one `error:` line, exit 1."""

from __future__ import annotations

import resource
import signal
import sys
from pathlib import Path

import pytest
from test_runner_support import prepared_store
from test_store_damaged_pages import run_main


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_an_export_that_finds_no_space_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    with prepared_store(run, poems=2) as store:
        prompt = store.query("SELECT prompt_id, poem_id FROM prompts LIMIT 1")[0]
        store.save_generation(
            {
                "generation_id": "g1",
                "prompt_id": prompt["prompt_id"],
                "poem_id": prompt["poem_id"],
                "author": "model",
                "status": "ok",
                "poem": "a line\n" * 20_000,
            }
        )
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    xfsz = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails
    # room for the store's -shm file (32 KiB), not for the generations' export
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, limits[1]))
    try:
        out = tmp_path / "out"
        status = run_main(["export", "--format", "csv", "--run", str(run), "--out", str(out)],
                          monkeypatch)  # fmt: skip
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, xfsz)
    said = capsys.readouterr().err
    assert status == 1, said
    (line,) = said.splitlines()
    assert line.startswith(
        "error: could not write the command's output (File too large): is its disk full, your "
        "disk quota used up or a file size limit reached? What the command stored in the run "
        "before is kept; free space there"
    ), line
    assert not (out / "generations.csv").exists()
