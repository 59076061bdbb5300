"""Progress for log files: a plain line now and then where a progress bar cannot be drawn.

A progress bar needs a terminal. When the output goes to a file (a SLURM job, `nohup`, `> log
2>&1`) or to a dumb terminal (`TERM=dumb`), rich draws nothing until the end, so a job of
hours says nothing about how far it is. There, `progress_lines` prints one line per unfinished
task every `interval_s()` seconds (`POEMETRIC_PROGRESS_EVERY`, default 60; 0 turns the lines
off), without colour or cursor codes:

    [14:02:31] gpt-4o: 1,204/6,090 (20%), 0:20:03 elapsed, about 1:21:20 left, 3,911,204 tok, $12.0412

A task whose count has not moved since its last line is repeated only every ten intervals.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from poemetric.env_settings import seconds_from_env

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

#: `advance(done, total)`: `done` of `total` items of one step are finished (a library loop
#: reports through it, e.g. the poems of the ghostwriting measures).
Advance = Callable[[int, int], None]
#: `progress(step, done, total)`: the same for a function of several steps, each named.
StepProgress = Callable[[str, int, int], None]

EVERY_ENV = "POEMETRIC_PROGRESS_EVERY"
DEFAULT_EVERY_S = 60.0
#: An unchanged task is repeated after this many intervals (a heartbeat, e.g. a batch waiting).
QUIET_INTERVALS = 10


@dataclass(frozen=True)
class Count:
    """One task's progress: `done` of `total` (None: not known yet) after `elapsed_s`."""

    name: str
    done: float
    total: float | None
    elapsed_s: float
    extra: str = ""


def interval_s() -> float:
    """Seconds between progress lines; 0 turns them off (a bad value of the variable is a
    `SettingError`)."""
    return seconds_from_env(EVERY_ENV, DEFAULT_EVERY_S)


def draws_bars(console: Console) -> bool:
    """True where rich draws and redraws a progress bar (a terminal that is not dumb)."""
    return console.is_terminal and not console.is_dumb_terminal


def format_count(count: Count) -> str:
    clock = time.strftime("%H:%M:%S")
    if count.total:
        share = f" ({count.done / count.total:.0%})"
        of = f"{count.done:,.0f}/{count.total:,.0f}{share}"
    else:
        of = f"{count.done:,.0f}"
    parts = [f"[{clock}] {count.name}: {of}", f"{_clock(count.elapsed_s)} elapsed"]
    if count.total and 0 < count.done < count.total:
        left = count.elapsed_s * (count.total - count.done) / count.done
        parts.append(f"about {_clock(left)} left")
    if count.extra:
        parts.append(count.extra)
    return ", ".join(parts)


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


@contextmanager
def progress_lines(
    console: Console, counts: Callable[[], Iterable[Count]], *, enabled: bool = True
) -> Iterator[None]:
    """Print `counts()` as lines on `console` every `interval_s()` while the block runs, when
    `enabled` and the console cannot draw a bar (see the module's doc)."""
    if not enabled or draws_bars(console) or (every := interval_s()) <= 0:
        yield
        return
    stop = threading.Event()
    thread = threading.Thread(target=_print_lines, args=(console, counts, every, stop), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(timeout=5)


def _print_lines(
    console: Console, counts: Callable[[], Iterable[Count]], every: float, stop: threading.Event
) -> None:
    shown: dict[str, tuple[float, int]] = {}  # task -> (count last shown, tick it was shown)
    tick = 0
    while not stop.wait(every):
        tick += 1
        for count in counts():
            if count.total is not None and count.done >= count.total:
                continue  # finished: the bar's last line or the summary says so
            last = shown.get(count.name)
            if last is not None and last[0] == count.done and tick - last[1] < QUIET_INTERVALS:
                continue
            shown[count.name] = (count.done, tick)
            console.print(format_count(count), markup=False, highlight=False, soft_wrap=True)


def rich_counts(progress: Progress) -> Callable[[], list[Count]]:
    """`counts` for `progress_lines` from a rich Progress (its tasks, with the runner's token
    and cost fields when they have them)."""

    def counts() -> list[Count]:
        found = []
        for task in progress.tasks:
            if task.stop_time is not None:  # stopped (a refused key): the summary says why
                continue
            fields = task.fields
            extra = (
                f"{fields['tokens']} tok, ${fields['cost']}{fields.get('retries', '')}"
                if "tokens" in fields and "cost" in fields
                else ""
            )
            found.append(
                Count(task.description, task.completed, task.total, task.elapsed or 0.0, extra)
            )
        return found

    return counts


def progress_bar(
    console: Console, *, unit: str | None = None, transient: bool = False, enabled: bool = True
) -> Progress:
    """The commands' one progress bar layout: description, bar, done/total [unit], elapsed,
    ETA; drawn only where `draws_bars(console)` (a terminal), else disabled (`progress_lines`
    prints the log lines instead)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}", style="bold", markup=False),  # hf:/models/[x] is text
        BarColumn(),
        MofNCompleteColumn(),
        *([TextColumn(unit)] if unit else []),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=transient,
        disable=not enabled or not draws_bars(console),
    )


@contextmanager
def step_progress(*, enabled: bool) -> Iterator[StepProgress | None]:
    """`progress(step, done, total)` for a command of several slow steps (`analyze`,
    `ghostwriting metrics`): one progress bar per step on stderr when it is a terminal (gone when
    the command prints its tables), in a log file a line every `interval_s()` seconds; None when
    not `enabled` (--no-progress), so that the steps count nothing."""
    if not enabled:
        yield None
        return
    from rich.console import Console

    console = Console(emoji=False, stderr=True)
    bar = progress_bar(console, transient=True)
    tasks: dict[str, TaskID] = {}

    def progress(step: str, done: int, total: int) -> None:
        if step not in tasks:
            tasks[step] = bar.add_task(step, total=total)
        bar.update(tasks[step], completed=done, total=total)

    with bar, progress_lines(console, rich_counts(bar)):
        yield progress
