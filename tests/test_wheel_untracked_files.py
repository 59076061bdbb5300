"""A wheel or sdist built from a git checkout ships only tracked files (hatch_build.py): an
untracked scratch note in prompts/ or a draft model in judges/ shipped in the wheel, under
poemetric/_resources. The build now stops and names them; a clean checkout, and a copy without
git (an unpacked sdist), build as before. Checked by building with pip, as a user does."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _git(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _copy_of_the_tracked_files(into: Path, *, with_git: bool = True) -> Path:
    """The checkout's tracked files as they are in the working tree, in a new repository
    (committed) at `into`, or without git."""
    if shutil.which("git") is None or not (REPOSITORY / ".git").exists():
        pytest.skip("not a git checkout")
    names = [n for n in _git("ls-files", "-z", cwd=REPOSITORY).split("\0") if n]
    for name in names:
        source = REPOSITORY / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    if with_git:
        _git("init", "-q", ".", cwd=into)
        _git("add", "-A", cwd=into)
        _git("commit", "-q", "-m", "copy", cwd=into)
    return into


def _build_wheel(project: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(project)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _wheel_names(out: Path) -> list[str]:
    (wheel,) = out.glob("poemetric-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_untracked_files_in_the_resource_folders_stop_the_build(tmp_path: Path) -> None:
    project = _copy_of_the_tracked_files(tmp_path / "checkout")
    (project / "prompts" / "scratch-notes.txt").write_text("my notes\n", encoding="utf-8")
    (project / "judges" / "old").mkdir()
    (project / "judges" / "old" / "draft.yaml").write_text("name: draft\n", encoding="utf-8")
    (project / "generators" / ".markov.yaml.swp").write_bytes(b"swap")  # left out anyway
    done = _build_wheel(project, tmp_path / "dist")
    assert done.returncode != 0
    assert "would ship 2 file(s) that git does not track" in done.stderr, done.stderr
    assert "judges/old/draft.yaml" in done.stderr and "prompts/scratch-notes.txt" in done.stderr
    assert ".swp" not in done.stderr
    assert not list((tmp_path / "dist").glob("*.whl"))


def test_a_clean_checkout_and_a_copy_without_git_build(tmp_path: Path) -> None:
    """A clean checkout (an editor's swap file, which the wheel leaves out, does not count), and
    a copy without git placed inside another repository, as an unpacked sdist may be: nothing
    there is the project's to compare with."""
    project = _copy_of_the_tracked_files(tmp_path / "checkout")
    (project / "prompts" / ".generation.jinja.swp").write_bytes(b"swap")
    assert _build_wheel(project, tmp_path / "dist").returncode == 0
    names = _wheel_names(tmp_path / "dist")
    assert "poemetric/_resources/prompts/generation.jinja" in names
    assert not any(name.endswith(".swp") for name in names)

    other = tmp_path / "elsewhere"
    other.mkdir()
    _git("init", "-q", ".", cwd=other)
    unpacked = _copy_of_the_tracked_files(other / "poemetric-0.1.0", with_git=False)
    (unpacked / "prompts" / "notes.txt").write_text("shipped: no git to ask\n", encoding="utf-8")
    done = _build_wheel(unpacked, tmp_path / "dist2")
    assert done.returncode == 0, done.stderr
    assert "poemetric/_resources/prompts/notes.txt" in _wheel_names(tmp_path / "dist2")
