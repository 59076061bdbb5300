"""A missing run store is unusable input in every command that reads one: one `error:` line on
stderr naming the store, and exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

COMMANDS = [
    ["form", "run"],
    ["analyze"],
    ["figures"],
    ["report"],
    ["export"],
    ["batches", "list"],
    ["judge", "--judge", "gemini-2.5-pro"],
    ["judge", "reparse"],
    ["survey", "status"],
    ["ghostwriting", "metrics"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_missing_run_store_is_one_error_line_and_exit_2(
    tmp_path: Path, command: list[str]
) -> None:
    run = tmp_path / "no-such-run"
    result = CliRunner().invoke(app, [*command, "--run", str(run)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: no run store at {run / 'poemetric.sqlite'}; ")
    assert not run.exists()


def test_a_missing_run_names_the_runs_beside_it(tmp_path: Path) -> None:
    """`poemetric analyze` after `poemetric demo` (runs/default, not runs/demo), or a mistyped
    --run, only said to start a new run there; the runs that do exist are named."""
    for name in ("demo", "paper"):
        RunStore(tmp_path / "runs" / name).close()
    run = tmp_path / "runs" / "dmeo"
    result = CliRunner().invoke(app, ["analyze", "--run", str(run)], env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith(
        f"error: no run store at {run / 'poemetric.sqlite'}; runs beside it: "
        f"{tmp_path / 'runs' / 'demo'}, {tmp_path / 'runs' / 'paper'}; start a run with "
    )
    assert not run.exists()


@pytest.mark.parametrize(
    ("where", "run", "hint"),
    [
        (".", "runs", "runs in it: runs/demo, runs/paper"),
        (".", "runs/demo/analysis", "the folder runs/demo above it is a run: --run runs/demo"),
        (".", "demo", "a run is at runs/demo: --run runs/demo"),
        ("runs/demo", "runs/default", "the folder . above it is a run: --run ."),
    ],
    ids=["the-runs-folder", "inside-a-run", "a-bare-name", "the-default-inside-a-run"],
)
def test_a_wrong_run_path_names_the_run_it_missed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, run: str, hint: str
) -> None:
    """A newcomer's first wrong --run: the folder of runs (`--run runs`), a folder inside a run
    (`--run runs/demo/analysis`), the run's bare name (`--run demo`), or a command run from
    inside runs/demo without --run. Each only said to start a new run there; the run meant is
    named. Inside a run that run is all the advice: the hint went on to "start a run with
    `poemetric generate --run runs/demo/analysis`", a run inside the run."""
    for name in ("demo", "paper"):
        RunStore(tmp_path / "runs" / name).close()
    (tmp_path / "runs" / "demo" / "analysis").mkdir()
    monkeypatch.chdir(tmp_path / where)
    args = ["analyze"] if run == "runs/default" else ["analyze", "--run", run]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    missing = f"error: no run store at {Path(run) / 'poemetric.sqlite'}; {hint}"
    if "above it is a run" in hint:
        assert result.stderr == f"{missing}\n"
    else:
        assert result.stderr.startswith(f"{missing}; start a run with "), result.stderr
    assert not (tmp_path / where / run / "poemetric.sqlite").exists()


@pytest.mark.parametrize("make", [False, True], ids=["poemetric", "make"])
@pytest.mark.parametrize("inside", ["analysis", "report/index.html"], ids=["folder", "file"])
def test_a_path_inside_a_run_names_only_that_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inside: str, make: bool
) -> None:
    """`--run runs/demo/report/index.html` (a file of the run) said only "not a folder", and a
    folder inside the run named it but still said to start a run there; both name the run
    above, and only it: as `RUN=` under make, whose users give no `--run`."""
    RunStore(tmp_path / "runs" / "demo").close()
    (tmp_path / "runs" / "demo" / "report").mkdir()
    (tmp_path / "runs" / "demo" / "report" / "index.html").write_text("<html>\n")
    monkeypatch.chdir(tmp_path)
    run = Path("runs/demo") / inside
    env = {"COLUMNS": "400", **({"POEMETRIC_MAKE": "1"} if make else {})}
    result = CliRunner().invoke(app, ["report", "--run", str(run)], env=env)
    assert result.exit_code == 2 and result.stdout == "", result.output
    why = (
        "not a folder (a run is the folder that holds poemetric.sqlite)"
        if run.is_file()
        else "no run store"
    )
    use = "RUN=" if make else "--run "
    assert why in result.stderr
    assert result.stderr.endswith(f"; the folder runs/demo above it is a run: {use}runs/demo\n")
    assert not (run / "poemetric.sqlite").exists()


@pytest.mark.parametrize("command", [["analyze"], ["form", "run"], ["report"]], ids=" ".join)
def test_under_make_a_missing_run_names_the_make_targets(
    tmp_path: Path, command: list[str]
) -> None:
    """`make analyze` before `make demo` said to start a run with `poemetric generate` or
    `poemetric demo`, commands not on the PATH of a user who only runs make; the Makefile sets
    POEMETRIC_MAKE=1, and the hint names its targets, the run quoted for the shell."""
    run = tmp_path / "my runs" / "demo"
    env = {"COLUMNS": "400", "POEMETRIC_MAKE": "1"}
    result = CliRunner().invoke(app, [*command, "--run", str(run)], env=env)
    assert result.exit_code == 2 and result.stdout == "", result.output
    quoted = f"'{run}'"
    assert result.stderr.strip() == (
        f"error: no run store at {run / 'poemetric.sqlite'}; start a run with "
        f"`make demo RUN={quoted}` or `make generate RUN={quoted} DATASET=NAME`"
    )
    assert not run.exists()


