"""`POEMETRIC_GENERATORS_DIR` naming a model file instead of its folder said only "which is not
a directory"; it now says that it names the folder, with the line that does."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app


@pytest.mark.parametrize("kind", ["GENERATORS", "JUDGES"])
def test_a_model_file_instead_of_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    model = tmp_path / "my-models" / "mine.yaml"
    model.parent.mkdir()
    model.write_text("name: mine\nprovider: markov\nmodel: markov-ngram\n", encoding="utf-8")
    monkeypatch.setenv(f"POEMETRIC_{kind}_DIR", str(model))
    result = CliRunner().invoke(app, ["models", *(["--judges"] if kind == "JUDGES" else [])])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"error: POEMETRIC_{kind}_DIR names {model}, a file: it names the folder that holds the "
        f"model files (export POEMETRIC_{kind}_DIR={model.parent})"
    )


def test_a_missing_folder_is_still_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(tmp_path / "nope"))
    result = CliRunner().invoke(app, ["models"])
    assert result.exit_code == 2, result.output
    assert f"POEMETRIC_GENERATORS_DIR names {tmp_path / 'nope'}, which is not a directory" in (
        result.stderr
    )
