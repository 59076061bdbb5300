"""The commands that hints and notes name, the way this command was started: `make judge
RUN=runs/x JUDGE=NAME` when the Makefile ran it (it sets `MAKE_ENV` to 1 on the commands it
runs), else `poemetric judge --run runs/x --judge NAME`. A make user's venv is not activated, so
a `poemetric ...` command is not on their PATH; and the options are make's variables there."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from poemetric.store import RunStore

#: Set to 1 by the Makefile on the poemetric commands it runs: a hint then names the make
#: variable (`make demo` without LOCAL=0, JUDGE=NAME) rather than the option it turns into.
MAKE_ENV = "POEMETRIC_MAKE"

#: PyTorch's own index of its CPU builds (`pip install torch==2.13.0 --index-url ...`): the
#: wheel PyPI gives on Linux x86-64 is the CUDA build, several GB.
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"

#: The poemetric command that each make target of a stage runs.
_COMMANDS = {
    "generate": "generate",
    "form": "form run",
    "judge": "judge",
    "analyze": "analyze",
    "figures": "figures",
    "report": "report",
}


def run_by_make() -> bool:
    """True when the Makefile runs this command (`MAKE_ENV` is 1)."""
    return os.environ.get(MAKE_ENV, "").strip() == "1"


def program() -> str:
    """The `poemetric` command as a hint should name it: under make, the path make ran it by
    (`.venv/bin/poemetric`), since a make user's venv is not activated and a bare `poemetric` is
    not on their PATH; for a command with no make target (`export`, `batches`, `survey`)."""
    path = sys.argv[0] if sys.argv else ""
    if run_by_make() and Path(path).name == "poemetric" and os.sep in path:
        return shlex.quote(path)
    return "poemetric"


def stage_command(
    stage: str,
    run: Path | str | None = None,
    judge: str | None = None,
    dataset: str | None = None,
) -> str:
    """The command that runs `stage` (generate, form, judge) on `run`, with `judge`: `make judge
    RUN=runs/x JUDGE=gpt-4o` under make, else `poemetric judge --run runs/x --judge gpt-4o`
    (JUDGE=NAME / --judge NAME when no judge is named: both refuse to run without one); a run
    that is None is left out.
    `generate` names its `dataset` (DATASET=NAME under make when it is not known): without it,
    make and `poemetric generate` take the demo dataset, which a run of another one refuses."""
    value = None if run is None else shlex.quote(str(run))
    named = None if dataset is None else shlex.quote(dataset)
    if run_by_make():
        words = [f"make {stage}", *([f"RUN={value}"] if value else [])]
        if stage == "generate":
            words.append(f"DATASET={named or 'NAME'}")
        return " ".join(words + ([f"JUDGE={judge or 'NAME'}"] if stage == "judge" else []))
    words = [f"poemetric {_COMMANDS[stage]}", *([f"--run {value}"] if value else [])]
    if stage == "generate" and named:
        words.append(f"--dataset {named}")
    return " ".join(words + ([f"--judge {judge or 'NAME'}"] if stage == "judge" else []))


def shown_path(path: Path) -> str:
    """`path` as a hint prints a file the user gave in an earlier command, so that it works from
    the current folder: relative to it when the file is inside it (`data/poems.csv`), else
    absolute. The path as first typed (relative to where that command ran) did not resolve from
    another folder."""
    absolute = Path(os.path.abspath(path))
    try:
        return str(absolute.relative_to(Path.cwd()))
    except ValueError:
        return str(absolute)


def file_as_run(run: Path) -> str | None:
    """Why the file `run` is no `--run` (None for a folder, or a path that does not exist). A
    dataset given as the run (`analyze --run poems.csv`) was told "no run store at
    poems.csv/poemetric.sqlite; start a run with `poemetric generate --run poems.csv`", a command
    that refuses a file as its run; the message names the run that a dataset makes instead. A
    file inside a run (`--run runs/x/report/index.html`) names that run, as a folder inside one
    does (`store.connect.missing_store`)."""
    if not run.is_file():
        return None
    from poemetric.data.io import SUPPORTED_SUFFIXES  # an error's path: not at start-up
    from poemetric.store.connect import run_above
    from poemetric.store.db import DB_NAME

    why = f"--run {run}: not a folder (a run is the folder that holds {DB_NAME})"
    above = run_above(run, DB_NAME)
    if above is not None:
        use = "RUN=" if run_by_make() else "--run "
        return f"{why}; the folder {above} above it is a run: {use}{above}"
    if run.suffix.lower() not in SUPPORTED_SUFFIXES:
        return why
    made = stage_command("generate", Path("runs") / run.stem, dataset=str(run))
    return f"{why}; {run} looks like a dataset: start a run of it with `{made}`"


def recorded_dataset(store: RunStore) -> str | None:
    """How to name the dataset `store`'s run was prepared from to `--dataset`: its registry name
    when that is the recorded file (`demo`, `poemetric`), else the file as a path that works from
    the current folder (`shown_path`). The path was printed as first typed (`data/poems.csv`,
    relative to the folder that command ran in), which another folder does not find; a run
    recorded before its absolute path was (`pipeline.prepare_run`) looks for it from the current
    folder, then from each folder above the run."""
    from poemetric.data.registry import dataset_registry

    recorded = store.get_meta("dataset") or {}
    name, path = recorded.get("name"), recorded.get("path")
    entry = dataset_registry().get(str(name)) if name else None
    if entry is not None and path and Path(str(path)) == Path(entry.path):
        return str(name)
    if not path:
        return None
    given = Path(str(recorded.get("absolute") or path))
    if not given.is_absolute():
        folders = [Path.cwd(), *Path(os.path.abspath(store.run_dir)).parents]
        found = next((f / given for f in folders if (f / given).is_file()), None)
        if found is None:
            return str(path)  # nowhere to be found: as it was typed
        given = found
    return shown_path(given)


#: The options of the commands the Makefile runs, by the make variable each one comes from; the
#: rest of a command line came from ARGS. `demo`'s `--local` is LOCAL=1 (LOCAL=0 without it).
_MAKE_VARIABLES = {
    "generate": {"--run": "RUN", "--dataset": "DATASET", "--models": "MODELS", "--limit": "LIMIT"},
    "judge": {"--run": "RUN", "--judge": "JUDGE", "--limit": "LIMIT"},
    "demo": {"--run": "RUN", "--judge": "JUDGE", "--limit": "LIMIT"},
}


def make_command(argv: list[str]) -> str | None:
    """`argv` (poemetric's arguments, as the Makefile ran them) as the make command that runs
    them again: `make generate RUN=runs/x DATASET=poemetric MODELS=gpt-4o LIMIT=20 ARGS='...'`;
    with VENV=DIR when the venv that runs this command is not make's default `.venv` here (a
    `make generate` without it would create and install a new one). None for a command with no
    make target (`judge recognise`)."""
    if not argv or argv[0] not in _MAKE_VARIABLES or (argv[0] == "judge" and _subcommand(argv)):
        return None
    target, options = argv[0], _MAKE_VARIABLES[argv[0]]
    values: dict[str, str] = {}
    rest: list[str] = []
    words = iter(argv[1:])
    for word in words:
        option, equals, inline = word.partition("=")
        value = inline if equals else next(words, None) if option in options else None
        if option in options and value is not None:
            values[options[option]] = value
        elif target == "demo" and word in ("--local", "--no-local"):
            values["LOCAL"] = "1" if word == "--local" else "0"
        else:
            rest.append(word)
    if target == "demo":
        values.setdefault("LOCAL", "0")
    if rest:
        values["ARGS"] = shlex.join(rest)
    venv = Path(sys.argv[0]).parent.parent if sys.argv and os.sep in sys.argv[0] else None
    if venv is not None and Path(os.path.abspath(venv)) != Path(os.path.abspath(".venv")):
        values["VENV"] = str(venv)
    return " ".join([f"make {target}", *(f"{k}={shlex.quote(v)}" for k, v in values.items())])


def _subcommand(argv: list[str]) -> bool:
    """True when `poemetric judge` runs one of its subcommands (`judge recognise`)."""
    return len(argv) > 1 and not argv[1].startswith("-")