@pytest.mark.parametrize("under", [False, True], ids=["a-file", "under-a-file"])
@pytest.mark.parametrize("command", [*COMMANDS, ["survey", "sheets"]], ids=" ".join)
def test_a_run_that_is_a_file_is_named_as_the_run(
    tmp_path: Path, command: list[str], under: bool
) -> None:
    """`--run` naming a file (the store itself, a CSV): analyze, figures, export, ghostwriting
    metrics and survey sheets blamed an `--out`/`--to` the user never gave ("--out
    results.csv/analysis: not a folder") instead of saying there is no run there."""
    blocker = tmp_path / "results.csv"
    blocker.write_text("keep me\n", encoding="utf-8")
    run = blocker / "sub" if under else blocker
    result = CliRunner().invoke(app, [*command, "--run", str(run)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    if under:
        assert line.startswith(f"error: no run store at {run / 'poemetric.sqlite'}; "), line
    else:  # the file itself: named as a file (test_a_dataset_file_given_as_the_run_...)
        assert line.startswith(f"error: --run {run}: not a folder (a run is the folder"), line
    assert blocker.read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize(
    ("command", "written"),
    [(["export", "poems"], "export/poems.csv"), (["report"], "report/index.html")],
    ids=["export", "report"],
)
def test_a_run_given_as_its_store_file_is_that_run(
    tmp_path: Path, command: list[str], written: str
) -> None:
    """`--run runs/x/poemetric.sqlite` (the store, as a shell completes it) said "no run store at
    runs/x/poemetric.sqlite/poemetric.sqlite"; it names the run runs/x."""
    run = tmp_path / "runs" / "x"
    RunStore(run).close()
    result = CliRunner().invoke(app, [*command, "--run", str(run / "poemetric.sqlite")])
    assert result.exit_code == 0, result.output
    assert (run / written).is_file()
    assert (run / "poemetric.sqlite").is_file()


def test_a_missing_store_file_names_the_store_once(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "x"
    args = ["analyze", "--run", str(run / "poemetric.sqlite")]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith(f"error: no run store at {run / 'poemetric.sqlite'}; ")
    assert not run.exists()
    help_text = CliRunner().invoke(app, ["analyze", "--help"], env={"COLUMNS": "400"}).stdout
    assert "the path of its poemetric.sqlite names the same run" in help_text


@pytest.mark.parametrize("command", [*COMMANDS, ["generate"]], ids=" ".join)
def test_a_damaged_store_is_one_error_line_and_exit_2(tmp_path: Path, command: list[str]) -> None:
    """A store SQLite cannot read (a partly copied shard, a file put in its place) ended every
    command in a `DatabaseError: file is not a database` traceback; it is left as it was."""
    store = tmp_path / "run" / "poemetric.sqlite"
    store.parent.mkdir()
    store.write_bytes(b"not a database, half a copy\n" * 4)
    result = CliRunner().invoke(app, [*command, "--run", str(store.parent)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line == (
        f"error: {store} is not a run store SQLite can read (file is not a database); is it "
        "damaged, or only partly copied?"
    )
    assert store.read_bytes() == b"not a database, half a copy\n" * 4


@pytest.mark.parametrize("damaged", ["source", "destination"])
def test_merge_names_a_damaged_store(tmp_path: Path, damaged: str) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    RunStore(good).close()
    bad.mkdir()
    (bad / "poemetric.sqlite").write_bytes(b"garbage" * 10)
    args = [str(bad), str(good), "--into", str(tmp_path / "m")]
    if damaged == "destination":
        args = [str(good), "--into", str(bad)]
    result = CliRunner().invoke(app, ["merge", *args], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {bad / 'poemetric.sqlite'} is not a run store")


def test_generate_on_a_store_of_a_newer_poemetric_is_one_error_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with RunStore(run) as store:
        store.conn.execute("PRAGMA user_version = 999")
    result = CliRunner().invoke(app, ["generate", "--run", str(run)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {run / 'poemetric.sqlite'} has schema version 999, newer")


@pytest.mark.parametrize("command", [*COMMANDS, ["generate"]], ids=" ".join)
def test_a_dataset_file_given_as_the_run_is_named_as_one(
    tmp_path: Path, command: list[str]
) -> None:
    """`analyze --run poems.csv` (the dataset where the run belongs) said "no run store at
    poems.csv/poemetric.sqlite; start a run with `poemetric generate --run poems.csv`", a
    command that refuses a file as its run; the error now names the run the dataset makes."""
    dataset = tmp_path / "my poems.csv"
    dataset.write_text("form,title,author,content\n", encoding="utf-8")
    result = CliRunner().invoke(app, [*command, "--run", str(dataset)], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: --run {dataset}: not a folder (a run is the folder that holds "
        f"poemetric.sqlite); {dataset} looks like a dataset: start a run of it with "
        f"`poemetric generate --run 'runs/my poems' --dataset '{dataset}'`\n"
    )
    other = tmp_path / "notes.txt"
    other.write_text("a poem\n", encoding="utf-8")
    result = CliRunner().invoke(app, [*command, "--run", str(other)], env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stderr == (
        f"error: --run {other}: not a folder (a run is the folder that holds poemetric.sqlite)\n"
    )


def test_the_demo_hint_makes_the_run_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`poemetric figures` with no run said to start one with `poemetric demo`, which makes
    runs/demo, not the runs/default the command reads: following the hint gave the same
    error. The hint names the run, as the make hint does (`make demo RUN=...`)."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["figures"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().endswith(
        "start a run with `poemetric generate --run runs/default` or "
        "`poemetric demo --run runs/default`"
    ), result.stderr
