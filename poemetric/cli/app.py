"""The `poemetric` command line: one subcommand per pipeline stage.

Commands are loaded lazily: `poemetric form check` imports only `form_cmd` (and what it uses),
not every stage's libraries. `COMMANDS` names each command's module(s) and the one-line help
that `poemetric --help` lists without importing them; a test keeps it complete.
"""

from __future__ import annotations

import errno
import gc
import importlib
import sqlite3
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from poemetric import __version__
from poemetric.cli import closed_output, env_values, usage_hints
from poemetric.cli.help_render import install_on_help

if TYPE_CHECKING:
    from typer._click import Command, Context, HelpFormatter  # typer's copy of click


class Lazy:
    """A command not loaded yet: the modules that define it and its one-line help."""

    def __init__(self, summary: str, *modules: str) -> None:
        self.summary = summary
        self.modules = tuple(f"poemetric.cli.{name}" for name in modules)


#: Every top-level command, in the order `poemetric --help` lists them.
COMMANDS: dict[str, Lazy] = {
    "agree": Lazy(
        "Inter-rater agreement per item and pooled, with bootstrap CIs (PAo, Krippendorff's α, "
        "Gwet's AC1/AC2, weighted kappa, Spearman, Kendall).",
        "agree_cmd",
    ),
    "analyze": Lazy(
        "Per-author tables (judge dimensions, form checks, lexical features, agreement with "
        "experts) in RUN/analysis/, and a summary in the terminal.",
        "analyze_cmd",
    ),
    "figures": Lazy(
        "Publication figures (vector PDF + 300-dpi PNG, each with a caption file) in RUN/figures/.",
        "analyze_cmd",
    ),
    "generate": Lazy(
        "Generate poems: each model answers each prompt of the run's dataset (x --samples).",
        "generate_cmd",
    ),
    "demo": Lazy(
        "Run the whole pipeline offline on the demo dataset, from prompts to report. No key, GPU "
        "or network needed.",
        "demo_cmd",
    ),
    "export": Lazy("Export tables of a run store, one file per table.", "export_cmd"),
    "merge": Lazy(
        "Merge run stores, e.g. the shards of a run made with generate --shard K/N.", "merge_cmd"
    ),
    "batches": Lazy(
        "Provider batches of a run (--batch): list them, abandon one whose results cannot be "
        "downloaded so that the next run submits its jobs again.",
        "batches_cmd",
    ),
    "report": Lazy(
        "The run report: an HTML page to open from disk (leaderboard, charts, form checks, "
        "judges, poem browser); one file, or with a folder of poems for a large run.",
        "report_cmd",
    ),
    "dataset": Lazy(
        "Human poem datasets: validate a file, list and show known datasets, fetch the release.",
        "dataset_cmd",
    ),
    "form": Lazy(
        "Rule-based form checks: meter, rhyme and the fixed-form rules of the seven forms.",
        "form_cmd",
    ),
    "ghostwriting": Lazy(
        "Ghostwriting measures (Potash et al.): rhyme density, uniqueness, near-copies, style "
        "matching, line-level sheets.",
        "ghostwriting_cmd",
        "ghostwriting_protocols_cmd",
    ),
    "judge": Lazy(
        "LLM-as-a-judge: score poems with the POEMetric questionnaire, parse answers, probe "
        "memorisation.",
        "judge_cmd",
        "judge_recognise_cmd",
    ),
    "models": Lazy(
        "The model roster: generators/ (or judges/ with --judges), one YAML file per model.",
        "models_cmd",
    ),
    "probe": Lazy(
        "Minimal-pair probes: does a language model prefer an original poem to a minimally "
        "corrupted copy?",
        "probe_cmd",
    ),
    "prompts": Lazy("Prompt templates: list them and render them for a dataset.", "prompts_cmd"),
    "docs": Lazy(
        "The documentation pages that help texts and messages name (docs/NAME.md): print one, "
        "or list them. They come with the package.",
        "docs_cmd",
    ),
    "survey": Lazy(
        "Human ratings: the expert survey or line-level fluency / coherence; draw a sample, "
        "serve it, import answers.",
        "survey_cmd",
        "survey_answers_cmd",
    ),
}


