"""A broken `errata.yaml` stops only the commands on its own dataset. Errata are found by the
dataset file's sha256, reading every dataset's errata file, so one broken file (a `$POEMETRIC_HOME`
copy being edited) stopped `dataset show`, `form run` and `analyze` of every dataset."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.paths import RESOURCE_DIRS, resource_root

DEMO_SHA = "2fa1e65b66c15aabcacef8e54cafb58f393977dab4a2fe1ce58b29eda711d50e"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the resources ($POEMETRIC_HOME) whose poemetric errata and an unregistered
    dataset's errata are broken."""
    folder = tmp_path_factory.mktemp("home")
    for kind in RESOURCE_DIRS:
        shutil.copytree(resource_root() / kind, folder / kind)
    errata = folder / "datasets" / "poemetric" / "errata.yaml"
    errata.write_text(errata.read_text(encoding="utf-8").replace("  - row: 124", "  - row: x"))
    (folder / "datasets" / "mine").mkdir()
    (folder / "datasets" / "mine" / "errata.yaml").write_text("release_sha256: [\n")
    return folder


def poemetric(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "poemetric", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400", "POEMETRIC_HOME": str(home)},
    )


def test_another_datasets_broken_errata_stop_nothing(home: Path, tmp_path: Path) -> None:
    run = str(tmp_path / "run")
    generate = ["generate", "--run", run, "--dataset", "demo", "--models", "markov", "--limit", "2"]
    assert CliRunner().invoke(app, [*generate, "--no-progress"]).exit_code == 0
    for args in (["dataset", "show", "demo", "--limit", "1"],
                 ["form", "run", "--run", run, "--no-progress"],
                 ["analyze", "--run", run]):  # fmt: skip
        done = poemetric(home, *args)
        assert done.returncode == 0 and "errata" not in done.stderr, (args, done.stderr)
    listed = poemetric(home, "dataset", "list")
    assert listed.returncode == 0, listed.stderr
    poemetric_errata = home / "datasets" / "poemetric" / "errata.yaml"
    assert listed.stdout.splitlines()[-3:] == [
        "errata that cannot be read (a command on that dataset stops until it is fixed):",
        f"  {home / 'datasets' / 'mine' / 'errata.yaml'}:2: invalid YAML: expected the node "
        "content, but found '<stream end>'",
        f"  {poemetric_errata}:15: errata[0].row: 'x' is not a whole number",
    ]


@pytest.mark.parametrize("folder", ["demo", "mine-too"])
def test_the_datasets_own_broken_errata_stop_its_commands(home: Path, folder: str) -> None:
    """Its own: in the registered dataset's folder, or naming the file's sha256 in another."""
    path = home / "datasets" / folder / "errata.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"release_sha256: {DEMO_SHA}\nerrata: []\nnotes: x\n", encoding="utf-8")
    try:
        done = poemetric(home, "dataset", "show", "demo", "--limit", "1")
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == (
            f"error: {path}:3: notes: unknown key 'notes'; allowed: errata, release_sha256\n"
        )
        assert poemetric(home, "dataset", "show", "lear-limericks").returncode == 0
    finally:
        path.unlink()
