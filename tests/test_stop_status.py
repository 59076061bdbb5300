"""The exit status after Ctrl-C or SIGTERM is 130 or 143 under both entry points, also when the
signal lands in code run by `exec` of a string (a dataclass being created during a command's
late import): CPython's `-m` path then remembered a KeyboardInterrupt the command had handled,
and ended the process by SIGINT after the command had printed "Interrupted by SIGTERM."
(poemetric.cli.app.main). Real processes, real signals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Loaded at the command's start (PYTHONPATH): loading the command sends the signal from code
#: run by `exec(str)`, as dataclasses creates a class's methods, and the handler's
#: KeyboardInterrupt leaves that code.
SITECUSTOMIZE = """
import importlib
import os
import signal

app = importlib.import_module("poemetric.cli.app")  # poemetric.cli's `app` is the Typer app

SIGNAL = signal.Signals[os.environ["POEMETRIC_TEST_SIGNAL"]]
_load = app._load


def load_when_stopped(name):
    exec(
        "import os, time\\nos.kill(os.getpid(), SIGNAL)\\ntime.sleep(30)",
        {"SIGNAL": SIGNAL},
    )
    return _load(name)


app._load = load_when_stopped
"""

SCRIPT = Path(sys.executable).parent / "poemetric"


def entry_points() -> list[list[str]]:
    """`python -m poemetric`, and the installed `poemetric` script where there is one."""
    found = [[sys.executable, "-m", "poemetric"]]
    if SCRIPT.exists():
        found.append([str(SCRIPT)])
    return found


@pytest.mark.usefixtures("ctrl_c_from_a_terminal")
@pytest.mark.parametrize("command", entry_points(), ids=lambda c: "-m" if "-m" in c else "script")
@pytest.mark.parametrize(("stop", "status"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_a_signal_landing_in_exec_code_still_exits_with_the_stop_status(
    tmp_path: Path, command: list[str], stop: str, status: int
) -> None:
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(hook), str(ROOT)]),
        "POEMETRIC_TEST_SIGNAL": stop,
        "OMP_NUM_THREADS": "1",
    }
    result = subprocess.run(
        [*command, "models"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # Not -2 (ended by SIGINT, the shell's 130 too, but after a SIGTERM the scheduler's log
    # says "interrupt" where the command said SIGTERM), nor 130 after SIGTERM.
    assert result.returncode == status, (result.returncode, result.stderr)
    if stop == "SIGTERM":
        assert "Interrupted by SIGTERM." in result.stderr
    assert "Traceback" not in result.stderr
