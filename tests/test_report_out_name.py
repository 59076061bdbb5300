"""`poemetric report --out r.pdf` wrote the HTML page into a file named .pdf without a word (a
PDF viewer could not open it); an --out not named .html or .htm is now refused before any
work."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.cli import app


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("out-name") / "run"
    with build_synthetic_run(folder, authors=("human", "model-a"), poems_per_form=1):
        pass
    return folder


def _report(run: Path, out: Path) -> tuple[int, str]:
    args = ["report", "--run", str(run), "--bootstrap", "0", "--out", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("name", "what", "instead"),
    [("r.pdf", ", not a .pdf file", "r.html"), ("report", "", "report.html")],
)
def test_an_out_not_named_html_is_refused(
    run: Path, tmp_path: Path, name: str, what: str, instead: str
) -> None:
    out = tmp_path / name
    code, output = _report(run, out)
    assert code == 2
    assert output.strip() == (
        f"error: --out {out}: the report is an HTML page{what}; give a name ending in .html or "
        f".htm, e.g. {tmp_path / instead}"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["r.html", "R.HTM"])
def test_an_html_name_is_written(run: Path, tmp_path: Path, name: str) -> None:
    code, output = _report(run, tmp_path / name)
    assert code == 0, output
    assert (tmp_path / name).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
