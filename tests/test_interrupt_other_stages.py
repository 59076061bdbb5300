"""After Ctrl-C, the note about another stage's open batches names the command that collects
them as this command was started: under make (POEMETRIC_MAKE=1) the make target and its
variables, as "Resume with:" does; it named a bare `poemetric`, which is not on a make user's
PATH. A run of another dataset than the demo names it: `generate` without it takes the demo
dataset, which the run refuses."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from test_runner_support import prepared_store

from poemetric.cli.interrupt import _other_stages_line, _run_dataset
from poemetric.hints import MAKE_ENV
from poemetric.pipeline import prepare_run
from poemetric.runner.batch_table import BatchRow
from poemetric.store.db import RunStore

#: The program as make runs it: a path, with a space, to a venv's `poemetric`.
MADE = "/opt/my tools/.venv/bin/poemetric"


def _row(stage: str, model: str, jobs: int) -> BatchRow:
    return BatchRow("batch_1", "openai", model, stage, "in_progress", jobs, {}, "")


def _note(run: Path, rows: list[BatchRow]) -> str:
    return " ".join(_other_stages_line(rows, run, _run_dataset(run)).split())


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """A run of the demo dataset and one of lear-limericks, in folders with a space."""
    demo, lear = tmp_path / "my runs" / "demo", tmp_path / "my runs" / "lear"
    prepared_store(demo, poems=1).close()
    with RunStore(lear) as store:
        prepare_run(store, "lear-limericks", limit=1)
    return demo, lear


def test_under_make_the_other_stages_command_is_the_make_target(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    demo, lear = runs
    monkeypatch.setenv(MAKE_ENV, "1")
    monkeypatch.setattr(sys, "argv", [MADE, "judge", "--run", str(lear), "--judge", "j"])
    venv = shlex.quote("/opt/my tools/.venv")
    generate = _note(lear, [_row("generations", "remote-test", 1)])
    assert (
        f"`make generate RUN={shlex.quote(str(lear))} DATASET=lear-limericks MODELS=remote-test "
        f"ARGS=--batch VENV={venv}` does, with the other options it was run with." in generate
    ), generate
    judge = _note(demo, [_row("judgments", "j1", 2), _row("judgments", "j2", 1)])
    assert (
        f"`make judge RUN={shlex.quote(str(demo))} JUDGE=j1,j2 ARGS=--batch VENV={venv}` does"
        in judge
    ), judge
    assert "poemetric generate" not in generate and "poemetric judge" not in judge


def test_without_make_the_command_names_the_runs_dataset(
    runs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    demo, lear = runs
    monkeypatch.delenv(MAKE_ENV, raising=False)
    rows = [_row("generations", "remote-test", 1)]
    assert (
        f"`poemetric generate --run {shlex.quote(str(lear))} --dataset lear-limericks --models "
        "remote-test --batch` does" in _note(lear, rows)
    )
    assert (  # the demo dataset is generate's default: as before
        f"`poemetric generate --run {shlex.quote(str(demo))} --models remote-test --batch` does"
        in _note(demo, rows)
    )
