"""Hatch build hook: a wheel or sdist built from a git checkout ships only what git tracks.

`only-include` names whole folders (poemetric/, prompts/, judges/, generators/, datasets/,
analysis/, docs/), and hatch takes every file in them that .gitignore does not name: a scratch
note in prompts/, a draft model file in judges/ or a page in docs/ that was never committed
shipped in the wheel (and `poemetric docs` listed the page). Such files, untracked and not
ignored, now stop the build with their names and what to do. Without git, or outside a checkout
of this project (a wheel built from the sdist), there is nothing to compare with: the build goes
on. An editable install copies nothing and is not checked. POEMETRIC_BUILD_UNTRACKED=1 builds
anyway, shipping them.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

ALLOW_ENV = "POEMETRIC_BUILD_UNTRACKED"
#: Names listed in the message; the count says how many more.
SHOWN = 20


def untracked_files(root: Path, paths: list[str], excluded: list[str]) -> list[str] | None:
    """The files under `paths` (relative to `root`) that git neither tracks nor ignores, less
    those whose name matches an `excluded` pattern (editor files hatch leaves out anyway); None
    where `root` is not the top of a git checkout or git cannot say."""
    if shutil.which("git") is None:
        return None
    try:
        top = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        if not top or Path(top).resolve() != root.resolve():
            return None  # an sdist unpacked inside some other repository
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--others", "--exclude-standard", "--", *paths],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout.decode("utf-8", "surrogateescape")
    except (OSError, subprocess.CalledProcessError):
        return None
    return [
        name
        for name in listed.split("\0")
        if name and not any(fnmatch.fnmatch(Path(name).name, pattern) for pattern in excluded)
    ]


class TrackedFilesOnly(BuildHookInterface):
    """Refuse to build a wheel or sdist that would ship untracked files (see the module)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if version == "editable" or os.environ.get(ALLOW_ENV, "").strip() == "1":
            return
        paths = list(self.build_config.only_include)  # the folders (and files) the target takes
        if not paths:
            return
        excluded = list(self.build_config.target_config.get("exclude", []))
        found = untracked_files(Path(self.root), paths, excluded)
        if not found:
            return
        shown = "\n".join(f"  {name}" for name in found[:SHOWN])
        more = f"\n  ... and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        raise SystemExit(
            f"error: the {self.target_name} would ship {len(found)} file(s) that git does not "
            f"track (nor ignore):\n{shown}{more}\n"
            "Commit them, delete them or name them in .gitignore (git status lists them); to "
            f"build with them all the same, set {ALLOW_ENV}=1."
        )
