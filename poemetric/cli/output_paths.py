"""The options of a command's output file or folder, and the checks of the paths given them:
the names every output option accepts (`OUTPUT_NAMES`), a file name refused where a folder is
written and a folder where a file is, `-` (standard output) refused, a read-only folder or run,
a SQLite database or the command's own input file refused as its output."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path
from typing import Any

import typer

from poemetric.cli.options import error_exit, existing_run, not_standard_output
from poemetric.cli.output import sqlite_refusal
from poemetric.cli.typed_names import as_typed

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
