"""Compile a LaTeX file of the tables `analyze` writes with Debian's pdflatex (`.ci/run`
installs it): skipped where it is missing, a failure under CI."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import IN_CI


def pdflatex(folder: Path, name: str = "tables") -> str:
    """pdflatex `folder/name.tex`, which must compile; its log."""
    program = shutil.which("pdflatex")
    if program is None:
        message = "pdflatex is not installed (`apt-get install texlive-latex-recommended`)"
        if IN_CI:
            pytest.fail(message + "; .ci/run installs it")
        pytest.skip(message)
    result = subprocess.run(
        [program, "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"],
        cwd=folder, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    log = (folder / f"{name}.log").read_text(errors="replace")
    errors = [line for line in log.splitlines() if line.startswith("!")]
    assert result.returncode == 0, errors or log[-3000:]
    return log
