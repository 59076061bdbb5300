"""Compile a LaTeX file of the tables `analyze` writes with Debian's pdflatex (`.ci/run`
installs it): skipped where it is missing, a failure under CI."""

from __future__ import annotations

import re
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


#: Preamble lines that log the printed height of every sideways float (`rotating` zeroes the
#: rotated box, so one taller than the text width it is turned into runs off the page without
#: any warning): `SIDEWAYS <height> IN <text width>`.
MEASURE_SIDEWAYS = r"""\usepackage{etoolbox}
\makeatletter
\newcommand\poemetricsideways{\typeout{SIDEWAYS
  \the\dimexpr\ht\rot@float@box+\dp\rot@float@box\relax\space IN \the\textwidth}}
\patchcmd{\end@rotdblfloat}{\stepcounter{r@tfl@t}}{\poemetricsideways\stepcounter{r@tfl@t}}{}
  {\PackageError{test}{rotating changed: cannot measure}{}}
\patchcmd{\end@rotfloat}{\stepcounter{r@tfl@t}}{\poemetricsideways\stepcounter{r@tfl@t}}{}
  {\PackageError{test}{rotating changed: cannot measure}{}}
\makeatother
"""


def sideways_heights(log: str) -> list[tuple[float, float]]:
    """(height, text width) in pt of each sideways float a `MEASURE_SIDEWAYS` document set."""
    found = re.findall(r"SIDEWAYS\s+([\d.]+)pt IN ([\d.]+)pt", log)
    return [(float(height), float(width)) for height, width in found]
