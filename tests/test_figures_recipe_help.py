"""`figures --help` named the recipes 'paper' and 'rule-based' from a list kept by hand, not
`judge-overview`, the third recipe in analysis/; the list now comes from the folder itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.paths import RESOURCE_DIRS, resource_path


def _recipe_help(output: str) -> str:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip("│ ").startswith("--recipe"))
    return " ".join(line.strip("│ ") for line in lines[start : start + 3])


def test_figures_help_lists_every_bundled_recipe() -> None:
    result = CliRunner().invoke(app, ["figures", "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    recipes = sorted(path.stem for path in resource_path("analysis").glob("*.yaml"))
    assert "judge-overview" in recipes
    assert f"Bundled recipe from analysis/ ({', '.join(recipes)})" in _recipe_help(result.output)


def test_a_recipe_added_to_analysis_is_in_the_help(tmp_path: Path) -> None:
    """A new recipe file is listed without touching the command."""
    home = tmp_path / "home"
    for kind in RESOURCE_DIRS:
        if kind != "analysis":
            (home / kind).parent.mkdir(parents=True, exist_ok=True)
            (home / kind).symlink_to(resource_path(kind), target_is_directory=True)
    shutil.copytree(resource_path("analysis"), home / "analysis")
    shutil.copy(home / "analysis" / "paper.yaml", home / "analysis" / "my-own.yaml")
    env = {**os.environ, "POEMETRIC_HOME": str(home), "COLUMNS": "300"}
    done = subprocess.run(
        [sys.executable, "-m", "poemetric", "figures", "--help"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert "(judge-overview, my-own, paper, rule-based)" in _recipe_help(done.stdout)
