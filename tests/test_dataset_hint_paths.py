"""A hint that names a run's own dataset file (`--dataset data/poems.csv`) printed the path as
typed when the run was made, relative to the folder that command ran in: run from another
folder, the suggested command did not find the file. The path now works from where the user
is: relative to the current folder when the file is inside it, else absolute."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.data import load_dataset, write_dataset


def generate(run: str, *dataset: str) -> str:
    """`generate` of markov on `run`'s first poem; its error (stderr) when it is refused."""
    result = CliRunner().invoke(
        app,
        ["generate", "--run", run, *dataset, "--models", "markov", "--limit", "1", "--no-progress"],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == (2 if not dataset else 0), result.output
    return result.stderr


def own_dataset_hint(error: str) -> str:
    """The path the refusal of a run's other dataset tells the user to give."""
    return error.split("give it its own: --dataset ", 1)[1].split(" (without --dataset", 1)[0]


def test_the_runs_dataset_is_named_from_where_the_user_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    write_dataset(load_dataset("demo").poems[:2], project / "data" / "mine.csv")
    monkeypatch.chdir(project)
    generate("runs/mine", "--dataset", "data/mine.csv")  # typed relative to project/
    # without --dataset: the bundled demo, which the run refuses, naming its own dataset
    assert own_dataset_hint(generate("runs/mine")) == "data/mine.csv"
    monkeypatch.chdir(tmp_path)  # the folder above: relative to it
    assert own_dataset_hint(generate("project/runs/mine")) == "project/data/mine.csv"
    monkeypatch.chdir(project / "runs")  # a folder the file is not in: absolute
    assert own_dataset_hint(generate("mine")) == str(project / "data" / "mine.csv")


def test_a_run_recorded_with_the_typed_path_only_finds_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run made before the absolute path was recorded: the file is looked for from the
    current folder, then from each folder above the run (where the run was made from)."""
    project = tmp_path / "project"
    (project / "data").mkdir(parents=True)
    write_dataset(load_dataset("demo").poems[:2], project / "data" / "mine.csv")
    monkeypatch.chdir(project)
    generate("runs/mine", "--dataset", "data/mine.csv")
    with sqlite3.connect(project / "runs" / "mine" / "poemetric.sqlite") as db:
        (value,) = db.execute("SELECT value FROM meta WHERE key = 'dataset'").fetchone()
        recorded = json.loads(value)
        assert recorded.pop("absolute") == str(project / "data" / "mine.csv")
        db.execute("UPDATE meta SET value = ? WHERE key = 'dataset'", (json.dumps(recorded),))
    monkeypatch.chdir(project / "runs")
    assert own_dataset_hint(generate("mine")) == str(project / "data" / "mine.csv")
