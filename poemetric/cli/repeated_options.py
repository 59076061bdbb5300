"""An option given twice counted only its last value, without a word: `generate --models markov
--models gpt-4o` asked gpt-4o alone, `judge --judge gpt-4o --judge claude-3.7-sonnet` judged
with Claude alone, `analyze --run a --run b` read `b`. Such a line is refused before the command
runs, with both values and how to give them once (comma-separated where the option takes a
list; under make, the variable that gives the option). A path option's values count as one where
they name the same path: `--run runs/x --run runs/x/` (a shell completes the slash), `./runs/x`,
or for `--run`, `runs/x/poemetric.sqlite`, which names the run `runs/x`."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poemetric.cli.options import error_exit
from poemetric.cli.output_paths import OUTPUT_NAMES
from poemetric.cli.typed_names import TYPED_NAMES
from poemetric.hints import run_by_make

if TYPE_CHECKING:
    from typer._click import Command, Context

#: The options make passes itself, by the variable that gives each (Makefile).
MAKE_VARIABLES = {
    "--run": "RUN",
    "--dataset": "DATASET",
    "--models": "MODELS",
    "--judge": "JUDGE",
    "--limit": "LIMIT",
}
#: How an option that takes a list says so in its help ("Comma-separated model names ...").
#: Not "comma" alone: `--max-cost`'s help ("Spend at most USD in this command") holds it too, and
#: `--max-cost 5 --max-cost 10` was told to give `--max-cost 5,10`, which is no number.
TAKES_LIST = re.compile(r"\bcomma[- ]separated\b", re.IGNORECASE)


def refuse_repeated_options(ctx: Context, words: list[str]) -> None:
    """Exit (status 2) where an option of the command `words` name, which takes one value, is
    given twice with different values. Each output option given (`output_paths.OUTPUT_NAMES`) is kept
    in `ctx.meta[TYPED_NAMES]` by every name of it, as typed (`export --out x`: `--to` ->
    `--out`), for typed_names.as_typed."""
    command, rest = _command_and_words(ctx, words)
    if command is None or "--help" in rest:
        return
    options = _single_value_options(command)
    given: dict[str, list[str]] = {}
    written: dict[str, str] = {}
    typed: dict[str, str] = ctx.meta.setdefault(TYPED_NAMES, {})
    index = 0
    while index < len(rest):
        word = rest[index]
        if word == "--":
            break
        name, equals, value = word.partition("=")
        if word[:1] == "-" and word[1:2] not in ("-", "") and word[:2] in options:
            # A short option: its value attached (`-ox.csv`, click reads `-o=x` as "=x").
            name, equals, value = word[:2], word[2:], word[2:]
        param = options.get(name) if name.startswith("-") else None
        if param is not None:
            if not equals:
                if index + 1 >= len(rest):
                    break  # the option's own error: it requires an argument
                index += 1
                value = rest[index]
            given.setdefault(param.name, []).append(value)
            output = any(option in OUTPUT_NAMES for option in param.opts)
            # An output option as first typed: its longest name was `--output`, which `export`
            # (`--to`) and `analyze` (`--out`) name nowhere, for `-o a -o b`.
            written.setdefault(param.name, name if output else max(param.opts, key=len))
            if output:
                typed.update(dict.fromkeys(param.opts, name))
        index += 1
    for key, values in given.items():
        param = options[written[key]]
        if len({_meant(param, value) for value in values}) > 1:
            raise error_exit(_message(written[key], values, param))


def _meant(param: Any, value: str) -> str:
    """What `value` names as `param`'s value: for a path option, the path it resolves to, so
    that `runs/x/` and `./runs/x` are `runs/x` (for `--run`, the run's folder for its store file,
    as options.run_folder reads it)."""
    from poemetric.store.db import DB_NAME

    descriptor = getattr(param, "type_descriptor", None)
    if getattr(descriptor, "annotation", None) is not Path or value == "-":
        return value  # not a path; `-` is standard input or output, not a file named "-"
    path = Path(os.path.abspath(value))  # not `~`-expanded: the command takes it as written
    try:
        if "--run" in param.opts and path.name == DB_NAME and not path.is_dir():
            path = path.parent
        return str(path.resolve())
    except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop: the command's own
        return str(path)  # error names them


def _message(option: str, values: list[str], param: Any) -> str:
    listed = ", ".join(values)
    counted = "twice" if len(values) == 2 else f"{len(values)} times"
    takes_list = bool(TAKES_LIST.search(param.help or ""))
    joined = ",".join(dict.fromkeys(values))
    variable = MAKE_VARIABLES.get(option) if run_by_make() else None
    if variable:
        # make's own value comes first (its default, as MODELS=markov, when the user set none):
        # the last is the one written in ARGS; both only where the option takes a list
        both = f" (or {variable}={joined} for both)" if takes_list else ""
        how = (
            f"under make, {variable} gives {option}: give it once, as "
            f"{variable}={values[-1]}{both}, not in ARGS"
        )
    elif takes_list:
        how = f"give it once, comma-separated: {option} {joined}"
    else:
        how = "give it once"
    return f"{option} is given {counted} ({listed}), and only the last would count; {how}"


def _command_and_words(ctx: Context, words: list[str]) -> tuple[Command | None, list[str]]:
    """The command the words name (a group's commands followed down) and the words after its
    name."""
    from typer.core import TyperGroup

    command: Command | None = ctx.command
    rest = list(words)
    while isinstance(command, TyperGroup):
        index = next((i for i, word in enumerate(rest) if word in command.commands), None)
        if index is None:
            break
        if ctx.command is not command and any(w.startswith("-") for w in rest[:index]):
            return None, []  # a group's options before its command: command_groups refuses them
        command = command.get_command(ctx, rest[index])
        rest = rest[index + 1 :]
    if command is ctx.command:
        return None, []
    return command, rest


def _single_value_options(command: Command) -> dict[str, Any]:
    """Option name -> option, for the options that take one value (not flags, not repeatable)."""
    from typer.core import TyperOption

    options: dict[str, Any] = {}
    for param in command.params:
        single = isinstance(param, TyperOption) and not (
            param.multiple or param.is_flag or param.count
        )
        if single and param.nargs == 1:
            options.update(dict.fromkeys(param.opts, param))
    return options
