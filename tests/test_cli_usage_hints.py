"""Usage errors for an option or a run folder in the wrong place say what to write instead
(`poemetric/cli/usage_hints.py`). Each said only "No such option: --run" or "Got unexpected
extra argument(s) (runs/x)", which a newcomer following the README made at once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore


def _usage_error(args: list[str]) -> str:
    """The error box's text of a usage error (exit status 2), on one line."""
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    box = result.stderr.split("Error ─", 1)[1]
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", box).split())


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--run", "runs/x", "analyze"],
         "No such option: --run; the options of `poemetric analyze` go after its name: "
         "poemetric analyze --run runs/x"),
        (["--run", "runs/x", "form", "run"],
         "No such option: --run; the options of `poemetric form run` go after its name: "
         "poemetric form run --run runs/x"),
        (["form", "--run", "runs/x", "run"],
         "No such option: --run; the options of `poemetric form run` go after its name: "
         "poemetric form run --run runs/x"),
        (["form", "--run", "runs/x"],
         "No such option: --run; --run is an option of `poemetric form run`: "
         "poemetric form run --run runs/x"),
        (["form", "check", "--run", "runs/x"],
         "No such option: --run (Possible options: --out); --run is an option of "
         "`poemetric form run`, not of `poemetric form check`"),
        # the group's own option: was "No such option: --samples" alone
        (["judge", "recognise", "--samples", "2"],
         "No such option: --samples; --samples is an option of `poemetric judge` itself, not "
         "of `poemetric judge recognise`"),
        (["judge", "reparse", "--run", "runs/x", "--batch"],
         "No such option: --batch; --batch is an option of `poemetric judge` itself, not of "
         "`poemetric judge reparse`"),
        # generate's option for models, to judge: was "No such option: --models" alone
        (["judge", "--run", "runs/x", "--models", "gpt-4o", "--limit", "2"],
         "No such option: --models; --models names the models of `poemetric generate`; "
         "`poemetric judge` names its judges with --judge: "
         "poemetric judge --run runs/x --judge gpt-4o --limit 2"),
        (["judge", "recognise", "--run", "runs/x", "-m=gpt-4o"],
         "No such option: -m; -m names the models of `poemetric generate`; `poemetric judge "
         "recognise` names its judges with --judge: "
         "poemetric judge recognise --run runs/x --judge=gpt-4o"),
        # an option of other commands of the root: was click's "(Possible options: --to)" alone
        (["analyze", "--run", "runs/x", "--authors", "human"],
         "No such option: --authors (Possible options: --to); --authors is an option of "
         "`poemetric figures`, `poemetric judge`, not of `poemetric analyze`"),
        (["demo", "--models", "gpt-4o"],
         "No such option: --models; --models is an option of `poemetric generate`, not of "
         "`poemetric demo`"),
        # a list written with spaces: was the extra argument alone (once "give --run
        # claude-3.7-sonnet")
        (["analyze", "--judge", "gpt-4o", "claude-3.7-sonnet"],
         "Got unexpected extra argument(s) (claude-3.7-sonnet); --judge takes a comma-separated "
         "list: poemetric analyze --judge gpt-4o,claude-3.7-sonnet"),
        (["figures", "--authors", "human", "gpt-4o"],
         "Got unexpected extra argument(s) (gpt-4o); --authors takes a comma-separated list: "
         "poemetric figures --authors human,gpt-4o"),
        (["generate", "--run", "runs/x", "--models=markov", "gpt-4o", "qwq-32b", "--dry-run"],
         "Got unexpected extra argument(s) (gpt-4o qwq-32b); --models takes a comma-separated "
         "list: poemetric generate --run runs/x --models=markov,gpt-4o,qwq-32b --dry-run"),
        (["--run", "runs/x"],
         "No such option: --run; options go after a command's name (`poemetric --help` lists "
         "the commands)"),
        (["analyze", "runs/x"],
         "Got unexpected extra argument(s) (runs/x); a run folder is given with --run: "
         "poemetric analyze --run runs/x"),
        (["generate", "runs/x", "--models", "markov"],
         "Got unexpected extra argument(s) (runs/x); a run folder is given with --run: "
         "poemetric generate --run runs/x --models markov"),
        (["form", "run", "runs/x"],
         "Got unexpected extra argument(s) (runs/x); a run folder is given with --run: "
         "poemetric form run --run runs/x"),
        (["ghostwriting", "style-match", "--run", "runs/x"],
         "Missing option '--judge' / '-j'. give one of the judges: claude-3.7-sonnet, "
         "deepseek-r1, gemini-2.5-pro, gpt-4o, local-openai, smollm2-135m "
         "(`poemetric models --judges`)"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)  # fmt: skip
def test_the_error_says_what_to_write(args: list[str], expected: str) -> None:
    assert _usage_error(args) == expected


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["analyze", "--run", "runs/x", "extra"], "Got unexpected extra argument(s) (extra)"),
        (["analyze", "--runs", "runs/x"], "No such option: --runs (Possible options: --run)"),
        (["--foo", "analyze"], "No such option: --foo"),
        (["analyze", "--run", "runs/x", "--judge", "gpt-4o", "runs/y"],
         "Got unexpected extra argument(s) (runs/y)"),
        # an option of most commands: their list would say no more than the error
        (["merge", "--run", "runs/x", "runs/y"],
         "No such option: --run (Possible options: --out)"),
        (["merge", "runs/x"], "Missing option '--into' / '--out' / '--output' / '--to' / '-o'."),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)  # fmt: skip
def test_no_hint_where_none_is_known(args: list[str], expected: str) -> None:
    assert _usage_error(args) == expected


@pytest.mark.parametrize("store", [False, True], ids=["folder", "store file"])
def test_a_run_where_export_takes_tables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store: bool
) -> None:
    """`poemetric export runs/x` said "unknown table 'runs/x'; tables: ..."."""
    monkeypatch.chdir(tmp_path)
    RunStore(Path("runs/x"), create=True).close()
    word = "runs/x/poemetric.sqlite" if store else "runs/x"
    result = CliRunner().invoke(app, ["export", word, "calls"], env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (
        f"error: tables: {word!r} is a run, not a table; a run is given with --run: "
        f"poemetric export calls --run {word}"
    )
    assert not Path("runs/x/export").exists()


def test_a_folder_that_exists_is_a_run_folder_without_a_slash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("pilot").mkdir()
    assert _usage_error(["analyze", "pilot"]) == (
        "Got unexpected extra argument(s) (pilot); a run folder is given with --run: "
        "poemetric analyze --run pilot"
    )
