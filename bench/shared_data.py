"""The data beside the checkout (../shared/data) that some benchmarks read; never committed.

A benchmark whose input is missing exits with `SKIPPED` after saying which file it needs, and
`run_all.py` reports it as skipped rather than failed: a fresh clone elsewhere still runs the rest.
"""

from __future__ import annotations

import sys
from pathlib import Path

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
#: The exit status automake and pytest-style runners use for "skipped".
SKIPPED = 77


def require(path: Path) -> Path:
    """`path` when it is a file; otherwise say what is missing and exit with `SKIPPED`."""
    if path.is_file():
        return path
    print(
        f"skipped: {path} not found (the shared data lives in ../shared/data beside the checkout;"
        " see its README)",
        file=sys.stderr,
    )
    raise SystemExit(SKIPPED)
