"""A run prepared from one's own dataset file: what the commands say about that file."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
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


def test_under_make_the_runs_own_dataset_is_named_as_make_takes_it(tmp_path: Path) -> None:
    """Under make the refusal said `--dataset X` and "another --run directory", options that
    `make generate` does not take, where every other hint names make's variables."""
    from poemetric.data import load_dataset, write_dataset

    mine = tmp_path / "my poems.csv"
    write_dataset(load_dataset("demo").poems[:2], mine)
    run = str(tmp_path / "run")
    invoke("--run", run, "--dataset", str(mine), "--models", "markov")
    args = ["generate", "--run", run, "--models", "markov"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": "1"})
    assert result.exit_code == 2
    assert result.stderr.rstrip().endswith(
        f"use another RUN directory, or, to go on with this run, give it its own: DATASET='{mine}'"
        " (without DATASET, `make generate` reads the bundled demo)"
    ), result.stderr
    assert "--dataset" not in result.stderr and "--run" not in result.stderr


@pytest.mark.parametrize("make", ["", "1"])
def test_demo_on_a_run_of_another_dataset_is_given_the_generate_line(
    tmp_path: Path, make: str
) -> None:
    """`demo --run R` on a run of one's own file was told to give it `--dataset FILE`, an option
    `demo` does not take (and `make demo DATASET=...` is refused): it is now given the `generate`
    line that goes on with the run, and that line runs."""
    from poemetric.data import load_dataset, write_dataset

    mine = tmp_path / "my poems.csv"
    write_dataset(load_dataset("demo").poems[:2], mine)
    run = str(tmp_path / "run")
    invoke("--run", run, "--dataset", str(mine), "--models", "markov")
    args = ["demo", "--run", run, "--no-local"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400", "POEMETRIC_MAKE": make})
    assert result.exit_code == 2
    line = (
        f"make generate RUN={run} DATASET='{mine}'"
        if make
        else f"poemetric generate --run {run} --dataset '{mine}'"
    )
    assert result.stderr.rstrip().endswith(
        f"or, to go on with this run, run `{line}` (the demo runs the bundled demo dataset only)"
    ), result.stderr
    assert "--dataset" not in result.stderr if make else "give it its own" not in result.stderr
    if not make:
        invoke(*shlex.split(line)[2:])


def test_a_spreadsheet_is_told_to_be_saved_as_csv(tmp_path: Path) -> None:
    """A researcher's poems kept in Excel, given as the workbook, were told only the file types
    that are read, and `form check` offered to scan the workbook as one poem's text."""
    import zipfile

    workbook = tmp_path / "poems.xlsx"
    with zipfile.ZipFile(workbook, "w") as archive:  # what an .xlsx file is
        archive.writestr("xl/workbook.xml", "<workbook/>")
    told = f"error: {workbook}: unsupported file type '.xlsx', a spreadsheet: save it as CSV (Excel: \"CSV UTF-8\") and give the .csv file"
    for command in (
        ["dataset", "validate", str(workbook)],
        ["generate", "--run", str(tmp_path / "run"), "--dataset", str(workbook), "--dry-run"],
        ["form", "check", str(workbook), "-o", str(tmp_path / "checks.jsonl")],
    ):
        result = CliRunner().invoke(app, command, env={"COLUMNS": "400"})
        assert result.exit_code == 2, command
        assert result.stderr.strip() == told, command


def test_a_copy_under_another_name_keeps_the_runs_dataset_name(tmp_path: Path) -> None:
    """The very bytes under another file name (`poems (final).csv`) go on with the run, but they
    renamed its dataset: the report, the hints and `make`'s RUN then named the copy."""
    import shutil

    from poemetric.data import load_dataset, write_dataset
    from poemetric.store import RunStore

    mine = tmp_path / "poems.csv"
    write_dataset(load_dataset("demo").poems[:2], mine)
    copy = shutil.copy(mine, tmp_path / "poems (final).csv")
    run = str(tmp_path / "run")
    invoke("--run", run, "--dataset", str(mine))
    invoke("--run", run, "--dataset", str(copy))
    with RunStore(run, create=False) as store:
        recorded = store.get_meta("dataset")
    assert (recorded["name"], recorded["path"]) == ("poems", str(mine))
    moved = tmp_path / "moved"
    moved.mkdir()
    shutil.move(mine, moved / "poems.csv")  # the very file, moved: its new place is recorded
    invoke("--run", run, "--dataset", str(moved / "poems.csv"))
    with RunStore(run, create=False) as store:
        assert store.get_meta("dataset")["path"] == str(moved / "poems.csv")
