"""The Makefile's targets agree on the run directory, so they chain after `make demo`."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
STAGES = ("demo", "generate", "form", "judge", "analyze", "figures")


def _run_dirs(*variables: str) -> dict[str, str]:
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    dirs: dict[str, str] = {}
    for target in STAGES:
        # -n prints the commands; -o treats the install stamp as up to date so nothing is rebuilt
        out = subprocess.run(
            ["make", "-n", "-s", "-o", ".venv/bin/.installed", target, *variables],
            cwd=REPO, capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip
        match = re.search(r"poemetric \S+(?: \S+)? --run (\S+)", out)
        assert match, (target, out)
        dirs[target] = match.group(1)
    return dirs


def test_every_target_reads_the_run_the_demo_writes() -> None:
    assert set(_run_dirs().values()) == {"runs/demo"}


def test_run_follows_the_dataset_unless_given() -> None:
    assert set(_run_dirs("DATASET=poemetric").values()) == {"runs/poemetric"}
    assert set(_run_dirs("RUN=runs/x").values()) == {"runs/x"}
