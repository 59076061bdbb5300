"""An option given twice counted only its last value, without a word: `generate --models markov
--models gpt-4o` asked gpt-4o alone, `judge --judge a --judge b` judged with `b` alone, `analyze
--run a --run b` read `b`. Such a line is now refused (exit status 2, nothing run) with both
values and how to give them once (`poemetric/cli/repeated_options.py`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore


def _refused(args: list[str], **env: str) -> str:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400", **env})
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    return line


def test_models_twice_is_refused_before_the_run_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    line = _refused(["generate", "--run", "runs/x", "--models", "markov", "--limit", "1",
                     "--models", "smollm2-135m"])  # fmt: skip
    assert line == (
        "error: --models is given twice (markov, smollm2-135m), and only the last would count; "
        "give it once, comma-separated: --models markov,smollm2-135m"
    )
    assert not Path("runs/x").exists()  # was: a run of smollm2-135m alone


def test_a_short_and_a_long_spelling_count_as_one_option(tmp_path: Path) -> None:
    line = _refused(["judge", "recognise", "--run", str(tmp_path), "-j", "a", "--judge=b"])
    assert line == (
        "error: --judge is given twice (a, b), and only the last would count; give it once, "
        "comma-separated: --judge a,b"
    )


def test_a_run_twice(tmp_path: Path) -> None:
    for name in ("a", "b"):
        RunStore(tmp_path / name, create=True).close()
    a, b = tmp_path / "a", tmp_path / "b"
    line = _refused(["analyze", "-r", str(a), "--run", str(b)])
    assert (
        line
        == f"error: --run is given twice ({a}, {b}), and only the last would count; give it once"
    )
    under_make = _refused(["analyze", "--run", str(a), "--run", str(b)], POEMETRIC_MAKE="1")
    assert under_make.endswith(
        f"under make, RUN gives --run: give it once, as RUN={b}, not in ARGS"
    )


def test_the_same_value_twice_and_a_flag_both_ways_are_left_alone(tmp_path: Path) -> None:
    args = ["generate", "--run", str(tmp_path / "x"), "--limit", "1", "--dry-run"]
    same = CliRunner().invoke(app, [*args, "--models", "markov", "--models", "markov"])
    assert same.exit_code == 0, same.output
    flags = CliRunner().invoke(app, [*args, "--models", "markov", "--no-progress", "--progress"])
    assert flags.exit_code == 0, flags.output


def test_a_number_twice_is_not_told_to_be_comma_separated(tmp_path: Path) -> None:
    """`--max-cost`'s help says "in this command": "comma" was read as a list, and the line
    said to give `--max-cost 5,10`, which `--max-cost` refuses as no number."""
    line = _refused(["generate", "--run", str(tmp_path / "x"), "--models", "markov",
                     "--max-cost", "5", "--max-cost", "10", "--dry-run"])  # fmt: skip
    assert line == (
        "error: --max-cost is given twice (5, 10), and only the last would count; give it once"
    )
    assert not (tmp_path / "x").exists()


def test_under_make_a_list_in_args_is_told_the_variable_of_its_own_value(tmp_path: Path) -> None:
    """`make generate ARGS="--models gpt-4o"` passes make's default `--models markov` first: the
    line said `MODELS=markov,gpt-4o`, the default the user never wrote joined to their model."""
    line = _refused(
        ["generate", "--run", str(tmp_path / "x"), "--models", "markov", "--limit", "1",
         "--models", "smollm2-135m"],
        POEMETRIC_MAKE="1",
    )  # fmt: skip
    assert line.endswith(
        "under make, MODELS gives --models: give it once, as MODELS=smollm2-135m "
        "(or MODELS=markov,smollm2-135m for both), not in ARGS"
    ), line


@pytest.mark.parametrize(
    "again", ["runs/x/", "./runs/x", "runs/../runs/x", "runs/x/poemetric.sqlite"]
)
def test_one_folder_written_two_ways_is_one_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, again: str
) -> None:
    """`--run runs/x --run runs/x/` (a shell completes the slash; under make, `RUN=runs/x
    ARGS="--run runs/x/"`) was refused as two runs given: it is one folder, and the command
    runs on it (here to say the run has no poems yet)."""
    monkeypatch.chdir(tmp_path)
    RunStore(Path("runs/x"), create=True).close()
    result = CliRunner().invoke(
        app, ["analyze", "--run", "runs/x", "--run", again], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2
    assert "has no poems yet" in result.stderr, result.output


def test_an_output_folder_written_two_ways_is_one_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    RunStore(Path("runs/x"), create=True).close()
    args = ["analyze", "--run", "runs/x", "--out", "tables", "--out", f"{tmp_path}/tables/"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert "has no poems yet" in result.stderr, result.output


def test_an_output_option_twice_is_named_as_typed(tmp_path: Path) -> None:
    """`export -o a -o b` was told "--output is given twice": the longest of the output
    option's names, which `export` (`--to`) and `analyze` (`--out`) name nowhere."""
    RunStore(tmp_path / "run", create=True).close()
    run = str(tmp_path / "run")
    assert _refused(["export", "--run", run, "-o", "a", "-o", "b"]) == (
        "error: -o is given twice (a, b), and only the last would count; give it once"
    )
    assert _refused(["analyze", "--run", run, "--out", "a", "--to", "b"]) == (
        "error: --out is given twice (a, b), and only the last would count; give it once"
    )


def test_two_folders_are_still_two_values(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _refused(["analyze", "--run", "runs/x/", "--run", "runs/y"]) == (
        "error: --run is given twice (runs/x/, runs/y), and only the last would count; give it once"
    )


def test_a_path_that_does_not_resolve_is_compared_as_written_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A symlink loop makes `Path.resolve` raise: no traceback, the command's own error."""
    monkeypatch.chdir(tmp_path)
    Path("loop1").symlink_to("loop2")
    Path("loop2").symlink_to("loop1")
    result = CliRunner().invoke(app, ["analyze", "--run", "loop1", "--run", "./loop1"])
    assert isinstance(result.exception, SystemExit), result.exception  # was a RuntimeError
    assert result.exit_code == 2
    assert "is given twice" not in result.output


def test_a_quoted_tilde_is_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--run "~/x"` (quoted: the shell leaves `~`) is the folder `./~/x` to the command, not
    `$HOME/x`: given with `$HOME/x`, that is two runs."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    line = _refused(["analyze", "--run", f"{tmp_path}/x", "--run", "~/x"])
    assert line.startswith("error: --run is given twice")


def test_a_short_option_with_its_value_attached_counts(tmp_path: Path) -> None:
    """`-ob` is `-o b` to click: the scan read it as no option, so `-o a -ob` wrote to `b`
    alone, without a word, and the option was named by its longest name, not as typed."""
    RunStore(tmp_path / "run", create=True).close()
    run = str(tmp_path / "run")
    assert _refused(["export", "--run", run, "-oa", "-o", "b"]) == (
        "error: -o is given twice (a, b), and only the last would count; give it once"
    )
    assert _refused(["analyze", "-r", run, "-ra.csv"]).startswith(
        f"error: --run is given twice ({run}, a.csv)"
    )
    # click keeps what follows a short option whole: `-o=a` writes to "=a"
    assert _refused(["export", "--run", run, "-o=a", "-o", "a"]) == (
        "error: -o is given twice (=a, a), and only the last would count; give it once"
    )
