"""Options written before a command of `poemetric judge` (`judge --dry-run recognise ...`)
are `judge`'s own, which the command never read: they were dropped without a word, so
`recognise` paid for answers under `--dry-run --max-cost 0`, and `judge --run R reparse`
re-parsed `runs/default`. Such a line is refused with the line to write, before anything runs;
a word where a command's name goes (`judge --run R gpt-4o`) is answered with the commands and
the `--judge` line it likely meant."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from test_judge_panel import write_judge
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.testing.servers import OpenAIServer


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def _refused(args: list[str]) -> str:
    """The one `error: ...` line of a command refused with exit status 2."""
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: "), line
    return line


def test_dry_run_before_recognise_is_refused_and_nothing_is_asked(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    answer = json.dumps({"title": "T", "author": "A"})
    with OpenAIServer(lambda call: answer, api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url)
        line = _refused(["judge", "--dry-run", "--max-cost", "0", "recognise",
                         "--run", str(run), "--judge", "j", "--no-progress"])  # fmt: skip
        assert server.generation_requests == []  # was 2 answers, paid for
    assert line.startswith(
        "error: --dry-run --max-cost 0: options written before `recognise` are "
        "`poemetric judge`'s own, which `poemetric judge recognise` does not read; "
        "nothing was run."
    )
    written = line.rsplit("the command's name: ", 1)[1]
    assert shlex.split(written) == ["poemetric", "judge", "recognise", "--dry-run", "--max-cost",
                                    "0", "--run", str(run), "--judge", "j", "--no-progress"]  # fmt: skip
    with RunStore(run) as store:
        assert store.query("SELECT COUNT(*) FROM recognitions")[0][0] == 0


def test_run_before_reparse_is_refused_naming_what_reparse_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # `runs/default`, reparse's own default, is not there
    line = _refused(["judge", "--run", "runs/x", "--samples", "2", "reparse"])
    assert "no run store" not in line  # was: no run store at runs/default/poemetric.sqlite
    assert line.startswith("error: --run runs/x --samples 2: options written before `reparse`")
    assert line.endswith(
        "(`poemetric judge reparse` has no --samples, left out: `poemetric judge reparse --help` "
        "lists its options): poemetric judge reparse --run runs/x"
    )  # was the line with `--samples 2`, refused in turn: "No such option: --samples"


def test_the_line_written_instead_runs(tmp_path: Path) -> None:
    """Each option the command lacks is left out of the line, with its value (`--samples 2`,
    `--samples=2`) or none (`--batch`); the options it takes are kept, so the line is no usage
    error of its own."""
    run = tmp_path / "run"
    prepared_store(run, poems=1).close()
    line = _refused(["judge", "--samples", "2", "--run", str(run), "--batch", "--samples=3",
                     "-j", "gpt-4o", "reparse"])  # fmt: skip
    assert "has no --samples, --batch, left out" in line
    written = shlex.split(line.rsplit("lists its options): ", 1)[1])
    assert written == ["poemetric", "judge", "reparse", "--run", str(run), "-j", "gpt-4o"]
    result = CliRunner().invoke(app, written[1:], env={"COLUMNS": "400"})
    assert "No such option" not in result.output
    assert result.stderr.startswith("error: no judgments by judge 'gpt-4o'"), result.output


def test_under_make_the_refusal_names_the_command_to_run_without_make(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`make judge RUN=runs/x JUDGE=j ARGS="recognise"` runs `judge --run runs/x --judge j
    recognise`: the refusal told the make user to write `--run runs/x --judge j` (make's own
    words, not theirs) after the command's name, with a bare `poemetric` not on their PATH;
    no ARGS can do that, as make writes its variables first."""
    monkeypatch.setenv("POEMETRIC_MAKE", "1")
    monkeypatch.setattr(sys, "argv", ["/home/me/poemetric/.venv/bin/poemetric"])
    line = _refused(["judge", "--run", "runs/x", "--judge", "j", "--limit", "2", "recognise",
                     "--dry-run"])  # fmt: skip
    assert line == (
        "error: `make judge` runs `poemetric judge` itself, and writes its variables (RUN, JUDGE, "
        "LIMIT) before ARGS as `poemetric judge`'s own options, which `poemetric judge "
        "recognise` does not read; nothing was run. `poemetric judge recognise` has no make "
        "target: run it with the options after its name: /home/me/poemetric/.venv/bin/poemetric "
        "judge recognise --run runs/x --judge j --limit 2 --dry-run"
    )


