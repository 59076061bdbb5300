"""A run prepared from one's own dataset file: what the commands say about that file."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli import app


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, ["generate", "--no-progress", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_run_of_ones_own_file_names_it_when_dataset_is_left_out(tmp_path: Path) -> None:
    """Adding a model to a run of one's own file without repeating --dataset read the bundled
    demo and was refused with only "use another --run directory", as if the run were the wrong
    one; the refusal now also names the run's own file as the --dataset that goes on with it."""
    from poemetric.data import load_dataset, write_dataset

    mine = tmp_path / "my poems.jsonl"
    write_dataset(load_dataset("demo").poems[:2], mine)
    run = str(tmp_path / "run")
    invoke("--run", run, "--dataset", str(mine), "--models", "markov")
    env = {"COLUMNS": "400"}
    result = CliRunner().invoke(app, ["generate", "--run", run, "--models", "markov"], env=env)
    assert result.exit_code == 2
    assert "use another --run directory, or, to go on with this run, give it its own: " in (
        result.stderr
    )
    assert f"--dataset '{mine}' (without --dataset, `generate` reads the bundled demo)" in (
        result.stderr
    )
    result = CliRunner().invoke(
        app, ["generate", "--run", run, "--dataset", "lear-limericks"], env=env
    )
    assert result.exit_code == 2 and result.stderr.rstrip().endswith(f"--dataset '{mine}'")
    invoke("--run", run, "--dataset", str(mine), "--models", "markov")  # the hint's --dataset
    demo_run = str(tmp_path / "demo-run")
    invoke("--run", demo_run, "--limit", "1")
    result = CliRunner().invoke(app, ["generate", "--run", demo_run, "--dataset", str(mine)])
    assert result.exit_code == 2 and "give it its own: --dataset demo" in result.output
