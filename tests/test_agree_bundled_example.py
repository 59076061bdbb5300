"""`poemetric agree docs/examples/krippendorff-2011.csv`, the example of `agree --help` and
docs/agreement.md, worked only from a checkout's root: a pip-installed POEMetric has no docs/.
The example ships inside the package and `agree krippendorff-2011` reads it from anywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import poemetric
from poemetric.cli import app
from poemetric.reliability.io import EXAMPLES

runner = CliRunner()


@pytest.mark.parametrize("name", ["krippendorff-2011", "krippendorff-2011.csv"])
def test_the_bundled_example_is_read_by_name_outside_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.chdir(tmp_path)  # no docs/ here, as for an installed user
    args = ["agree", name, "--na", "none", "--format", "json", "--bootstrap", "0"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    overall = json.loads(result.output)["overall"]
    assert round(overall["alpha_nominal"]["estimate"], 3) == 0.743
    assert overall["n_units"] == 12 and overall["n_raters"] == 4


def test_the_example_is_a_file_of_the_package_and_the_help_names_it() -> None:
    """Inside `poemetric/` (the wheel's one package), not in docs/, which no wheel has."""
    package = Path(poemetric.__file__).resolve().parent
    assert (EXAMPLES / "krippendorff-2011.csv").is_file()
    assert EXAMPLES.is_relative_to(package)
    out = runner.invoke(app, ["agree", "--help"], env={"COLUMNS": "200"}).output
    assert "poemetric agree krippendorff-2011 --na none" in out
    assert "docs/examples" not in out


def test_a_name_that_is_neither_a_file_nor_an_example_is_still_no_such_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["agree", "krippendorff-2012"])
    assert result.exit_code == 2
    assert "error: ratings file krippendorff-2012: no such file" in result.output
