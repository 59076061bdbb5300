"""Options shared by several subcommands, so every command spells them the same way."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from poemetric.agreement_defaults import AGREEMENT_BOOTSTRAP, BOOTSTRAP_SEED
from poemetric.cli.output import sqlite_refusal
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


#: The names of an output file or folder option. Commands came to name theirs three ways
#: (`analyze --out`, `export --to`, `form check --output`/`-o`); each keeps its own as the
#: primary name (its help's) and accepts the others, so `export --out x` works; its messages
#: name it as it was given (`typed_names.as_typed`).
OUTPUT_NAMES = ("--out", "--output", "--to", "-o")


#: Suffixes of the files commands read or write. A folder's option given such a name (`export
#: calls -o calls.csv`) made a folder of that name, the file inside it.
FILE_SUFFIXES = frozenset(
    {".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet", ".md", ".tex", ".html", ".htm"}
    | {".pdf", ".png", ".svg", ".txt", ".xlsx", ".sqlite"}
)
#: The help of a folder's output option says how a file name is taken.
FOLDER_HELP = "A file name (x.csv) is refused; a name ending in / is a folder."


def output_option(
    default: Any,
    primary: str,
    help: str,
    *,
    file_name: str | None = None,
    folder: bool = False,
    metavar: str | None = None,
) -> Any:
    """The option of a command's output file or folder: `primary` first (`--out`, `--to` or
    `--output`, or a name of its own: merge's `--into`), then the other `OUTPUT_NAMES` as
    aliases, `-o` included. `file_name` (`checks.jsonl`) makes it a file's option: a folder given
    (`-o outdir/`, or an existing folder) is refused as `output_file_name` words it; without the
    check, `-o outdir/` wrote a file named `outdir` (a Path has no trailing slash). `folder`
    makes it a folder's: a file name is refused as `output_folder_name` words it. Neither: the
    command reads the value as given (`export --to`, a `str`: a folder or one table's file)."""
    names = [primary, *(name for name in OUTPUT_NAMES if name != primary)]
    if file_name is not None:
        return typer.Option(
            default,
            *names,
            help=f"{help} A folder (one that exists, or a name ending in /) is refused.",
            parser=partial(output_file_name, primary, file_name),
            metavar="<path>",  # as typer names a Path's (a parser's was `<Path>`)
        )
    if folder:
        return folder_option(default, *names, help=help)
    return typer.Option(default, *names, help=help, metavar=metavar)


def folder_option(default: Any, *names: str, help: str) -> Any:
    """An output folder's option (`output_option(folder=True)`, `probe run --tables`): a file
    name given is refused as `output_folder_name` words it, and the help says so."""
    return typer.Option(
        default,
        *names,
        help=f"{help} {FOLDER_HELP}",
        parser=partial(output_folder_name, names[0]),
        metavar="<path>",  # as typer names a Path's (a parser's was `<Path>`)
    )


def file_suffix(raw: str) -> str | None:
    """The file suffix (`.csv`, lower case) of `raw` given where a folder is expected, else None:
    a name ending in `/` and an existing folder are folders, whatever their suffix."""
    path = Path(raw)
    if raw.endswith(("/", os.sep)) or path.is_dir():
        return None
    suffix = path.suffix.lower()
    return suffix if suffix in FILE_SUFFIXES else None


def folder_form(raw: str) -> str:
    """`calls/` for `calls.csv`: the folder to give instead of a file name (`runs/x/` for a run
    store's path, `runs/x/poemetric.sqlite`)."""
    from poemetric.store.db import DB_NAME

    path = Path(raw)
    folder = path.parent if path.name == DB_NAME else path.with_suffix("")
    return f"{folder.as_posix()}/"


def output_folder_name(option: str, raw: str) -> Path:
    """`raw`, as given to a folder's output option, as a Path; a file name (`results.csv`) is
    unusable input (exit 2): the command would make a folder `results.csv/` and write its files
    into it."""
    option = as_typed(option)
    if suffix := file_suffix(raw):
        raise error_exit(
            f"{option} {raw}: a file name ({suffix}), but the output is a folder (its files are "
            f"written into it); give a folder, e.g. {option} {folder_form(raw)}"
        )
    return Path(raw)


def output_file_name(option: str, file_name: str, raw: str) -> Path:
    """`raw`, as given to a file's output option, as a Path; a folder is unusable input (exit 2):
    `error: --output outdir/: names a folder (it ends in /); give a file name, e.g.
    outdir/checks.jsonl`, and `error: --output outdir: is a folder; give a file name, e.g. ...`
    for one that exists."""
    option = as_typed(option)
    path = Path(raw)
    slash = raw.endswith(("/", os.sep)) and str(path) not in (".", "/")
    if slash or (raw != "-" and path.is_dir()):
        what = "names a folder (it ends in /)" if slash else "is a folder"
        inside = (path / file_name).as_posix() if str(path) != "." else file_name
        raise error_exit(f"{option} {raw}: {what}; give a file name, e.g. {inside}")
    return path


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
    from poemetric.store.connect import runs_beside
    from poemetric.store.db import DB_NAME

    try:
        return RunStore(run, create=False)
    except StoreError as error:
        store = run / DB_NAME
        if run_by_make() and not store.exists():
            # `make analyze` before `make demo`: the `poemetric ...` commands the store names are
            # not on the PATH of a user who only runs make (the venv is not activated).
            value = shlex.quote(str(run))
            raise error_exit(
                f"no run store at {store}{runs_beside(run, DB_NAME)}; start a run with "
                f"`make demo RUN={value}` or `{stage_command('generate', run)}`"
            ) from None
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
    """Refuse (exit 2) `-` as an output path. No command writes its output to standard output
    (the terminal gets its summary), and `-` was taken as a file or folder named "-" in the
    current folder, with exit status 0. `why` says what the command writes where."""
    option = as_typed(option)
    if str(path) == "-":
        why = why or f"the output is written to a {kind}, not to standard output"
        raise error_exit(f"{option} -: {why}; give a {kind} name")


def output_folder(path: Path, option: str = "--out") -> Path:
    """`path` as a folder a command may write into. A file there, or in place of a folder above
    it, is unusable input: `error: ...` and exit status 2 before any work, not a traceback after
    it; so is `-` (`not_standard_output`)."""
    option = as_typed(option)
    not_standard_output(path, option, "folder")
    for folder in (path, *path.parents):
        if folder.exists():
            if not folder.is_dir():
                where = "" if folder == path else f" ({folder} is a file)"
                raise error_exit(f"{option} {path}: not a folder{where}; give a folder")
            if not os.access(folder, os.W_OK):
                raise error_exit(
                    f"{option} {path}: {folder} is read-only here; give a folder you can write"
                )
            break
    return path


def run_output_folder(run: Path, out: Path | None, name: str, option: str = "--out") -> Path:
    """`out`, or the folder `name` inside the run, as `output_folder` checks it. Without `out`, a
    `--run` that holds no store (a file, a path under one) is named as such, not as an `out`
    the user never gave."""
    if out is None:
        from poemetric.store.db import DB_NAME

        if not (run / DB_NAME).exists():
            existing_run(run)  # raises: "no run store at RUN/poemetric.sqlite; ..."
        writable_run(run, option)
        out = run / name
    return output_folder(out, option)


def writable_run(run: Path, option: str) -> None:
    """Refuse (exit 2) to write a command's output into a run this process cannot write (a run
    copied to a read-only mount): reading it works, so `option` can send the output elsewhere."""
    if run.is_dir() and not os.access(run, os.W_OK):
        raise error_exit(
            f"run {run} is read-only here: give {option} with a folder you can write, "
            "for the output"
        )


def output_file(
    path: Path, option: str = "--out", *, source: Path | None = None, loss: str = ""
) -> Path:
    """`path` as a file a command may write: a folder there is unusable input (exit 2), and so
    are the command's input file `source` (`not_the_input`) and a SQLite database, such as a
    run store (`report --out RUN/poemetric.sqlite` replaced the whole run with the report), and
    `-` (`not_standard_output`)."""
    option = as_typed(option)
    not_standard_output(path, option)
    if path.is_dir():
        raise error_exit(f"{option} {path}: is a folder; give a file name")
    if source is not None:
        not_the_input(path, source, option, loss)
    if refusal := sqlite_refusal(path, f"{option} {path}"):
        raise error_exit(refusal)
    output_folder(path.parent, option)
    return path


def not_the_input(path: Path, source: Path, option: str, loss: str) -> None:
    """Refuse (exit 2) an output file that is the input file `source` itself, under any
    spelling (`-o` naming the input by mistake): the output would replace the input. `loss`
    says what would be lost, e.g. "the poems would be replaced by the form checks"."""
    option = as_typed(option)
    if path.exists() and source.exists() and path.samefile(source):
        raise error_exit(f"{option} {path} is the input file: {loss}; give another file name")


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