def test_options_after_the_command_still_run_it(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=1).close()
    answer = json.dumps({"title": "T", "author": "A"})
    with OpenAIServer(lambda call: answer, api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url)
        result = CliRunner().invoke(app, ["judge", "recognise", "--run", str(run), "--judge", "j",
                                          "--no-progress"])  # fmt: skip
        assert result.exit_code == 0, result.output
        assert len(server.generation_requests) == 1


def test_a_judge_name_where_a_command_goes_is_answered_with_the_judge_line() -> None:
    line = _refused(["judge", "--run", "runs/x", "gpt-4o"])
    assert line == (
        "error: `poemetric judge` has no command 'gpt-4o'; its commands: parse, reparse, "
        "recognise; if 'gpt-4o' is a judge: poemetric judge --run runs/x --judge gpt-4o"
    )  # was: "No such command 'gpt-4o'." in a usage box


def test_a_misspelt_command_gets_the_command_not_the_judge_line() -> None:
    line = _refused(["judge", "recognize", "--run", "runs/x"])
    assert line == (
        "error: `poemetric judge` has no command 'recognize' (did you mean 'recognise'?); its "
        "commands: parse, reparse, recognise"
    )


def test_a_model_name_where_a_models_command_goes_is_answered_with_the_show_line() -> None:
    line = _refused(["models", "--judges", "gpt-4o"])
    assert line == (
        "error: `poemetric models` has no command 'gpt-4o'; its commands: list, show; if "
        "'gpt-4o' is a model: poemetric models --judges show gpt-4o"
    )  # was: "No such command 'gpt-4o'." in a usage box


def test_options_before_a_models_command_are_still_passed_on() -> None:
    result = CliRunner().invoke(app, ["models", "--judges", "show", "gpt-4o"])
    assert result.exit_code == 0, result.output
    assert "/judges/gpt-4o.yaml" in result.output.splitlines()[0]


@pytest.mark.parametrize(
    ("judge", "meant"),
    [(["--judge", "gpt-4o"], ["--judge", "gpt-4o,claude-3.7-sonnet"]),
     (["-j", "gpt-4o"], ["-j", "gpt-4o,claude-3.7-sonnet"]),
     (["--judge=gpt-4o"], ["--judge=gpt-4o,claude-3.7-sonnet"])],
)  # fmt: skip
def test_a_second_judge_after_a_space_is_answered_with_the_list(
    judge: list[str], meant: list[str]
) -> None:
    """`judge --judge gpt-4o claude-3.7-sonnet` (a list written with a space) was answered with
    `--judge gpt-4o --judge claude-3.7-sonnet`, a line refused as an option given twice."""
    line = _refused(["judge", "--run", "runs/x", *judge, "claude-3.7-sonnet", "--limit", "3"])
    written = line.rsplit("is a judge: ", 1)[1]
    assert shlex.split(written) == ["poemetric", "judge", "--run", "runs/x", *meant,
                                    "--limit", "3"]  # fmt: skip
    assert _refused_or_run(shlex.split(written)[1:]) != "refused"


def _refused_or_run(args: list[str]) -> str:
    """`refused` where the line is refused as an option given twice, else `run`."""
    result = CliRunner().invoke(app, [*args, "--dry-run"], env={"COLUMNS": "400"})
    return "refused" if "is given twice" in result.output else "run"


def test_the_end_of_options_marker_before_a_command_is_no_option(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """`judge -- recognise ...` was refused as `--: options written before `recognise``, though
    `--` only ends `judge`'s options: the command runs as without it."""
    run = tmp_path / "run"
    prepared_store(run, poems=1).close()
    answer = json.dumps({"title": "T", "author": "A"})
    with OpenAIServer(lambda call: answer, api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url)
        result = CliRunner().invoke(app, ["judge", "--", "recognise", "--run", str(run),
                                          "--judge", "j", "--no-progress"])  # fmt: skip
        assert result.exit_code == 0, result.output
        assert len(server.generation_requests) == 1
    line = _refused(["judge", "--run", "runs/x", "--", "recognise"])
    assert line.startswith("error: --run runs/x: options written before `recognise`")
    assert line.endswith("the command's name: poemetric judge recognise --run runs/x")
