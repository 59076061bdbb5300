"""Usage errors that say what to write instead, for an option or a run folder in the wrong
place:

- `poemetric --run runs/x analyze` said "No such option: --run": options go after the
  command's name (`poemetric analyze --run runs/x`);
- `poemetric form --run runs/x` and `poemetric form check --run runs/x` said "No such option:
  --run": it is an option of `poemetric form run`;
- `poemetric judge recognise --samples 2` said "No such option: --samples": it is an option of
  `poemetric judge` itself (the judge stage), which `judge recognise` does not take;
- `poemetric judge --models gpt-4o` said "No such option: --models": judges are named with
  `--judge` (`poemetric judge --judge gpt-4o`);
- `poemetric analyze --authors human` said "No such option: --authors (Possible options: --to)":
  it is an option of `poemetric figures` and `poemetric judge`;
- `poemetric analyze runs/x` said "Got unexpected extra argument(s) (runs/x)": a run folder is
  given with `--run` (`poemetric analyze --run runs/x`);
- `poemetric generate --models markov gpt-4o` said "Got unexpected extra argument(s) (gpt-4o)":
  a list is comma-separated (`--models markov,gpt-4o`);
- `poemetric ghostwriting style-match` without its required --judge said "Missing option
  '--judge'": the judges to choose from are named.

`add_hint` adds the line to the error's message; the error is shown as before (usage, box)."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typer.core import TyperGroup

if TYPE_CHECKING:
    from typer._click import Command, Context
    from typer._click.exceptions import UsageError

#: `ctx.meta` key (shared by every context of one command line): the words after `poemetric`.
WORDS = "poemetric.command_words"
EXTRA = re.compile(r"^Got unexpected extra argument\(s\) \((.+)\)$")


def add_hint(error: UsageError, words: list[str]) -> None:
    """Append what to write instead to `error`'s message, where one of the cases above is it."""
    from typer._click.exceptions import MissingParameter, NoSuchOption

    ctx = error.ctx
    if ctx is None:
        return
    hint = None
    if isinstance(error, NoSuchOption):
        option = error.option_name
        hint = (
            _judges_hint(ctx, option, words)
            or _option_hint(ctx, option, words)
            or _root_command_hint(ctx, option)
        )
    elif isinstance(error, MissingParameter) and "--judge" in getattr(error.param, "opts", []):
        hint = _missing_judge_hint()
    elif match := EXTRA.match(error.message):
        extras = match.group(1).split(" ")
        hint = _run_folder_hint(ctx, extras[0], words) if len(extras) == 1 else None
        hint = hint or _list_hint(ctx, extras, words)
    if hint:
        # MissingParameter's own text comes before its message: "Missing option '--judge'. MSG"
        missing = isinstance(error, MissingParameter)
        error.message = hint if missing else f"{error.format_message()}; {hint}"
        if isinstance(error, NoSuchOption):
            error.possibilities = None  # already in the message, before the hint


def _option_hint(ctx: Context, option: str, words: list[str]) -> str | None:
    """`option` was given to a group, or to a command without it: the commands that take it."""
    command = ctx.command
    if isinstance(command, TyperGroup):
        names = _path(ctx)
        rest = words[len(names) :]
        path, leaf = _named_command(ctx, command, rest)
        if path:  # `poemetric --run R analyze`, `poemetric form --run R run`
            if option not in option_names(leaf):
                return None
            moved = list(rest)
            for name in path:
                moved.remove(name)
            line = shlex.join(["poemetric", *names, *path, *moved])
            return f"the options of `{_command_line(names + path)}` go after its name: {line}"
        owners = _owners(ctx, command, option) if ctx.parent is not None else []
        if len(owners) == 1:  # `poemetric form --run R`
            line = shlex.join(["poemetric", *names, owners[0], *rest])
            return f"{option} is an option of `{_command_line(names + owners)}`: {line}"
        if owners:
            each = ", ".join(f"`{_command_line([*names, name])}`" for name in owners)
            return f"{option} is an option of {each}"
        if ctx.parent is None:
            return "options go after a command's name (`poemetric --help` lists the commands)"
        return None
    parent = ctx.parent
    if parent is None or parent.parent is None or not isinstance(parent.command, TyperGroup):
        return None  # a command of the root: its siblings are not loaded (app.LazyGroup)
    group = _path(parent)
    owners = [
        f"`{_command_line([*group, name])}`"
        for name in _owners(parent, parent.command, option)
        if name != ctx.info_name
    ]
    if option in option_names(parent.command):  # `judge recognise --samples 2`: judge's own
        owners.insert(0, f"`{_command_line(group)}` itself")
    if not owners:
        return None
    return f"{option} is an option of {', '.join(owners)}, not of `{_command_line(_path(ctx))}`"


#: `judge --models gpt-4o`: generate's option for its models, where `judge` names its judges
#: with --judge.
MODELS_OPTIONS = ("--models", "-m")
#: The most commands of the root that `_root_command_hint` names as taking an option.
ROOT_OWNERS_NAMED = 3


def _judges_hint(ctx: Context, option: str, words: list[str]) -> str | None:
    """`judge --models gpt-4o`, `judge recognise -m gpt-4o`: the line with --judge. Not for
    `demo`, whose --judge is a judge more, not the models that write."""
    path = _path(ctx)
    if path[:1] != ["judge"] or option not in MODELS_OPTIONS:
        return None
    if "--judge" not in option_names(ctx.command):
        return None
    line = [_renamed(word, MODELS_OPTIONS, "--judge") for word in words]
    return (
        f"{option} names the models of `poemetric generate`; `{_command_line(path)}` names its "
        f"judges with --judge: {shlex.join(['poemetric', *line])}"
    )


