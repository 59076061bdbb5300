"""A command that is also a group of commands (`poemetric judge` runs the judge stage, and
`judge recognise`, `judge parse`, `judge reparse` are commands of it): options written before
a command's name are the group's own, which the command never reads.

`poemetric judge --dry-run --max-cost 0 recognise --run R --judge J` dropped `--dry-run` and
`--max-cost`: `recognise` asked the judge and paid for every answer, and `judge --run R
reparse` re-parsed `runs/default`, or said it had no run store there. Such a line is refused
with the line to write instead, before anything runs.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any, ClassVar

from typer.core import TyperGroup

from poemetric.cli.options import error_exit
from poemetric.cli.usage_hints import option_names
from poemetric.hints import program, run_by_make
from poemetric.suggest import did_you_mean

if TYPE_CHECKING:
    from typer._click import Command, Context  # typer's copy of click


#: `ctx.meta` key: the words given before the command's name.
BEFORE = "poemetric.options_before_command"


class OptionsAfterCommandGroup(TyperGroup):
    """A group whose options, given before one of its commands, are refused, not ignored
    (unless `refuses_options_before` is false: `models --judges show NAME` passes them on).

    `word_meant` is the word that a word given where a command's name goes most likely lacks
    before it, and what that word would then be (`poemetric judge --run R gpt-4o`: `--judge
    gpt-4o`, a judge; `poemetric models gpt-4o`: `show gpt-4o`, a model)."""

    refuses_options_before: ClassVar[bool] = True
    word_meant: ClassVar[tuple[str, str] | None] = None

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        args = list(args)  # the parser consumes the list it is given
        rest = super().parse_args(ctx, list(args))
        command = list(ctx._protected_args)
        if command:  # a command follows: did options come before it?
            after = [*command, *rest]
            before = args[: len(args) - len(after)]
            if before and args[len(before) :] == after:
                if before[-1] == "--":  # the end of the group's options, not an option
                    before = before[:-1]
                ctx.meta[BEFORE] = before
                if before and self.refuses_options_before:
                    self._refuse_options_before(ctx, before, command[0], rest)
        return rest

    def _refuse_options_before(
        self, ctx: Context, before: list[str], name: str, after: list[str]
    ) -> None:
        group = f"poemetric {ctx.info_name}"
        command = self.get_command(ctx, name)
        if command is None:  # not a command: resolve_command says so, with the group's hint
            return
        kept, missing = self._split_before(before, option_names(command))
        lacks = (
            f" (`{group} {name}` has no {', '.join(dict.fromkeys(missing))}, left out: "
            f"`{group} {name} --help` lists its options)"
            if missing
            else ""
        )
        if run_by_make():  # make wrote RUN, JUDGE, LIMIT before ARGS: no `ARGS=` can move them
            line = shlex.join([program(), str(ctx.info_name), name, *kept, *after])
            raise error_exit(
                f"`make {ctx.info_name}` runs `{group}` itself, and writes its variables (RUN, "
                f"JUDGE, LIMIT) before ARGS as `{group}`'s own options, which `{group} {name}` "
                f"does not read; nothing was run. `{group} {name}` has no make target: run it "
                f"with the options after its name{lacks}: {line}"
            )
        line = shlex.join(["poemetric", str(ctx.info_name), name, *kept, *after])
        raise error_exit(
            f"{' '.join(before)}: options written before `{name}` are `{group}`'s own, "
            f"which `{group} {name}` does not read; nothing was run. Write them after "
            f"the command's name{lacks}: {line}"
        )

    def _split_before(self, before: list[str], takes: set[str]) -> tuple[list[str], list[str]]:
        """The words of `before` whose options the command `takes`, with their values, and the
        names of the options it lacks (`judge --samples 2 reparse`: reparse has no --samples; the
        line written with it was refused in turn, "No such option: --samples")."""
        kept: list[str] = []
        missing: list[str] = []
        words = iter(before)
        for word in words:
            option, equals, _ = word.partition("=")
            param = next((p for p in self.params if option in _names(p)), None)
            value = [] if equals or param is None or _is_flag(param) else [next(words, "")]
            if not word.startswith("-") or option in takes:
                kept += [word, *value]
            else:
                missing.append(option)
        return kept, missing

    def resolve_command(
        self, ctx: Context, args: list[str]
    ) -> tuple[str | None, Command | None, list[str]]:
        name = args[0] if args else ""
        unknown = args and not name.startswith("-") and self.get_command(ctx, name) is None
        if unknown and not ctx.resilient_parsing:
            commands = list(self.list_commands(ctx))
            close = did_you_mean(name, commands)
            meant = ""
            if self.word_meant and not close:
                word, what = self.word_meant
                before = ctx.meta.get(BEFORE, [])
                words = self._with_word_meant(before, word, args)
                line = shlex.join(["poemetric", str(ctx.info_name), *words])
                meant = f"; if {name!r} is {what}: {line}"
            raise error_exit(
                f"`poemetric {ctx.info_name}` has no command {name!r}{close}; its commands: "
                f"{', '.join(commands)}{meant}"
            )
        return super().resolve_command(ctx, args)

    def _with_word_meant(self, before: list[str], word: str, args: list[str]) -> list[str]:
        """The words of the line meant: `word` before `args`, or, where `word` is an option
        already given before (`judge --judge gpt-4o claude-3.7-sonnet`, a list written with a
        space), `args`' first word added to its value, comma-separated: `--judge gpt-4o --judge
        claude-3.7-sonnet` would be refused as an option given twice."""
        names = next((_names(param) for param in self.params if word in _names(param)), set())
        given = [i for i, w in enumerate(before) if w.split("=", 1)[0] in names]
        if not given or not args:
            return [*before, word, *args]
        at = given[-1]
        option, equals, value = before[at].partition("=")
        words = list(before)
        if equals:
            words[at] = f"{option}={value},{args[0]}"
        elif at + 1 < len(words):
            words[at + 1] = f"{words[at + 1]},{args[0]}"
        else:
            return [*before, word, *args]
        return [*words, *args[1:]]


def _names(param: Any) -> set[str]:
    return {*param.opts, *param.secondary_opts}


def _is_flag(param: Any) -> bool:
    """True for an option that takes no value (`--dry-run`, `--no-progress`)."""
    return bool(getattr(param, "is_flag", False) or getattr(param, "count", False))


class JudgeGroup(OptionsAfterCommandGroup):
    """`poemetric judge`: a word where a command goes is most likely a judge's name."""

    word_meant = ("--judge", "a judge")


class ModelsGroup(OptionsAfterCommandGroup):
    """`poemetric models`: `--judges` before `show` is passed on (models_cmd); a word where a
    command goes is most likely a model's name."""

    refuses_options_before = False
    word_meant = ("show", "a model")
