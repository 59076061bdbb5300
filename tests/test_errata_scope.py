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


def make_unreadable(path: Path, kind: str) -> None:
    """`path` that cannot be opened, as root too (chmod 000 does not stop root): a folder at
    the file's path, or a link to a file that is gone."""
    path.parent.mkdir(exist_ok=True)
    if kind == "folder":
        path.mkdir()
    else:
        path.symlink_to(path.parent / "moved-away.yaml")


def remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        path.rmdir()


@pytest.mark.parametrize("kind", ["folder", "dangling link"])
def test_an_unopenable_errata_file_stops_only_its_own_dataset(home: Path, kind: str) -> None:
    """It stopped every command (no telling whose it was), or, a folder or dangling link, was
    taken for no errata: the dataset's own commands went on without them, without a word."""
    path = home / "datasets" / "demo" / "errata.yaml"
    reason = (
        "a folder, not a file" if kind == "folder" else "cannot read: No such file or directory"
    )
    make_unreadable(path, kind)
    try:
        done = poemetric(home, "dataset", "show", "demo", "--limit", "1")
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"error: {path}: {reason}\n")
        other = poemetric(home, "dataset", "show", "lear-limericks", "--limit", "1")
        assert other.returncode == 0 and "errata" not in other.stderr, other.stderr
        listed = poemetric(home, "dataset", "list")
        assert listed.returncode == 0 and f"  {path}: {reason}" in listed.stdout.splitlines()
    finally:
        remove(path)


def test_an_unopenable_errata_file_of_an_unregistered_dataset_is_found_by_its_folder(
    home: Path, tmp_path: Path
) -> None:
    """`datasets/yours/errata.yaml` is the errata of `yours.csv`: that file's commands stop on
    it, the others go on (its bytes cannot be read to see which file it names)."""
    path = home / "datasets" / "yours" / "errata.yaml"
    yours = tmp_path / "yours.csv"
    yours.write_bytes((home / "datasets" / "demo" / "poems.csv").read_bytes())
    make_unreadable(path, "folder")
    try:
        done = poemetric(home, "dataset", "show", str(yours), "--limit", "1")
        assert done.returncode == 2 and done.stderr == f"error: {path}: a folder, not a file\n"
        for dataset in ("demo", "lear-limericks"):
            other = poemetric(home, "dataset", "show", dataset, "--limit", "1")
            assert other.returncode == 0 and "errata" not in other.stderr, other.stderr
    finally:
        remove(path)
        path.parent.rmdir()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_errata_file_without_read_permission_names_the_reason(home: Path) -> None:
    path = home / "datasets" / "demo" / "errata.yaml"
    path.write_text(f"release_sha256: {DEMO_SHA}\nerrata: []\n", encoding="utf-8")
    path.chmod(0)
    try:
        done = poemetric(home, "dataset", "show", "demo", "--limit", "1")
        assert done.stderr == f"error: {path}: cannot read: Permission denied\n"
        assert poemetric(home, "dataset", "show", "lear-limericks").returncode == 0
    finally:
        path.chmod(0o644)
        path.unlink()