class LazyGroup(TyperGroup):
    """The root group: a command's module is imported when the command is looked up to run
    (or to show its own help); listing commands in `--help` shows `COMMANDS`' summaries."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        registered = dict(self.commands)
        self.commands = {}
        for name, lazy in COMMANDS.items():
            # A command is complete only once all its modules are imported (`ghostwriting` with
            # ghostwriting_cmd alone lacks the protocol commands).
            command = registered.pop(name, None)
            complete = command is not None and all(m in sys.modules for m in lazy.modules)
            self.commands[name] = command if command and complete else _placeholder(name, lazy)
        self.commands.update(registered)  # not in COMMANDS: a test forbids that
        self._listing = False

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        from typer._click.exceptions import UsageError

        ctx.meta[usage_hints.WORDS] = words = list(args)  # the parser consumes `args`
        try:
            return super().parse_args(ctx, args)
        except UsageError as error:  # `poemetric --run R analyze`: say where options go
            usage_hints.add_hint(error, words)
            raise
        except OSError as error:  # `poemetric --help | head`: Click made it a silent status 1
            if (closed := closed_output.output_closed(error)) is None:
                raise
            raise closed from None

    def invoke(self, ctx: Context) -> Any:
        from typer._click.exceptions import UsageError

        from poemetric.cli.repeated_options import refuse_repeated_options

        words = ctx.meta.get(usage_hints.WORDS, [])
        refuse_repeated_options(ctx, words)  # `--models a --models b` ran b alone
        try:
            return super().invoke(ctx)
        except UsageError as error:  # a command's: `form --run R`, `analyze runs/x`
            usage_hints.add_hint(error, words)
            raise
        except OSError as error:  # `poemetric models | head` (closed_output)
            if (closed := closed_output.output_closed(error)) is None:
                raise
            raise closed from None

    def get_command(self, ctx: Context, cmd_name: str) -> Command | None:
        command = self.commands.get(cmd_name)
        if isinstance(command, _Unloaded) and not self._listing:
            command = self.commands[cmd_name] = _load(cmd_name)
        return command

    def format_help(self, ctx: Context, formatter: HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


class _Unloaded(TyperCommand):
    """Stands in for a command in the listing until the command is needed."""


def _placeholder(name: str, lazy: Lazy) -> Command:
    return _Unloaded(name, short_help=lazy.summary)


def _load(name: str) -> Command:
    lazy = COMMANDS[name]
    for module in lazy.modules:
        importlib.import_module(module)  # registers its commands on `app`
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    if isinstance(command, _Unloaded):
        raise RuntimeError(f"{', '.join(lazy.modules)} defines no command {name!r}")
    command.short_help = lazy.summary
    return command


install_on_help()  # --help folds long words instead of cutting them (help_render)
closed_output.install()  # Rich's write to a closed pipe ends the command as any other's does
env_values.install()  # a bad POEMETRIC_* yes/no or number is one error line (env_values)

app = typer.Typer(
    name="poemetric",
    cls=LazyGroup,
    help=(
        "Measure how well LLMs write fixed-form poetry, and how far they are from human poets.\n\n"
        "Pipeline: dataset, prompts, generate, form/judge, analyze, figures/report.\n\n"
        "Each stage reads the previous stage's results from the run store (RUN/poemetric.sqlite)"
        " and can be re-run alone.\n\n"
        "Start with `poemetric demo` (offline, no keys, no GPU).\n\n"
        "A page docs/NAME.md that a help text or message names: `poemetric docs NAME` prints it."
    ),
    no_args_is_help=True,
    rich_markup_mode="markdown",
    pretty_exceptions_show_locals=False,
)


#: The errors of a write that found no space (a full disk, a disk quota, `ulimit -f`).
_NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"poemetric {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """POEMetric command line."""


def main() -> None:
    from poemetric.data.text_files import TextFileError
    from poemetric.env_settings import SettingError
    from poemetric.paths import SurveySecretError
    from poemetric.runner import stopping
    from poemetric.store import ReadOnlyStoreError, StoreWriteError
    from poemetric.store.connect import disk_failure, lock_failure, only_opened_store

    stopping.install()  # SIGTERM stops a command as Ctrl-C does; both let calls in flight end
    try:
        app()
    except SystemExit as end:
        how = stopping.by_signal()  # " by SIGTERM"; "" after Ctrl-C
        if how and end.code == stopping.exit_status(None):  # typer's 130
            print(f"Interrupted{how}.", file=sys.stderr)
            end = SystemExit(stopping.exit_status(stopping.received()))
        if isinstance(end.code, int) and "poemetric.runner.loading" in sys.modules:  # a stage
            from poemetric.runner.loading import exit_if_loading

            exit_if_loading(end.code)  # a stop during a local model's load: not after it
        raise end from None
    except StoreWriteError as error:  # a full disk while a stage ran: what it stored is kept
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
    except sqlite3.OperationalError as error:  # a full disk elsewhere (a new run's store)
        opened = only_opened_store()  # None: several (or none), and which one is not known
        if (locked := lock_failure(opened, error)) is not None:
            print(f"error: {locked}", file=sys.stderr)
            sys.exit(1)
        why = disk_failure(error)
        if why is None:
            _crash(error)
        else:
            store = "a run store" if opened is None else f"the run store {opened}"
            print(
                f"error: could not write {store} ({error}: {why}); the command stopped, "
                "what it stored before is kept. Free space there and run the same command again",
                file=sys.stderr,
            )
        sys.exit(1)
    except (SettingError, ReadOnlyStoreError, TextFileError, SurveySecretError) as error:
        # A bad POEMETRIC_* value, a writing command on a read-only run, a file no command reads
        # itself that is no UTF-8 text (a $POEMETRIC_HOME's datasets/NAME/errata.yaml), a survey
        # secret cut short: unusable input
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        raise
    except OSError as error:  # a closed pipe outside a command (an error line to `| head`)
        if (closed := closed_output.output_closed(error)) is None:
            _crash(error)
        raise closed from None
    except BaseException as error:  # a crash: a bug, or a failure no command handles
        # BaseException too: what an adapter raises from a library's own BaseException (gevent's
        # Timeout, trio's Cancelled) goes through the runner, which lets those through as it
        # lets cancellation through, and Python's own hook printed it with the key in clear.
        _crash(error)
    finally:
        # The process is about to end: spare the garbage collector's final passes over what the
        # command built (the form checker's caches took 1.5 s to tear down after 1,630 poems).
        gc.freeze()
        _forget_handled_interrupts()


def _forget_handled_interrupts() -> None:
    """Make CPython forget a KeyboardInterrupt that left code run by `exec` of a string and was
    handled since (the stop signal landed while a late import's dataclass was being created:
    dataclasses make its methods so). CPython marks such an interrupt as unhandled, and under
    `python -m poemetric` it then ended the process by SIGINT once the command had exited, after
    "Interrupted by SIGTERM." and a status of 143 (the installed script exits before the mark
    is read). A successful `exec` of a string clears the mark; a KeyboardInterrupt that does
    leave `main` sets it again, afterwards. A further signal during the `exec` is let go: the
    command already chose its status."""
    while True:
        try:
            exec("pass")  # a string: CPython clears the mark on this path
        except KeyboardInterrupt:
            continue
        return


def _crash(error: BaseException) -> NoReturn:
    """End the command on an error no command handles: a damaged run store (exit 2, unusable
    input) and a full disk (exit 1) are said in one line; anything else is a crash, its
    traceback printed (exit 1)."""
    if _told_damaged_store(error):
        sys.exit(2)
    if _told_full_disk(error):
        sys.exit(1)
    _print_crash(error)
    sys.exit(1)


def _found_in_chain(error: BaseException, kind: type[BaseException]) -> BaseException | None:
    """`error`, or the first exception of `kind` it came from (its cause or context): pandas
    wraps SQLite's errors in its own, and matplotlib's cleanup hid a full disk's OSError."""
    seen: BaseException | None = error
    met: set[int] = set()
    while seen is not None and id(seen) not in met:
        if isinstance(seen, kind):
            return seen
        met.add(id(seen))
        seen = seen.__cause__ or seen.__context__
    return None


