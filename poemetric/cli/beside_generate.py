"""A command that reads a run's poems (`judge`, `ghostwriting style-match`, `form run`) while
`generate` is at work on the same run: it works on the poems stored when it reads the run, not
on those `generate` stores later, and says so (`poemetric.runner.leases.holders_at_work`)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from poemetric.runner.leases import HolderInfo
    from poemetric.store import RunStore


@contextmanager
def generate_watched(store: RunStore) -> Iterator[list[HolderInfo]]:
    """The `generate` commands at work on the run as the block begins and as it ends."""
    from poemetric.runner.leases import holders_at_work

    found = holders_at_work(store, "generations")
    yield found
    seen = {holder.holder for holder in found}
    found.extend(h for h in holders_at_work(store, "generations") if h.holder not in seen)


def say_generate_was_at_work(holders: list[HolderInfo], done: str, console: Console) -> None:
    """A note naming the `generate` commands that were at work on the run while this command
    ran (`generate_watched`), saying the poems they store later are not `done` ('judged',
    'checked') here; nothing when there were none."""
    if not holders:
        return
    which = "; ".join(holder.describe() for holder in holders)
    console.print(
        f"note: generate was at work on this run while this command ran ({which}): the poems "
        f"it stores after this command read the run are not {done} here; run this command "
        "again once it has ended (it takes only those).",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
