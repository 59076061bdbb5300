"""Help texts, messages, figure captions and the report name pages as `docs/NAME.md`, which a
pip install did not have (the wheel carried no docs/): a user of the installed command could
follow none of them. The wheel now carries docs/ and `poemetric docs NAME` prints a page
wherever POEMetric is installed; every page named anywhere in the package is one it finds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import poemetric
import poemetric.paths
from poemetric.cli import app
from poemetric.paths import RESOURCE_DIRS, installed_root

PACKAGE = Path(poemetric.__file__).resolve().parent
NAMED = re.compile(r"docs/([a-z0-9_-]+)\.md")  # not the placeholder NAME


def _texts() -> list[Path]:
    """The package's code and templates, and the bundled resource folders' text files: where
    help texts, messages, captions and the report's words are written."""
    files = [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.j2")]
    for kind in RESOURCE_DIRS:
        files += [p for p in (installed_root() / kind).rglob("*") if p.suffix in {".md", ".yaml"}]
    return files


def _named_pages() -> dict[str, list[str]]:
    """docs page name -> the files that name it."""
    named: dict[str, list[str]] = {}
    for path in _texts():
        for name in NAMED.findall(path.read_text(encoding="utf-8", errors="replace")):
            named.setdefault(name, []).append(path.name)
    return named


def test_every_docs_page_the_package_names_is_one_poemetric_docs_prints() -> None:
    named = _named_pages()
    assert {"running", "agreement", "models", "ghostwriting"} <= set(named), sorted(named)
    runner = CliRunner()
    for name, where in sorted(named.items()):
        result = runner.invoke(app, ["docs", f"docs/{name}.md", "--path"])
        assert result.exit_code == 0, (name, where, result.output)
        page = Path(result.stdout.strip())
        assert page.is_file() and page.name == f"{name}.md", (name, where, result.stdout)


def test_poemetric_docs_prints_a_page_and_lists_them() -> None:
    runner = CliRunner()
    page = runner.invoke(app, ["docs", "running"])
    assert page.exit_code == 0, page.output
    assert page.stdout == (installed_root() / "docs" / "running.md").read_text(encoding="utf-8")
    listing = runner.invoke(app, ["docs"])
    assert listing.exit_code == 0, listing.output
    assert "docs/agreement.md" in listing.stdout and "docs/survey.md" in listing.stdout
    unknown = runner.invoke(app, ["docs", "runing.md"])
    assert unknown.exit_code == 2
    assert "unknown page 'runing' (did you mean 'running'" in unknown.output


def test_an_installed_copy_reads_the_pages_from_its_resources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed, the pages are the wheel's poemetric/_resources/docs (pyproject.toml's wheel
    `sources`, tests/test_repository_layout.py), not $POEMETRIC_HOME's."""
    resources = tmp_path / "_resources"
    (resources / "docs").mkdir(parents=True)
    (resources / "docs" / "running.md").write_text("# Running, as installed\n", encoding="utf-8")
    monkeypatch.setattr(poemetric.paths, "installed_root", lambda: resources)
    monkeypatch.setenv("POEMETRIC_HOME", str(tmp_path / "home"))
    result = CliRunner().invoke(app, ["docs", "docs/running.md"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "# Running, as installed\n"
