"""The note `generate` prints for a new run whose folder's name is close to a run beside it:
`generate --run runs/papr` (for `runs/paper`) made a new run without a word and asked every
model again for every poem, paid for a second time, since stored answers and the response cache
are the run's own."""

from __future__ import annotations

import difflib
from pathlib import Path

from rich.console import Console

from poemetric.hints import run_by_make
from poemetric.store.db import DB_NAME


def close_run(run: Path) -> Path | None:
    """The run beside `run` (a folder holding a run store) whose name is closest to `run`'s,
    when `run` holds no run store and one is close (`runs/tyr`, `runs/papr`); else None, as
    where a run beside it differs from it only in digits (`runs/part2` beside `runs/part1`: a
    series, named on purpose)."""
    if (run / DB_NAME).exists() or not run.name:
        return None
    try:
        beside = {path.parent.name: path.parent for path in run.parent.glob(f"*/{DB_NAME}")}
    except OSError:
        return None
    beside.pop(run.name, None)
    undigited = _undigited(run.name)
    if any(_undigited(name) == undigited for name in beside):  # run2 beside run1: on purpose
        return None
    close = difflib.get_close_matches(run.name, sorted(beside), n=1, cutoff=0.6)
    return beside[close[0]] if close else None


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
