"""The CLI starts without the heavy libraries: each command imports what it uses (issue 11)."""

from __future__ import annotations

import subprocess
import sys

from poemetric.cli import form_cmd
from poemetric.form.checker import DEFAULT_THRESHOLD

HEAVY = ("pandas", "scipy", "matplotlib", "pyarrow", "httpx", "numpy", "pronouncing")


def test_cli_import_loads_no_heavy_library() -> None:
    code = (
        f"import sys, poemetric.cli.app\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "", f"`import poemetric.cli.app` loads {loaded}"


def test_form_check_imports_no_analysis_library() -> None:
    code = (
        "import sys\n"
        "from poemetric.form.io import check_file\n"
        "print(','.join(m for m in ('pandas', 'scipy', 'matplotlib', 'pyarrow', 'httpx') "
        "if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "", f"the form check loads {loaded}"


def test_cli_threshold_default_matches_the_checker() -> None:
    assert form_cmd.DEFAULT_THRESHOLD == DEFAULT_THRESHOLD
