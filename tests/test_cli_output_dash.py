"""`-` as an output path is refused (exit 2) by every command, as by `form check`: no command
writes its output to standard output (the terminal gets its summary), and `judge parse -o -`,
`probe build -o -`, `analyze --out -` and the rest wrote a file or folder named "-" in the
current folder, with exit status 0 (or 1 for some rejected answers)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from conftest import DemoTemplate, copy_demo_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.paths import replaced_when_done


def _invoke(args: list[str]) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory, demo_run_template: DemoTemplate) -> Path:
    run = copy_demo_run(demo_run_template, tmp_path_factory.mktemp("dash") / "demo")
    built = ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "3"]
    code, _out, err = _invoke(built)
    assert code == 0, err
    return run


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Inputs for the file commands, in a fresh current folder (where a "-" would appear)."""
    monkeypatch.chdir(tmp_path)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        json.dumps({"id": "a", "form": "ballad", "response": "1: 4"}) + "\n", encoding="utf-8"
    )
    pairs = tmp_path / "pairs.jsonl"
    build = ["probe", "build", "lear-limericks", "-o", str(pairs), "--limit", "2"]
    code, _out, err = _invoke([*build, "--tasks", "rhyme_line_swap"])
    assert code == 0, err
    return {"ANSWERS": str(answers), "PAIRS": str(pairs)}


#: The option as typed: `-o -` was answered "--output -: ...", a name the user had not typed.
FILE_COMMANDS = [
    (["form", "check", "ANSWERS", "-o", "-"], "-o", "form check writes its rows"),
    (["judge", "parse", "ANSWERS", "--out", "-"], "--out", "judge parse writes its lines"),
    (["probe", "build", "lear-limericks", "-o", "-", "--limit", "2"], "-o", "file"),
    (["probe", "run", "PAIRS", "-o", "-"], "-o", "file"),
    (["probe", "run", "PAIRS", "-o", "scores.jsonl", "--tables", "-"], "--tables", "folder"),
    (["probe", "report", "PAIRS", "--output", "-"], "--output", "folder"),
]
RUN_COMMANDS = [
    (["report", "--out", "-"], "--out", "file"),
    (["analyze", "--out", "-"], "--out", "folder"),
    (["figures", "--format", "png", "--out", "-"], "--out", "folder"),
    (["export", "--to", "-"], "--to", "folder"),
    (["export", "--out", "-"], "--out", "folder"),  # was "--to -: ..."
    (["analyze", "-o", "-"], "-o", "folder"),
    (["ghostwriting", "metrics", "--out", "-"], "--out", "folder"),
    (["ghostwriting", "sheets", "--out", "-"], "--out", "folder"),
    (["survey", "sheets", "--out", "-"], "--out", "folder"),
]


def _assert_refused(args: list[str], option: str, says: str) -> None:
    code, out, err = _invoke(args)
    assert code == 2, err
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"error: {option} -: "), line
    if says in ("file", "folder"):
        assert line.endswith(f"is written to a {says}, not to standard output; give a {says} name")
    else:
        assert says in line and line.endswith("give a file name")
    assert not Path("-").exists()


@pytest.mark.parametrize(
    ("command", "option", "says"), FILE_COMMANDS, ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else v
)  # fmt: skip
def test_dash_as_an_output_file_or_folder_is_refused(
    files: dict[str, str], command: list[str], option: str, says: str
) -> None:
    _assert_refused([files.get(arg, arg) for arg in command], option, says)


