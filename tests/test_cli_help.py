"""Every command's --help teaches with examples, and the examples only use real options."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

import typer
import typer.main
from typer.testing import CliRunner

from poemetric.cli import app


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if hasattr(group, "commands"):
        if path and group.callback is not None:
            yield path, group  # a group that does work itself (e.g. `poemetric models`)
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):  # loads lazily registered commands
            yield from _commands(group.get_command(ctx, name), (*path, name))
    else:
        yield path, group


def _options(command: Any) -> set[str]:
    names = {opt for param in command.params for opt in getattr(param, "opts", [])}
    names |= {opt for param in command.params for opt in getattr(param, "secondary_opts", [])}
    return names


def test_every_command_has_examples_that_name_only_real_options() -> None:
    root = typer.main.get_command(app)
    checked = 0
    for path, command in _commands(root):
        result = CliRunner().invoke(app, [*path, "--help"], terminal_width=200)
        assert result.exit_code == 0, path
        prefix = " ".join(("poemetric", *path))
        examples = [
            line.strip().strip("│").strip()
            for line in result.output.splitlines()
            if line.strip().strip("│").strip().startswith(prefix + " ")
            or line.strip().strip("│").strip() == prefix
        ]
        assert examples, f"`{prefix} --help` shows no example"
        known = _options(command)
        required = [
            param.opts
            for param in command.params
            if param.required and getattr(param, "param_type_name", "") == "option"
        ]
        for example in examples:
            words = shlex.split(example.replace("…", ""))
            for word in words:
                option = word.split("=", 1)[0]
                if re.fullmatch(r"--?[a-z][a-z-]*", option):
                    assert option in known, f"{example!r}: {prefix} has no option {option}"
            # `merge`'s example left out --into, which it requires: copied, it failed.
            given = {word.split("=", 1)[0] for word in words}
            for opts in required:
                assert given & set(opts), f"{example!r}: {prefix} requires {opts[0]}"
        checked += 1
    assert checked >= 18


def test_generate_and_judge_help_say_how_a_stop_ends_and_the_exit_statuses() -> None:
    """docs/running.md's cluster section, where a batch-job user looks first: the grace
    variable of Ctrl-C / SIGTERM and what each exit status means."""
    for command in ("generate", "judge"):
        result = CliRunner().invoke(app, [command, "--help"], terminal_width=200)
        assert result.exit_code == 0
        text = " ".join(result.output.replace("│", " ").split())
        assert "POEMETRIC_STOP_GRACE seconds (default 20)" in text, command
        assert "SIGTERM" in text and "130 / 143" in text and "Exit status: 0" in text, command
