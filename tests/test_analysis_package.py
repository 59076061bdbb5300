"""`poemetric.analysis` imports its names on first use: each still imports, and `dir()` lists
them (it listed only the imported ones, so a shell's completion missed `analyze_run`)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
import poemetric.analysis as analysis
listed = dir(analysis)
assert set(analysis.__all__) <= set(listed), sorted(set(analysis.__all__) - set(listed))
assert "matplotlib" not in sys.modules  # nothing heavy before a name is used
for name in analysis.__all__:
    getattr(analysis, name)
from poemetric.analysis import *  # noqa: F403
print("ok")
"""


def test_every_exported_name_is_listed_and_imports() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=False, timeout=120
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
