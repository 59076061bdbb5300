"""Ctrl-C in a pipeline (`poemetric generate ... | tee gen.log`): the terminal stops the reader
too, so the stage's summary finds stdout a closed pipe. The command still says how to resume on
stderr and exits 130 (stopped, run again), not 141 with the resume hint lost
(poemetric.cli.interrupt, poemetric.cli.closed_output). Real processes, real SIGINT, the local
OpenAI server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cluster_signals import HeldAfter, model_dir, ok_rows, wait_for
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store

from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer

pytestmark = pytest.mark.usefixtures("ctrl_c_from_a_terminal")

ROOT = Path(__file__).resolve().parents[1]
WAITING = "Ctrl-C: no new request starts; waiting up to"


def _stopped_with_its_reader(
    tmp_path: Path, stderr_too: bool, progress: str = "--progress", answered: bool = True
) -> tuple[int, str, list[str]]:
    """`generate` of 4 jobs (`progress`: its display's flag), its stdout (and stderr with
    `stderr_too`) a pipe: once 2 answers are stored and 2 more held at the server, the pipe's
    reader goes away and Ctrl-C comes, then the server answers them (not `answered`: only after
    the command ended, its grace 1 s). Returns the status, what reached stderr (nothing with
    `stderr_too`) and the arguments."""
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    responder = HeldAfter(2)
    log = tmp_path / "stderr.log"
    try:
        with OpenAIServer(responder, api_key=TEST_KEY) as server, log.open("w") as errors:
            env = {
                **os.environ,
                TEST_KEY_ENV: TEST_KEY,
                "PYTHONPATH": str(ROOT),
                "POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url)),
                "POEMETRIC_STOP_GRACE": "20" if answered else "1",
            }
            env.pop("COLUMNS", None)
            args = ["generate", "--run", str(run), "--models", "remote-test", "--limit", "4"]
            args.append(progress)
            process = subprocess.Popen(
                [sys.executable, "-m", "poemetric", *args],
                env=env,
                cwd=tmp_path,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT if stderr_too else errors,
                start_new_session=True,
            )
            assert process.stdout is not None
            wait_for(lambda: ok_rows(run) == 2 and len(server.generation_requests) == 4, process)
            process.stdout.close()  # the reader (`tee`) stopped by the same Ctrl-C
            os.killpg(process.pid, signal.SIGINT)
            if not stderr_too:
                wait_for(lambda: WAITING in log.read_text(), process)
            if answered:
                responder.release.set()
            status = process.wait(timeout=60)
        with RunStore(run) as store:  # what the server answered is stored, nothing failed
            stored = store.count("generations", "author = 'remote-test' AND status = 'ok'")
            assert stored == (4 if answered else 2)
            assert store.count("calls", "outcome != 'ok'") == 0
    finally:
        responder.release.set()
    return status, log.read_text(), args


@pytest.mark.parametrize("progress", ["--progress", "--no-progress"])
def test_ctrl_c_with_stdout_gone_says_how_to_resume_on_stderr_and_exits_130(
    tmp_path: Path, progress: str
) -> None:
    """With --progress the display's last write finds the pipe closed, without it the stage's
    summary: either replaced the stop."""
    status, errors, args = _stopped_with_its_reader(tmp_path, False, progress)
    assert status == 130, errors
    assert "Interrupted." in errors and "Traceback" not in errors
    assert f"Resume with:\n  poemetric {' '.join(args)}" in errors


def test_ctrl_c_with_stdout_and_stderr_gone_still_exits_130(tmp_path: Path) -> None:
    """`... 2>&1 | tee gen.log`: nothing can be said; the status still says it was stopped."""
    status, _, _ = _stopped_with_its_reader(tmp_path, stderr_too=True)
    assert status == 130


def test_ctrl_c_with_stderr_gone_still_stops_after_the_grace(tmp_path: Path) -> None:
    """The notice "waiting up to N s" found stderr closed and the stop never set its grace: the
    command waited for answers that did not come (here until the server gave up, 60 s)."""
    began = time.monotonic()
    status, _, _ = _stopped_with_its_reader(tmp_path, stderr_too=True, answered=False)
    assert status == 130
    assert time.monotonic() - began < 30
