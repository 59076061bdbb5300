"""Options shared by several subcommands, so every command spells them the same way."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from poemetric.agreement_defaults import AGREEMENT_BOOTSTRAP, BOOTSTRAP_SEED
from poemetric.cli.typed_names import as_typed
from poemetric.hints import file_as_run, recorded_dataset, run_by_make, stage_command
from poemetric.suggest import did_you_mean

if TYPE_CHECKING:
    from poemetric.data import Dataset
    from poemetric.store import RunStore

DEFAULT_RUN = Path("runs/default")


def run_folder(run: Path) -> Path:
    """The run folder of a `--run` (`run_option`'s callback): its store file
    (`runs/x/poemetric.sqlite`, as a shell completes it) names the run `runs/x`; it was taken for a
    folder ("no run store at .../poemetric.sqlite/..."). `-` is refused (exit 2): it made a run
    folder named "-" (`generate`, `demo`) or was looked for as one."""
    from poemetric.store.db import DB_NAME

    why = "a run is a folder (it holds poemetric.sqlite), not standard input or output"
    not_standard_output(run, "--run", "folder", why=why)
    if run.name != DB_NAME and (message := file_as_run(run)):
        raise error_exit(message)
    return run.parent if run.name == DB_NAME and not run.is_dir() else run


def run_option(default: Path, help: str) -> Any:
    """`--run`/`-r`, a run folder: every command's goes through `run_folder`."""
    return typer.Option(default, "--run", "-r", callback=run_folder, help=help)


RunOption = run_option(
    DEFAULT_RUN,
    "Run directory (holds poemetric.sqlite and outputs); the path of its poemetric.sqlite names "
    "the same run (runs/x/poemetric.sqlite is runs/x).",
)
DatasetOption = typer.Option(
    "demo",
    "--dataset",
    "-d",
    help="Dataset: 'demo' or 'lear-limericks' (bundled), 'poemetric' (after `poemetric dataset "
    "fetch poemetric`), or a path to a CSV/TSV/JSONL/Parquet file.",
)
ModelsOption = typer.Option(
    "markov",
    "--models",
    "-m",
    help="Comma-separated model names or groups from generators/ (e.g. 'gpt-4o,qwen2.5-7b-instruct'"
    " or 'paper30'; 'all': every model of the roster, as shipped the paper's 30 plus markov and "
    "smollm2-135m). The human author is always included.",
)
JudgeOption = typer.Option(
    None,
    "--judge",
    "-j",
    help="Only these judges' scores: a judge, several comma-separated or a judge group, as "
    "`poemetric judge` takes them (e.g. gemini-2.5-pro, pilot); default: every judge.",
)
LimitOption = typer.Option(
    None, "--limit", "-n", min=1, help="Only the first N poems of the dataset (quick trials)."
)
BootstrapOption = typer.Option(
    AGREEMENT_BOOTSTRAP,
    "--bootstrap",
    min=0,
    help="Bootstrap resamples for the agreement CIs (0: none).",
)
SeedOption = typer.Option(BOOTSTRAP_SEED, "--seed", help="Random seed of the bootstraps.")
#: `--progress/--no-progress` of every long-running command (generate, demo, judge, judge
#: recognise, ghostwriting style-match, ghostwriting metrics, form check, form run, probe build,
#: probe run, analyze).
ProgressOption = typer.Option(
    True,
    "--progress/--no-progress",
    help="Progress bars; where the output is not a terminal (a log file), a line every "
    "POEMETRIC_PROGRESS_EVERY seconds (default 60) instead. --no-progress: neither.",
)


def error_exit(message: object, code: int = 2) -> typer.Exit:
    """Print ``error: <message>`` on stderr, on one line and never read as console markup (an
    install hint's ``[vllm]`` stays text), and return the exit to raise (2: unusable input)."""
    from rich.console import Console
    from rich.markup import escape

    Console(emoji=False, stderr=True).print(
        f"[red]error:[/red] {escape(str(message))}", highlight=False, soft_wrap=True
    )
    return typer.Exit(code)


def file_warnings(warnings: list[str]) -> None:
    """Print how a file was read (`warning: FILE:LINE: ...` or `warning: FILE: ...` on stderr,
    as `dataset validate` words a dataset's): a ratings file read as Windows-1252 or as
    semicolon-separated. Each warning names its file (and line) itself."""
    for warning in warnings:
        typer.echo(f"warning: {warning}", err=True)


def dataset_warnings(dataset: Dataset) -> None:
    """Print a dataset file's warnings on stderr, as `dataset validate` words them: a run
    prepared from a file whose meter the form checker cannot read, or whose JSONL record lacks
    a key (read as empty), was prepared without a word of it."""
    from rich.console import Console

    stderr = Console(emoji=False, stderr=True)
    for warning in dataset.warnings:  # each names the file (and line): `FILE:LINE: ...`
        stderr.print(f"warning: {warning}", markup=False, highlight=False, soft_wrap=True)


def given_as(ctx: typer.Context, param: str, option: str) -> str:
    """`option` as a message names it, or `VAR (set in the environment)` when the value came
    from the option's environment variable: `POEMETRIC_JUDGE=gemni poemetric demo` said
    "--judge: unknown judge 'gemni'" to a user who had typed no --judge."""
    source = ctx.get_parameter_source(param)
    if source is None or source.name != "ENVIRONMENT":
        return option
    envvar = next((p.envvar for p in ctx.command.params if p.name == param), None)
    return f"{envvar} (set in the environment)" if isinstance(envvar, str) else option


def unknown_choice(
    option: str, given: str | Sequence[str], choices: Sequence[str], noun: str | None = None
) -> typer.Exit:
    """`error: --tasks: unknown task 'synonim' (did you mean 'synonym'?); tasks: a, b, c` (or
    `unknown value ...; choices: ...` without a `noun`): one line naming the choices, not
    Typer's usage box; exit status 2."""
    names = [given] if isinstance(given, str) else list(given)
    each = ", ".join(f"{name!r}{did_you_mean(name, choices)}" for name in names)
    many = "s" if len(names) > 1 else ""
    listed = f"{noun}s" if noun else "choices"
    return error_exit(
        f"{option}: unknown {noun or 'value'}{many} {each}; {listed}: {', '.join(choices)}"
    )


def existing_file(path: Path, what: str = "file") -> Path:
    """`path` as a file to read: a missing one, or a folder, is unusable input (exit 2), said
    in one line rather than Typer's usage box."""
    if path.is_dir():
        raise error_exit(f"{what} {path}: is a folder; give a file")
    if not path.exists():
        raise error_exit(f"{what} {path}: no such file")
    return path


def existing_run(run: Path) -> RunStore:
    """The store of an existing run. A missing (or unreadable) one is unusable input: one
    `error: ...` line on stderr and exit status 2, the same in every command."""
    from poemetric.store import RunStore, StoreError
    from poemetric.store.connect import missing_store
    from poemetric.store.db import DB_NAME

    try:
        return RunStore(run, create=False)
    except StoreError as error:
        if run_by_make() and not (run / DB_NAME).exists():
            # `make analyze` before `make demo`: the `poemetric ...` commands the store names are
            # not on the PATH of a user who only runs make (the venv is not activated).
            start = f"`make demo RUN={shlex.quote(str(run))}` or `{stage_command('generate', run)}`"
            raise error_exit(missing_store(run, DB_NAME, start, use="RUN=")) from None
        raise error_exit(error) from None


def no_poems_yet(run: Path, store: RunStore | None = None) -> typer.Exit:
    """`error: run RUN has no poems yet: ...` (exit 2), for a command that needs poems; the
    command named generates from the dataset the run was prepared from (`store`'s)."""
    command = stage_command("generate", run, dataset=recorded_dataset(store) if store else None)
    return error_exit(f"run {run} has no poems yet: run `{command}` first")


def require_poems(store: RunStore, run: Path) -> None:
    """Refuse a run without a successful generation (`no_poems_yet`)."""
    if store.count("generations", "status = 'ok'") == 0:
        raise no_poems_yet(run, store)


def not_standard_output(path: Path, option: str, kind: str = "file", why: str = "") -> None:
    """Refuse (exit 2) `-` as an output path, and a device, pipe or terminal (`/dev/stdout`,
    `/dev/null`, a FIFO). No command writes its output to standard output (the terminal gets its
    summary), and `-` was taken as a file or folder named "-" in the current folder, with exit
    status 0. `why` says what the command writes where."""
    option = as_typed(option)
    why = why or f"the output is written to a {kind}, not to standard output"
    if str(path) == "-":
        raise error_exit(f"{option} -: {why}; give a {kind} name")
    if path.exists() and not (path.is_file() or path.is_dir()):
        # `-o /dev/stdout` hung reading it (is it a run store?), and the finished file was then
        # moved onto it: as root, /dev/null or /dev/stdout became a plain file for every process.
        raise error_exit(
            f"{option} {path}: not a {kind} but a device, pipe or terminal; {why}; "
            f"give a {kind} name"
        )


def experts_option(purpose: str) -> Any:
    """`--experts FILE`: human expert ratings (long or wide format, docs/survey.md); `purpose`
    says what the command does with them."""
    return typer.Option(
        None,
        "--experts",
        "-e",
        callback=_existing_experts_file,
        help=(
            "Expert ratings file: long, wide, or `poemetric export survey_answers` "
            f"(docs/survey.md); {purpose}"
        ),
    )


def _existing_experts_file(path: Path | None) -> Path | None:
    """A missing `--experts` file (or a folder) is one `error:` line, not Typer's usage box."""
    return None if path is None else existing_file(path, "--experts")
