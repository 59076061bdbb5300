"""`--limit N|all` of the commands that prepare a run (`generate`, `demo`) and of the stages
that read one (`judge`, ...), and the note that says when a run holds prompts for fewer poems
than its dataset.

Without `--limit`, a new run gets a prompt for every poem of the dataset and an existing run
keeps the prompts it holds (`pipeline.prepare_run`): a resume that left out the `--limit` the
run was prepared with widened it to every poem, and asked each model for all of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.hints import run_by_make
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.pipeline import PoemLimit, PreparedRun


def _limit_text(value: str) -> str:
    """`--limit`'s value as given, checked: a whole number of at least 1, or `all`."""
    text = value.strip().lower()
    if text == "all":
        return text
    try:
        number = int(text)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is neither a number of poems nor 'all'") from None
    if number < 1:
        raise typer.BadParameter(f"{number} is less than 1 (all: every poem)")
    return str(number)


RunLimitOption = typer.Option(
    None,
    "--limit",
    "-n",
    parser=_limit_text,
    metavar="N|all",
    help="Only the first N poems of the dataset (quick trials); all: every poem. Without it, a "
    "new run takes every poem and an existing run keeps the prompts it holds: a bigger N (or "
    "all) widens it.",
)


def _stage_limit(value: str) -> int | None:
    """A judging stage's `--limit`: N, or None for `all` (every poem, as without `--limit`)."""
    text = _limit_text(value)
    return None if text == "all" else int(text)


#: `--limit N|all` of the stages that read a run (`judge`, `judge recognise`, `ghostwriting
#: style-match`): `make judge LIMIT=all` passes `--limit all` to judge as to generate.
StageLimitOption = typer.Option(
    None,
    "--limit",
    "-n",
    parser=_stage_limit,
    metavar="N|all",
    help="Only the first N poems of the run (quick trials); all: every poem (as without it).",
)


def poem_limit(text: str | None) -> PoemLimit:
    """`--limit`'s checked text as `prepare_run` takes it: N, `ALL_POEMS` or None."""
    from poemetric.pipeline import ALL_POEMS

    if text is None:
        return None
    return ALL_POEMS if text == ALL_POEMS else int(text)


def note_capped(console: Console, limit: PoemLimit, prepared: PreparedRun) -> None:
    """One line when `--limit N` asks for more poems than the dataset has: every poem is used,
    which a user who typed `--limit 500` for a 163-poem dataset was not told."""
    total = prepared.poems_in_dataset
    if not isinstance(limit, int) or limit <= total:
        return
    given = f"LIMIT={limit}" if run_by_make() else f"--limit {limit}"
    console.print(
        f"{given}: the dataset has {counted(total, 'poem')}; all {total} are used",
        markup=False,
        highlight=False,
    )


def note_held(console: Console, prepared: PreparedRun) -> None:
    """One line when the run holds prompts for fewer poems than its dataset, and how to widen
    it: a resume without `--limit` keeps them, so a run left at a trial's few poems says so."""
    held, total = prepared.poems_held, prepared.poems_in_dataset
    if held >= total:
        return
    widen = f"LIMIT={total}" if run_by_make() else f"--limit {total}"
    console.print(
        f"run holds prompts for {held} of {counted(total, 'poem')}; {widen} widens it",
        markup=False,
        highlight=False,
    )
