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


@pytest.mark.parametrize("saved_as", ["mine.yaml.txt", "mine.YAML", "mine.json"])
def test_a_model_file_saved_under_a_suffix_the_roster_skips_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, saved_as: str
) -> None:
    """`mine.yaml.txt` (an editor's added suffix), `mine.YAML` or `mine.json` in the user's folder
    is not read, and `--models mine` said only "unknown model or group 'mine'"."""
    folder = tmp_path / "my-models"
    folder.mkdir()
    (folder / saved_as).write_text("name: mine\nprovider: markov\nmodel: m\n", encoding="utf-8")
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    hint = (
        f"({folder / saved_as} is not read: a model file is NAME.yaml or NAME.yml, in lower case; "
        f"rename it {folder / 'mine.yaml'})"
    )
    runs = tmp_path / "runs" / "x"
    generate = ["generate", "--run", str(runs), "--dataset", "demo", "--models", "mine"]
    for command in (["models", "show", "mine"], [*generate, "--dry-run"]):
        result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
        assert result.exit_code == 2, result.output
        assert hint in result.stderr, result.stderr
    assert not runs.exists()
    (folder / saved_as).rename(folder / "mine.yaml")
    result = CliRunner().invoke(app, ["models", "show", "mine"])
    assert result.exit_code == 0 and "is not read" not in result.output


def test_a_groups_file_saved_as_groups_yml_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Model files may end in .yml, but a `groups.yml` was skipped without a word: its groups
    were "unknown model or group"."""
    folder = tmp_path / "my-models"
    folder.mkdir()
    (folder / "mine.yml").write_text("name: mine\nprovider: markov\nmodel: m\n", encoding="utf-8")
    (folder / "groups.yml").write_text("pair: [mine, markov]\n", encoding="utf-8")
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    runs = tmp_path / "runs" / "x"
    command = ["generate", "--run", str(runs), "--dataset", "demo", "--models", "pair"]
    result = CliRunner().invoke(app, [*command, "--dry-run"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert (
        f"({folder / 'groups.yml'} is not read: groups are read from groups.yaml alone; rename "
        f"it {folder / 'groups.yaml'})"
    ) in result.stderr
    assert not runs.exists()
