"""The repository's top level keeps the product's layout: a stray folder committed by accident
(an export written with `-o b` during a manual check once was) fails here, not in a user's clone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent

#: What the top level holds, and nothing else: the layout in the developers' brief plus the
#: project's own files (docs, benchmarks, CI, packaging, licence).
TOP_LEVEL = frozenset(
    {
        ".ci",
        ".gitignore",
        "CITATION.cff",
        "LICENSE",
        "Makefile",
        "README.md",
        "analysis",
        "bench",
        "datasets",
        "docs",
        "generators",
        "judges",
        "poemetric",
        "prompts",
        "pyproject.toml",
        "tests",
    }
)


def _tracked_files() -> list[str]:
    if shutil.which("git") is None or not (REPOSITORY / ".git").exists():
        pytest.skip("not a git checkout (an installed copy has no tracked files to check)")
    listing = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPOSITORY, capture_output=True, check=True
    )
    return [name for name in listing.stdout.decode().split("\0") if name]


def test_only_the_product_layout_is_tracked_at_the_top_level() -> None:
    top = {name.split("/", 1)[0] for name in _tracked_files()}
    assert top - TOP_LEVEL == set(), "tracked at the top level but not part of the layout"
