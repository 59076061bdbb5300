"""`generate --run runs/demo/analysis` (a folder inside a run) made a new run inside the run and
generated into it without a word, where every command that reads a run names the run above.
`generate` and `demo` now refuse to start a run inside a run, naming the run above with the
command that goes on with it and a folder beside it for a new run; nothing is made. A run that
already is inside a run (made before) is resumed."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

ENV = {"COLUMNS": "400"}


def _invoke(*args: str, env: dict[str, str] = ENV) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env=env)
    return result.exit_code, " ".join(result.output.split())


@pytest.fixture
def demo_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    code, output = _invoke("generate", "--run", "runs/demo", "--models", "markov", "--limit", "1")
    assert code == 0, output
    return Path("runs/demo")


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_generate_into_a_folder_inside_a_run_is_refused(demo_run: Path, dry_run: list[str]) -> None:
    code, output = _invoke(
        "generate", "--run", "runs/demo/analysis", "--models", "markov", "--limit", "1", *dry_run
    )
    assert code == 2, output
    assert (
        "error: --run runs/demo/analysis is inside the run runs/demo (the folder that holds its "
        "poemetric.sqlite): a new run there would be a run inside that run. To go on with that "
        "run: `poemetric generate --run runs/demo --dataset demo`; for a new run, name a folder "
        "outside it, such as --run runs/demo-analysis"
    ) in output
    assert not (demo_run / "analysis").exists()


def test_deeper_inside_and_under_make(demo_run: Path) -> None:
    env = {**ENV, "POEMETRIC_MAKE": "1"}
    code, output = _invoke("generate", "--run", "runs/demo/a/b", "--models", "markov", env=env)
    assert code == 2, output
    assert "To go on with that run: `make generate RUN=runs/demo DATASET=demo`" in output
    assert "such as RUN=runs/demo-a-b" in output
    assert not (demo_run / "a").exists()


def test_from_inside_a_run_without_run(demo_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(demo_run)
    code, output = _invoke("generate", "--models", "markov", "--limit", "1")
    assert code == 2, output
    assert "--run runs/default is inside the run . " in output
    assert "such as --run ../demo-runs-default" in output
    assert not Path("runs").exists()


def test_from_a_folder_inside_a_run_without_run(
    demo_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From `runs/demo/analysis` the default `runs/default` was searched up to `.` only (a
    relative path's parents end there): `generate` made runs/demo/analysis/runs/default, a run
    inside the run, and `analyze` named no run."""
    (demo_run / "analysis").mkdir()
    monkeypatch.chdir(demo_run / "analysis")
    code, output = _invoke("generate", "--models", "markov", "--limit", "1")
    assert code == 2, output
    assert (
        "--run runs/default is inside the run .. (the folder that holds its poemetric.sqlite)"
    ) in output
    assert "`poemetric generate --run .. --dataset demo`" in output
    assert "such as --run ../../demo-analysis-runs-default" in output
    assert not Path("runs").exists()
    code, output = _invoke("analyze")
    assert code == 2, output
    assert "the folder .. above it is a run: --run .." in output


def test_demo_inside_a_run_is_refused(demo_run: Path) -> None:
    code, output = _invoke("demo", "--run", "runs/demo/sub")
    assert code == 2, output
    assert "To go on with that run: `poemetric demo --run runs/demo`" in output
    assert "POEMetric demo" not in output  # refused before its header, as nothing starts
    assert not (demo_run / "sub").exists()


def test_a_run_already_inside_a_run_is_resumed(demo_run: Path) -> None:
    RunStore(demo_run / "old", create=True).close()
    code, output = _invoke(
        "generate", "--run", "runs/demo/old", "--models", "markov", "--limit", "1"
    )
    assert code == 0, output
