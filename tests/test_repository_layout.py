"""The repository's top level keeps the product's layout: a stray folder committed by accident
(an export written with `-o b` during a manual check once was) fails here, not in a user's clone."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

import poemetric

REPOSITORY = Path(__file__).resolve().parent.parent

#: What the top level holds, and nothing else: the layout in the developers' brief plus the
#: project's own files (docs, benchmarks, CI, packaging, licence). The sdist holds the same
#: (pyproject.toml's `[tool.hatch.build.targets.sdist] only-include`).
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
        "hatch_build.py",
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


def _hatch_targets() -> dict[str, Any]:
    config = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    targets: dict[str, Any] = config["tool"]["hatch"]["build"]["targets"]
    return targets


def test_the_sdist_holds_the_layout_and_nothing_else() -> None:
    """The sdist took every file of the working tree that .gitignore does not name: an export
    folder, `.hypothesis/` (ignored by hypothesis's own .gitignore, which hatch does not read) or
    any other stray folder of the checkout shipped in it."""
    assert sorted(_hatch_targets()["sdist"]["only-include"]) == sorted(TOP_LEVEL)


def test_the_wheel_bundles_every_resource_folder_the_code_reads() -> None:
    """`paths.resource_root` of an installed copy is `poemetric/_resources`: each folder the code
    looks up there is copied into the wheel under that name, and so is docs/ (`paths.docs_dir`,
    the pages help texts and messages name, which a pip install did not have)."""
    from poemetric.paths import RESOURCE_DIRS

    wheel = _hatch_targets()["wheel"]
    folders = [*RESOURCE_DIRS, "docs"]
    assert wheel["sources"] == {kind: f"poemetric/_resources/{kind}" for kind in folders}
    assert sorted(wheel["only-include"]) == sorted(["poemetric", *folders])


def test_the_wheel_leaves_out_editor_files_in_the_resource_folders() -> None:
    """`force-include` copied every file of a resource folder, past every exclusion: an editor's
    swap or backup file in generators/ or judges/ (or a file .gitignore names) shipped in the
    wheel. `sources` keeps the exclusions; `exclude` names the editor files .gitignore may not."""
    wheel = _hatch_targets()["wheel"]
    assert "force-include" not in wheel
    assert {"*.swp", "*~"} <= set(wheel["exclude"])


def test_the_sdist_leaves_out_the_same_editor_files() -> None:
    """`only-include` names the top-level folders; an editor's swap or backup file inside one
    (`prompts/.judge.md.swp`, `generators/x.yaml~`: untracked, not in .gitignore) shipped in
    the sdist, checked by building it."""
    targets = _hatch_targets()
    assert set(targets["sdist"]["exclude"]) == set(targets["wheel"]["exclude"])


def test_the_version_is_the_same_in_the_package_its_metadata_and_the_citation() -> None:
    # Reports and run records carry `poemetric.__version__`; a paper cites CITATION.cff; pip
    # reads pyproject.toml. Nothing else keeps the three in step.
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    citation = re.search(
        r"^version:\s*['\"]?([^'\"\s]+)",
        (REPOSITORY / "CITATION.cff").read_text(encoding="utf-8"),
        re.MULTILINE,
    )
    assert citation is not None, "CITATION.cff has no version line"
    assert project["project"]["version"] == poemetric.__version__ == citation.group(1)


def test_the_package_metadata_links_the_paper_the_citation_names() -> None:
    """pyproject.toml had no `[project.urls]`: `pip show` and an index page linked nothing. Its
    one URL is the paper's, the one CITATION.cff and the README cite (no repository or
    documentation site is public yet, so none is named)."""
    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    cited = re.search(
        r"^\s+url:\s*['\"]?([^'\"\s]+)",
        (REPOSITORY / "CITATION.cff").read_text(encoding="utf-8"),
        re.MULTILINE,
    )
    assert cited is not None, "CITATION.cff names no URL of the paper"
    assert project["project"]["urls"] == {"Paper": cited.group(1)}
    assert f"url       = {{{cited.group(1)}}}" in (REPOSITORY / "README.md").read_text("utf-8")