def _missing_judge_hint() -> str | None:
    """`ghostwriting style-match` without --judge, which it requires: the judges to name (the
    usage error said only "Missing option '--judge'")."""
    from poemetric.roster import RosterError, load_catalog

    try:
        names = load_catalog("judges").names()
    except RosterError:
        return None
    return (
        f"give one of the judges: {', '.join(names)} (`poemetric models --judges`)"
        if names
        else None
    )


def _root_command_hint(ctx: Context, option: str) -> str | None:
    """`option` given to a command of the root that lacks it: `analyze --authors human` is told
    the commands that take --authors (click said only "Possible options: --to"). The other
    commands are loaded for it (`app.LazyGroup`): a cost of the error alone."""
    root = ctx.parent
    if root is None or root.parent is not None or not isinstance(root.command, TyperGroup):
        return None
    here = str(ctx.info_name)
    group = root.command
    owners = [
        name
        for name in group.list_commands(root)
        if name != here and option in option_names(group.get_command(root, name))
    ]
    if not owners or len(owners) > ROOT_OWNERS_NAMED:
        return None  # `merge --run`: a list of most commands says nothing "No such option" does not
    each = ", ".join(f"`{_command_line([name])}`" for name in owners)
    return f"{option} is an option of {each}, not of `{_command_line([here])}`"


def _renamed(word: str, names: tuple[str, ...], name: str) -> str:
    """`word` with the option `names` renamed `name` (`--models=x` -> `--judge=x`)."""
    option, equals, value = word.partition("=")
    return f"{name}{equals}{value}" if option in names else word


def _named_command(
    ctx: Context, group: TyperGroup, words: list[str]
) -> tuple[list[str], Command | None]:
    """The command names among `words`, from `group` down (`['form', 'run']`), and the command
    they name; `([], None)` when no word names a command of `group`."""
    path: list[str] = []
    command: Command | None = group
    for word in words:
        if not isinstance(command, TyperGroup):
            break
        if word in command.commands:
            path.append(word)
            command = command.get_command(ctx, word)
    return path, (command if path else None)


def _list_hint(ctx: Context, extras: list[str], words: list[str]) -> str | None:
    """`generate --models markov gpt-4o`, `analyze --judge a b`: a list written with spaces,
    the words too many right after the value of an option that takes a comma-separated list."""
    from poemetric.cli.repeated_options import TAKES_LIST

    if any("/" in word or os.sep in word for word in extras):
        return None  # a path, not a name of a list: `--run R --judge J runs/y`
    params: list[Any] = list(ctx.command.params)
    lists = {
        name for p in params if TAKES_LIST.search(getattr(p, "help", "") or "") for name in p.opts
    }
    for index, word in enumerate(words):
        option, equals, value = word.partition("=")
        if option not in lists or (not equals and index + 1 >= len(words)):
            continue
        after = index + 1 if equals else index + 2
        value = value if equals else words[index + 1]
        if words[after : after + len(extras)] != extras:
            continue
        joined = ",".join([value, *extras])
        given = [f"{option}={joined}"] if equals else [option, joined]
        line = [*words[:index], *given, *words[after + len(extras) :]]
        return f"{option} takes a comma-separated list: {shlex.join(['poemetric', *line])}"
    return None


def _run_folder_hint(ctx: Context, word: str, words: list[str]) -> str | None:
    """`poemetric analyze runs/x`: a word too many, where the command takes `--run`, that reads
    as a folder (a path, or a folder that exists): `analyze --judge gpt-4o claude-3.7-sonnet` was
    told to give `--run claude-3.7-sonnet`."""
    if "--run" not in option_names(ctx.command) or "--run" in words or words.count(word) != 1:
        return None
    if not _reads_as_a_folder(word):
        return None
    replaced = [part for w in words for part in (["--run", w] if w == word else [w])]
    return f"a run folder is given with --run: {shlex.join(['poemetric', *replaced])}"


def _reads_as_a_folder(word: str) -> bool:
    """`runs/x`, `./x`, `runs/x/poemetric.sqlite`, or a folder that exists (`x` beside runs)."""
    path = Path(word)
    return "/" in word or os.sep in word or path.suffix == ".sqlite" or path.is_dir()


def _path(ctx: Context) -> list[str]:
    """The command's words after `poemetric` (`['form', 'run']`)."""
    names = []
    while ctx.parent is not None:
        names.append(str(ctx.info_name))
        ctx = ctx.parent
    return names[::-1]


def _command_line(names: list[str]) -> str:
    return " ".join(["poemetric", *names])


def _owners(ctx: Context, group: TyperGroup, option: str) -> list[str]:
    """The commands of `group` that take `option`."""
    return [
        name
        for name in group.list_commands(ctx)
        if option in option_names(group.get_command(ctx, name))
    ]


def option_names(command: Command | None) -> set[str]:
    """Every name of every option of `command` (`--run`, `-r`, `--no-progress`)."""
    params: list[Any] = list(command.params) if command is not None else []
    return {name for param in params for name in (*param.opts, *param.secondary_opts)}
