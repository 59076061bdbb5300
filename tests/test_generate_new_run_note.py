"""`generate --run runs/papr` for a run `runs/paper` made a new run without a word, and asked
every model again for every poem, paid a second time (stored answers and the response cache are
the run's own). A new run whose name is close to a run beside it is now noted, with the option
that names that run; a series (`runs/part2` beside `runs/part1`), a variant (`runs/paper-v2`,
`runs/paper-pilot` beside `runs/paper`) and an existing run are not."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

NOTE = "is a new run (it holds no run store yet)"


def _generate(run: str) -> str:
    args = ["generate", "--run", run, "--models", "markov", "--limit", "1", "--dry-run"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("paper", "part1"):
        RunStore(Path("runs") / name, create=True).close()
    return tmp_path / "runs"


@pytest.mark.parametrize("typed", ["papr", "pape", "apper"])
def test_a_new_run_named_like_a_run_beside_it_is_noted(runs: Path, typed: str) -> None:
    output = _generate(f"runs/{typed}")
    assert (
        f"note: runs/{typed} {NOTE}; the run runs/paper beside it has a close name: to go on "
        "with that run, give --run runs/paper"
    ) in output
    assert not (runs / typed).exists()  # a dry run still makes nothing


@pytest.mark.parametrize("run", ["runs/paper", "runs/part2", "runs/poems-v1", "runs/new"])
def test_no_note_for_an_existing_run_a_series_or_another_name(runs: Path, run: str) -> None:
    assert NOTE not in _generate(run)


@pytest.mark.parametrize(
    "run", ["runs/paper-v2", "runs/paper_v3", "runs/paperv2", "runs/paper-pilot", "runs/paper.old"]
)
def test_no_note_for_a_variant_of_a_run_beside_it(runs: Path, run: str) -> None:
    """`runs/paper-v2` beside `runs/paper` was noted as a close name "to go on with that run":
    a version, a number or a suffix set off by `-`, `_`, `.` names a new run on purpose."""
    assert NOTE not in _generate(run)


@pytest.mark.parametrize("typed", ["paper-", "papr-v2", "paperr"])
def test_a_mistyped_variant_is_still_noted(runs: Path, typed: str) -> None:
    assert f"note: runs/{typed} {NOTE}" in _generate(f"runs/{typed}")


def test_the_note_is_printed_when_the_run_is_made(runs: Path) -> None:
    args = ["generate", "--run", "runs/papr", "--models", "markov", "--limit", "1"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert f"note: runs/papr {NOTE}" in result.output
    again = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert NOTE not in again.output  # the run now exists: resumed without a note
