"""Output paths a user mistypes: an `--out` folder that is a file (or lies under one), a report
`--out` that is a folder. Each is unusable input, reported as one `error:` line on stderr with exit
status 2 before any work; before, every one of these commands ended in a traceback
(FileExistsError, NotADirectoryError, IsADirectoryError), some after minutes of work."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("outputs") / "demo"
    runner = CliRunner()
    result = runner.invoke(app, ["demo", "--run", str(run), "--no-progress"])
    assert result.exit_code == 0, result.output
    built = runner.invoke(
        app, ["survey", "build", "--run", str(run), "--raters", "2", "--per-rater", "3"]
    )
    assert built.exit_code == 0, built.output
    return run


FOLDER_COMMANDS = [
    (["analyze"], "--out"),
    (["figures", "--format", "png"], "--out"),
    (["export"], "--to"),
    (["ghostwriting", "metrics"], "--out"),
    (["ghostwriting", "sheets"], "--out"),
    (["survey", "sheets"], "--out"),
]


@pytest.mark.parametrize("under", [False, True], ids=["is-a-file", "under-a-file"])
@pytest.mark.parametrize(
    ("command", "option"), FOLDER_COMMANDS, ids=lambda v: " ".join(v) if isinstance(v, list) else v
)
def test_an_output_folder_that_is_a_file_is_one_error_line_and_exit_2(
    demo_run: Path, tmp_path: Path, command: list[str], option: str, under: bool
) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("keep me\n", encoding="utf-8")
    out = blocker / "sub" if under else blocker
    result = CliRunner().invoke(
        app, [*command, "--run", str(demo_run), option, str(out)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {option} {out}: not a folder")
    assert blocker.read_text(encoding="utf-8") == "keep me\n"


def test_probe_report_output_that_is_a_file(tmp_path: Path) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["probe", "report", str(tmp_path / "scores.jsonl"), "--output", str(blocker)]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: --output {blocker}: not a folder")


def test_a_report_out_that_is_a_folder(demo_run: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["report", "--run", str(demo_run), "--out", str(tmp_path)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: --out {tmp_path}: is a folder; give a file name\n"
    blocker = tmp_path / "taken"
    blocker.write_text("", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["report", "--run", str(demo_run), "--out", str(blocker / "index.html")]
    )
    assert result.exit_code == 2, result.output
    assert "not a folder" in result.stderr