@pytest.mark.parametrize(
    ("command", "option", "says"), RUN_COMMANDS, ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else v
)  # fmt: skip
def test_dash_as_the_output_of_a_run_command_is_refused(
    demo_run: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    option: str,
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    _assert_refused([*command, "--run", str(demo_run)], option, says)


def test_merge_into_dash_is_refused(
    demo_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _assert_refused(["merge", str(demo_run), "--into", "-"], "--into", "folder")


def _run_commands() -> list[tuple[str, ...]]:
    """Every command (or group, as `judge`) with a `--run` option, loading each command."""
    import typer.main

    root = typer.main.get_command(app)
    found: list[tuple[str, ...]] = []

    def walk(command: Any, path: tuple[str, ...], ctx: Any) -> None:
        if any("--run" in getattr(p, "opts", ()) for p in command.params):
            found.append(path)
        for name in getattr(command, "commands", {}):
            walk(command.get_command(ctx, name), (*path, name), ctx)

    walk(root, (), root.make_context("poemetric", [], resilient_parsing=True))
    return found


RUN_OPTION_COMMANDS = _run_commands()


def test_every_run_option_goes_through_the_same_check() -> None:
    """The commands found here are those the next test runs: none is left out by hand."""
    import typer.main

    from poemetric.cli.options import run_folder

    root = typer.main.get_command(app)
    ctx = root.make_context("poemetric", [], resilient_parsing=True)
    assert {("generate",), ("demo",), ("judge",), ("report",), ("probe", "run")} <= set(
        RUN_OPTION_COMMANDS
    )
    for path in RUN_OPTION_COMMANDS:
        command: Any = root
        for name in path:
            command = command.get_command(ctx, name)
        (option,) = [p for p in command.params if "--run" in p.opts]
        assert getattr(option.callback, "__wrapped__", None) is run_folder, path
        assert option.opts == ["--run", "-r"], path


@pytest.mark.parametrize("command", RUN_OPTION_COMMANDS, ids=" ".join)
@pytest.mark.parametrize("spelling", [["--run", "-"], ["-r", "-"], ["--run=-"]])
def test_dash_as_the_run_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...], spelling: list[str]
) -> None:
    """`--run -` made a run folder named "-" (`probe run --scorer chat:...`), or was looked for
    as one ("no run store at -/poemetric.sqlite; start a run with `poemetric generate --run -`",
    which `generate` then refused), or printed the demo's banner before refusing it."""
    monkeypatch.chdir(tmp_path)
    code, out, err = _invoke([*command, *spelling])
    assert (code, out) == (2, ""), err
    assert err == (
        "error: --run -: a run is a folder (it holds poemetric.sqlite), not standard input or "
        "output; give a folder name\n"
    )
    assert not Path("-").exists()


def _device_or_pipe(path: Path, kind: str) -> Path:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(os.devnull)  # as `-o /dev/null`, without touching /dev/null itself
    return path


def _left_as_it_was(path: Path, kind: str) -> bool:
    if kind == "fifo":
        return stat.S_ISFIFO(path.lstat().st_mode)
    return path.is_symlink() and path.resolve() == Path(os.devnull)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["fifo", "/dev/null"])
@pytest.mark.parametrize(
    ("command", "option", "says"), FILE_COMMANDS, ids=lambda v: " ".join(v[:2]) if isinstance(v, list) else v
)  # fmt: skip
def test_a_device_or_pipe_as_an_output_is_refused(
    files: dict[str, str], tmp_path: Path, command: list[str], option: str, says: str, kind: str
) -> None:
    """`form check poems.csv -o /dev/stdout` with stdout a pipe or a terminal waited forever,
    reading it to see whether it was a run store; `-o /dev/null` moved the finished file onto it,
    which as root made /dev/null a plain file for every process. Both are refused as `-` is."""
    special = _device_or_pipe(tmp_path / "special", kind)
    args = [files.get(arg, arg) for arg in command]
    args[args.index("-")] = str(special)
    code, out, err = _invoke(args)
    assert (code, out) == (2, ""), err
    (line,) = err.splitlines()
    kind_word = "folder" if says == "folder" else "file"
    assert line.startswith(
        f"error: {option} {special}: not a {kind_word} but a device, pipe or terminal; "
    ), line
    assert line.endswith(f"give a {kind_word} name")
    assert _left_as_it_was(special, kind)


@pytest.mark.parametrize("kind", ["fifo", "/dev/null"])
def test_a_finished_file_is_never_moved_onto_a_device_or_pipe(tmp_path: Path, kind: str) -> None:
    special = _device_or_pipe(tmp_path / "special", kind)
    with pytest.raises(OSError, match="not a regular file"), replaced_when_done(special) as temp:
        temp.write_text("rows", encoding="utf-8")
    assert _left_as_it_was(special, kind)
    assert [p.name for p in tmp_path.iterdir()] == ["special"]  # no temporary file left
