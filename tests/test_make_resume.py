"""Ctrl-C in a `make generate`: the resume line said `poemetric generate --run ... --limit ...`,
a command not on the PATH of a make user (the venv is not activated), with options instead of
make's variables. It names the make command now, with VENV= when make ran another venv."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_cluster_signals import HeldAfter, model_dir
from test_runner_support import TEST_KEY, TEST_KEY_ENV

from poemetric.hints import make_command
from poemetric.testing.servers import OpenAIServer

pytestmark = pytest.mark.usefixtures("ctrl_c_from_a_terminal")

REPO = Path(__file__).resolve().parent.parent
#: Treat the install stamps as up to date: nothing is (re)installed into the venv under test.
KEEP_VENV = [
    f"-o{Path(sys.executable).parent}/{stamp}" for stamp in (".installed", ".installed-local")
]


def _venv_under_test() -> Path:
    """The venv of this Python, which the tests give make as VENV= (skips without make or
    without poemetric installed there)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    venv = Path(sys.executable).parent.parent
    if not (venv / "bin" / "poemetric").exists():
        pytest.skip("poemetric is not installed beside this Python")
    return venv


def _make_generate(venv: Path, run: Path, env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    """`make generate` of 4 prompts by `remote-test` into `run`, in a session of its own, its
    output in `log`."""
    args = ["make", "-s", *KEEP_VENV, f"VENV={venv}", "generate", f"RUN={run}",
            "MODELS=remote-test", "LIMIT=4", "ARGS=--no-progress"]  # fmt: skip
    with log.open("w") as handle:
        return subprocess.Popen(
            args, cwd=REPO, env=env, stdout=handle, stderr=subprocess.STDOUT, text=True,
            stdin=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip


def _wait_for_requests(server: OpenAIServer, count: int) -> None:
    deadline = time.monotonic() + 60
    while len(server.generation_requests) < count and time.monotonic() < deadline:
        time.sleep(0.05)


def test_make_command_maps_the_options_back_to_make_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(sys, "argv", [".venv/bin/poemetric"])
    args = ["generate", "--run", "my runs/x", "--dataset", "poemetric", "--models", "gpt-4o",
            "--limit", "20", "--concurrency", "4", "--no-progress"]  # fmt: skip
    assert make_command(args) == (
        "make generate RUN='my runs/x' DATASET=poemetric MODELS=gpt-4o LIMIT=20 "
        "ARGS='--concurrency 4 --no-progress'"
    )
    assert make_command(["judge", "--run=runs/x", "--judge", "a,b"]) == (
        "make judge RUN=runs/x JUDGE=a,b"
    )
    assert make_command(["demo", "--run", "runs/demo", "--local"]) == (
        "make demo RUN=runs/demo LOCAL=1"
    )
    assert make_command(["demo", "--run", "runs/demo"]) == "make demo RUN=runs/demo LOCAL=0"
    assert make_command(["judge", "recognise", "--run", "r"]) is None
    # make ran another venv than its default .venv: the resume keeps it
    monkeypatch.setattr(sys, "argv", ["/opt/envs/pm/bin/poemetric"])
    assert make_command(["judge", "--run", "r"]) == "make judge RUN=r VENV=/opt/envs/pm"


def test_ctrl_c_in_make_generate_prints_a_make_line_that_resumes(tmp_path: Path) -> None:
    venv = _venv_under_test()
    run = tmp_path / "my run"
    held = HeldAfter(2)
    with OpenAIServer(held, api_key=TEST_KEY) as server:
        env = {
            **os.environ,
            TEST_KEY_ENV: TEST_KEY,
            "POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url)),
            "POEMETRIC_STOP_GRACE": "1",
            "COLUMNS": "400",
        }
        log = tmp_path / "make.log"
        process = _make_generate(venv, run, env, log)
        _wait_for_requests(server, 3)
        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
        process.wait(timeout=60)
        held.release.set()
        output = log.read_text()
        assert "Resume with:" in output, output
        line = output.split("Resume with:", 1)[1].strip().splitlines()[0]
        # VENV= only when the venv under test is not make's default, this checkout's .venv
        other_venv = "" if venv.resolve() == (REPO / ".venv").resolve() else f" VENV={venv}"
        assert line == (
            f"make generate RUN={shlex.quote(str(run))} DATASET=demo MODELS=remote-test "
            f"LIMIT=4 ARGS=--no-progress{other_venv}"
        )
        assert "poemetric generate" not in output.split("Resume with:", 1)[1]
        # The printed line, as typed (the stamps kept, as above): it finishes the run.
        words = shlex.split(line)
        resumed = subprocess.run(
            [*words[:1], "-s", *KEEP_VENV, *words[1:]], cwd=REPO, env=env,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        # 4 jobs, of which the 2 answered before the stop were done before
        assert "│ remote-test │    4 │           2 │" in resumed.stdout, resumed.stdout


def test_an_unknown_judge_under_make_names_the_venvs_poemetric(tmp_path: Path) -> None:
    """`make judge JUDGE=typo` said "see `poemetric models --judges`", a command not on a make
    user's PATH (the venv is not activated)."""
    venv = _venv_under_test()
    done = subprocess.run(
        ["make", "-s", *KEEP_VENV, f"VENV={venv}", "judge", f"RUN={tmp_path / 'run'}",
         "JUDGE=gemini-2.5-pr"],
        cwd=REPO, capture_output=True, text=True, env={**os.environ, "COLUMNS": "400"},
    )  # fmt: skip
    assert done.returncode == 2
    assert f"see `{venv}/bin/poemetric models --judges`" in done.stderr, done.stderr
    assert "`poemetric models" not in done.stderr


def test_no_judge_lists_the_judges_with_every_folder_they_come_from(tmp_path: Path) -> None:
    """`judge` without a judge listed a judge of POEMETRIC_JUDGES_DIR under "Available judges
    (judges/)", a folder that does not hold it."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    mine = tmp_path / "my judges"
    mine.mkdir()
    (mine / "my-judge.yaml").write_text(
        "name: my-judge\nprovider: openai-compatible\nmodel: m\n"
        "base_url: http://127.0.0.1:8000/v1\napi_key_env: MY_KEY\n"
    )
    result = CliRunner().invoke(
        app,
        ["judge", "--run", str(tmp_path / "run")],
        env={"POEMETRIC_JUDGES_DIR": str(mine), "COLUMNS": "400", "POEMETRIC_JUDGE": ""},
    )
    assert result.exit_code == 2, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("Available judges"))
    assert line.startswith("Available judges (files in ") and str(mine) in line, line
    assert ", my-judge," in line or line.endswith(", my-judge"), line


def test_sigterm_to_make_stops_poemetric_and_make_waits_for_it(tmp_path: Path) -> None:
    """`kill MAKE_PID` (`nohup make generate ... &`, a scheduler signalling the job's shell):
    make passes SIGTERM to its child alone, which was the /bin/sh running poemetric. The shell
    died, make exited 143 at once and poemetric went on calling the provider, orphaned, with
    no word in the log. The recipe execs poemetric now: it gets the signal, stops as after any
    SIGTERM, and make's status is its own."""
    venv = _venv_under_test()
    held = HeldAfter(2)
    with OpenAIServer(held, api_key=TEST_KEY) as server:
        env = {
            **os.environ,
            TEST_KEY_ENV: TEST_KEY,
            "POEMETRIC_GENERATORS_DIR": str(model_dir(tmp_path, server.base_url)),
            "POEMETRIC_STOP_GRACE": "0.5",
        }
        log = tmp_path / "make.log"
        process = _make_generate(venv, tmp_path / "run", env, log)
        try:
            _wait_for_requests(server, 3)
            process.send_signal(signal.SIGTERM)  # make alone, as `kill PID` does
            # make ends by the signal once its child has (the shell, `sacct`: 143)
            assert process.wait(timeout=60) == -signal.SIGTERM
            output = log.read_text()
            assert "Interrupted by SIGTERM" in output, output
            assert "Resume with:\n  make generate" in output, output
            with pytest.raises(ProcessLookupError):  # nothing of the job is left running
                os.killpg(process.pid, 0)
        finally:
            held.release.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
