"""The note `generate` prints for a new run whose folder's name is close to a run beside it:
`generate --run runs/papr` (for `runs/paper`) made a new run without a word and asked every
model again for every poem, paid for a second time, since stored answers and the response cache
are the run's own."""

from __future__ import annotations

import difflib
import os
import re
import shlex
from pathlib import Path

from rich.console import Console

from poemetric.hints import run_by_make
from poemetric.store.db import DB_NAME


def close_run(run: Path) -> Path | None:
    """The run beside `run` (a folder holding a run store) whose name is closest to `run`'s,
    when `run` holds no run store and one is close (`runs/tyr`, `runs/papr`); else None, as
    where `run` is a variant of a run beside it (`variant`), named on purpose."""
    if (run / DB_NAME).exists() or not run.name:
        return None
    try:
        beside = {path.parent.name: path.parent for path in run.parent.glob(f"*/{DB_NAME}")}
    except OSError:
        return None
    beside.pop(run.name, None)
    if any(variant(run.name, name) for name in beside):
        return None
    close = difflib.get_close_matches(run.name, sorted(beside), n=1, cutoff=0.6)
    return beside[close[0]] if close else None


#: A version or number that ends a run's name: `-v2`, `_3`, `v10`, `2`.
VERSION = re.compile(r"[-_. +]*v?\d+$", re.IGNORECASE)
#: What sets a suffix off from the name it extends: `paper-pilot`, `paper_gpt4o`, `paper.old`.
SEPARATORS = "-_. +"


def variant(name: str, other: str) -> bool:
    """True where one of two run names is the other's deliberate variant, not a mistyped
    name: they differ only in digits (`part2`, `part1`: a series), or in a version or number
    at the end (`paper-v2`, `paper`, `paper_v1`), or one is the other with a suffix set off by
    `-`, `_`, `.`, `+` or a space (`paper-pilot`, `paper.old` beside `paper`)."""
    if _undigited(name) == _undigited(other):
        return True
    if VERSION.sub("", name) == VERSION.sub("", other) != "":
        return True
    shorter, longer = sorted((name, other), key=len)
    suffix = longer[len(shorter) :]
    return (
        longer.startswith(shorter)
        and suffix[:1] in tuple(SEPARATORS)
        and suffix.strip(SEPARATORS) != ""
    )


def _undigited(name: str) -> str:
    """A name without its digits: `part3` and `part` are one series of runs, named on purpose."""
    return "".join(c for c in name if not c.isdigit())


def note_new_run(console: Console, run: Path, near: Path | None) -> None:
    """`note: runs/papr is a new run; ...` where `near`, a run beside it, has a close name
    (`close_run`, asked before the run was made)."""
    if near is not None:
        option = "RUN=" if run_by_make() else "--run "
        console.print(
            f"note: {run} is a new run (it holds no run store yet); the run {near} beside it "
            f"has a close name: to go on with that run, give {option}{near}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def run_inside_run(run: Path, command: str = "generate") -> str | None:
    """Why `command` (generate, demo) may not start a new run at `run`, a folder inside a run
    (`--run runs/demo/analysis`), or None. It made a run inside the run without a word, where
    every command that reads a run names the run above (`store.connect.missing_store`). No
    workflow keeps a run inside another (its `analysis/`, `figures/` and `report/` are the
    run's own outputs, and copying or merging the outer run would carry the inner one along),
    so it is refused, with the command that goes on with the run above and a folder beside it
    for a new run. A run already made there (by an earlier version) is resumed as before."""
    from poemetric.hints import recorded_dataset, stage_command
    from poemetric.store import RunStore, StoreError
    from poemetric.store.connect import run_above

    if (run / DB_NAME).exists():
        return None
    above = run_above(run, DB_NAME)
    if above is None:
        return None
    if command == "demo":
        shown = shlex.quote(str(above))
        go_on = f"make demo RUN={shown}" if run_by_make() else f"poemetric demo --run {shown}"
    else:
        try:
            with RunStore(above, create=False) as store:
                dataset = recorded_dataset(store)
        except StoreError:
            dataset = None
        go_on = stage_command("generate", above, dataset=dataset)
    option = "RUN=" if run_by_make() else "--run "
    # A folder beside the run above, named after both (`runs/demo-analysis`); where that run is
    # the current folder (`.`) or above it (`..`), beside it is `../NAME-...` (`../../`).
    outer = Path(os.path.abspath(above))
    inner = Path(os.path.abspath(run)).relative_to(outer)
    name = "-".join([outer.name, *inner.parts])
    beside = (outer.parent if above.is_absolute() else Path(os.path.relpath(outer.parent))) / name
    return (
        f"{option}{run} is inside the run {above} (the folder that holds its {DB_NAME}): a new "
        f"run there would be a run inside that run. To go on with that run: `{go_on}`; for a "
        f"new run, name a folder outside it, such as {option}{shlex.quote(str(beside))}"
    )
