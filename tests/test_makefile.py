"""The Makefile's targets agree on the run directory, so they chain after `make demo`."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
STAGES = ("demo", "generate", "form", "judge", "analyze", "figures", "report")


def _make(*args: str, venv: str = ".venv") -> subprocess.CompletedProcess[str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    # -o treats the install stamp as up to date so nothing is (re)installed
    return subprocess.run(
        ["make", "-s", "-o", f"{venv}/bin/.installed", f"VENV={venv}", *args],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip


def _options(target: str, *variables: str) -> dict[str, str]:
    """The options `make -n TARGET` gives poemetric, as the shell splits them."""
    done = _make("-n", target, *variables)
    assert done.returncode == 0, done.stderr
    words = shlex.split(done.stdout)
    return {w: words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("--")}


def _run_dirs(*variables: str) -> dict[str, str]:
    return {target: _options(target, *variables)["--run"] for target in STAGES}


def test_every_target_reads_the_run_the_demo_writes() -> None:
    assert set(_run_dirs().values()) == {"runs/demo"}


def test_run_follows_the_dataset_unless_given() -> None:
    assert set(_run_dirs("DATASET=poemetric").values()) == {"runs/poemetric"}
    assert set(_run_dirs("RUN=runs/x").values()) == {"runs/x"}


@pytest.mark.parametrize(
    ("target", "variable"),
    [("generate", "RUN"), ("generate", "DATASET"), ("generate", "MODELS"), ("analyze", "RUN"),
     ("analyze", "DATASET")],
)  # fmt: skip
def test_an_empty_variable_stops_with_a_clear_line(target: str, variable: str) -> None:
    done = _make("-n", target, f"{variable}=")
    assert done.returncode == 2
    # DATASET= empties RUN's default, so analyze names RUN
    assert f"{'RUN' if target == 'analyze' else variable} is empty: give " in done.stderr
    assert "poemetric" not in done.stdout
