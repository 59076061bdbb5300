"""`poemetric report --layout`: one self-contained file, or a page with its poems in a folder beside
it (`index_files/`), `auto` choosing by the poems' size. Writing one layout over the other
leaves no stale folder, a folder of someone else's files is never replaced, and an interrupted
write leaves the earlier report whole. (The folder report in a browser:
test_report_browser_scale.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app
from poemetric.report.parts import SINGLE_FILE_LIMIT, Layout, chosen_layout


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("layout") / "run"
    with build_synthetic_run(folder, authors=("human", "model-a", "model-b"), poems_per_form=2):
        pass
    yield folder


def _report(run: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app, ["report", "--run", str(run), "--bootstrap", "0", *args], env={"COLUMNS": "400"}
    )
    return result.exit_code, result.output


def _page_and_files(page: Path) -> dict[str, bytes]:
    folder = page.with_name(f"{page.stem}_files")
    files = {f"{folder.name}/{f.name}": f.read_bytes() for f in folder.iterdir()} if (
        folder.is_dir()
    ) else {}  # fmt: skip
    return {page.name: page.read_bytes(), **files}


def test_auto_is_one_file_up_to_the_limit() -> None:
    assert chosen_layout("auto", 0) is chosen_layout("auto", SINGLE_FILE_LIMIT) is Layout.FILE
    assert chosen_layout("auto", SINGLE_FILE_LIMIT + 1) is Layout.FOLDER
    assert chosen_layout("file", 10 * SINGLE_FILE_LIMIT) is Layout.FILE
    assert chosen_layout("folder", 1) is Layout.FOLDER


def test_a_small_run_is_one_file_and_a_folder_report_is_asked_for(
    run: Path, tmp_path: Path
) -> None:
    page = tmp_path / "paper.html"
    code, output = _report(run, "--out", str(page))
    assert code == 0, output
    size = page.stat().st_size / 1e6
    assert output.strip() == f"wrote {page} ({size:.1f} MB); open it in a browser"
    assert [p.name for p in tmp_path.iterdir()] == ["paper.html"]
    one_file = page.read_text(encoding="utf-8")
    code, output = _report(run, "--out", str(page), "--layout", "folder")
    assert code == 0, output
    folder = tmp_path / "paper_files"
    names = sorted(f.name for f in folder.iterdir())
    assert names == ["browser-0.js"]  # a few prompts' poems: one file
    assert re.fullmatch(
        rf"wrote {re.escape(str(page))} \(0\.\d MB\) and its poems in {re.escape(str(folder))}/ "
        r"\(1 file, 0\.\d MB\); open paper\.html in a browser, and keep paper_files beside it "
        r"\(to send the report, zip the folder that holds both\)",
        output.strip(),
    ), output
    split = page.read_text(encoding="utf-8")
    assert "browser-part-" in one_file and "browser-part-" not in split
    assert len(split) < len(one_file)
    # One file again: the folder of the earlier folder report goes with it.
    code, output = _report(run, "--out", str(page), "--layout", "file")
    assert code == 0, output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["paper.html"]


def test_a_folder_of_other_files_is_never_replaced(run: Path, tmp_path: Path) -> None:
    """`--out page.html` beside a `page_files/` of a browser's "save page" (or anything not a
    report's) is refused before the report is built; the folder is left as it was."""
    page = tmp_path / "page.html"
    folder = tmp_path / "page_files"
    folder.mkdir()
    (folder / "app-1.js").write_text("console.log('mine')", encoding="utf-8")
    for layout in ("folder", "file"):
        code, output = _report(run, "--out", str(page), "--layout", layout)
        assert code == 2 and "is not this report's folder of poems" in output, output
        assert "give --out another name" in output
    assert not page.exists()
    assert [f.name for f in folder.iterdir()] == ["app-1.js"]


def test_an_interrupted_folder_report_leaves_the_earlier_one_whole(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = tmp_path / "index.html"
    code, output = _report(run, "--out", str(page), "--layout", "folder")
    assert code == 0, output
    before = _page_and_files(page)

    def interrupted(self: Path, data: str, *args: object, **kwargs: object) -> int:
        """Ctrl-C in the middle of writing the page (its part files are written)."""
        if data.startswith("<!DOCTYPE html>"):
            original(self, data[:1024], *args, **kwargs)
            raise KeyboardInterrupt
        return original(self, data, *args, **kwargs)

    original = Path.write_text
    monkeypatch.setattr(Path, "write_text", interrupted)
    for layout in ("folder", "file"):
        code, _ = _report(run, "--out", str(page), "--layout", layout)
        assert code != 0
        assert _page_and_files(page) == before
        assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html", "index_files"]


def test_a_folder_a_file_browser_has_shown_is_still_the_reports(run: Path, tmp_path: Path) -> None:
    """Finder's `.DS_Store` (Explorer's `Thumbs.db`) in `index_files/` made the folder "not
    this report's": the report could not be built again, nor a one-file one remove it."""
    page = tmp_path / "index.html"
    assert _report(run, "--out", str(page), "--layout", "folder")[0] == 0
    (tmp_path / "index_files" / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    (tmp_path / "index_files" / "Thumbs.db").write_bytes(b"\xd0\xcf")
    code, output = _report(run, "--out", str(page), "--layout", "folder")
    assert code == 0, output
    assert not (tmp_path / "index_files" / ".DS_Store").exists()
    code, output = _report(run, "--out", str(page), "--layout", "file")
    assert code == 0, output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]


def test_a_failed_swap_puts_the_earlier_folder_back(
    run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The earlier folder was moved aside, then deleted although the new one never took its
    place (a folder open in Windows Explorer refuses the rename): the old page lost its poems."""
    import os

    page = tmp_path / "index.html"
    assert _report(run, "--out", str(page), "--layout", "folder")[0] == 0
    before = _page_and_files(page)
    original = os.replace

    def refused(source: object, target: object) -> None:
        if Path(str(source)).name.startswith(".index_files.") and not str(source).endswith(".old"):
            raise PermissionError(13, "the folder is in use", str(target))
        original(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", refused)
    code, _ = _report(run, "--out", str(page), "--layout", "folder")
    assert code != 0
    assert _page_and_files(page) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html", "index_files"]