def _told_damaged_store(error: BaseException) -> bool:
    """Say which run store is damaged when SQLite found a damaged page in a store whose first
    pages were whole (a torn copy); False, having said nothing, for any other error."""
    from poemetric.store.connect import damaged_stores, not_a_store

    found = _found_in_chain(error, sqlite3.DatabaseError)
    if not isinstance(found, sqlite3.DatabaseError):
        return False
    damaged = damaged_stores(found)
    for path in damaged:
        print(f"error: {not_a_store(path, found)}", file=sys.stderr)
    return bool(damaged)


def _told_full_disk(error: BaseException) -> bool:
    """Say that a file could not be written for want of space (a full disk, a used-up quota, a
    file size limit): the tables, figures or export files a command writes; False, having said
    nothing, for any other error."""
    found = _found_in_chain(error, OSError)
    if not isinstance(found, OSError) or found.errno not in _NO_SPACE:
        return False
    where = f": {found.filename}" if found.filename else ""
    print(
        f"error: could not write the command's output ({found.strerror}{where}): is its disk "
        "full, your disk quota used up or a file size limit reached? What the command stored "
        "in the run before is kept; free space there (or give --out elsewhere) and run the "
        "command again",
        file=sys.stderr,
    )
    return True


def _print_crash(error: BaseException) -> None:
    """The crash's traceback on stderr without any key (`poemetric.redaction`): the exception
    an adapter raises a `ProviderError` from is the SDK's, with the provider's answer (a proxy
    echoing the request's headers) unscrubbed, and Typer printed it as it was."""
    import traceback

    from poemetric.redaction import Redactor

    sys.stderr.write(Redactor()("".join(traceback.format_exception(error))))
