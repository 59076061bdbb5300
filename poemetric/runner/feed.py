"""Feeding a model's jobs to its calls in order, a bounded number begun at a time.

A command may plan tens of thousands of calls for one model. Each job begun is an asyncio task
(about 9 KB with its coroutines) that waits for the model's concurrency slot; begun all at once
they held memory in proportion to the jobs planned (some 500 MB for 50,000). `in_order` begins
them in the order given and keeps at most `places` of them holding a place: a job holds its
place from its start until it ends or first waits out a retry's backoff (`Place.give_up`), so a
job waiting to be retried lets the next one begin, as it did when every job was begun at the
start, and the limiter always has jobs waiting for a slot while any are left. Memory then grows
with the places and the jobs waiting to be retried, not with the jobs planned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

T = TypeVar("T")


def places_for(concurrency: int) -> int:
    """Jobs begun at a time for a model with `concurrency` calls in flight: twice as many, so
    that a slot given up is taken at once by a job already waiting for it (its budget reserved,
    its estimate made), as when every job waited."""
    return 2 * max(1, concurrency)


class Place:
    """One job's place among those begun; given up (once) when it ends or waits to retry."""

    __slots__ = ("_held", "_places")

    def __init__(self, places: asyncio.Semaphore) -> None:
        self._places = places
        self._held = True

    def give_up(self) -> None:
        if self._held:
            self._held = False
            self._places.release()


async def in_order(
    items: Iterable[T], work: Callable[[T, Place], Awaitable[None]], places: int
) -> None:
    """`await work(item, place)` for every item, each in a task of its own, begun in the order
    of `items` while fewer than `places` hold a place; returns once every one has ended.

    As `asyncio.gather` of them all: the first exception raised by one is raised here (the
    items not yet begun are not begun; those begun are not cancelled), and when this is
    cancelled every one begun is cancelled and waited for before the cancellation goes on."""
    free = asyncio.Semaphore(places)
    running: set[asyncio.Task[None]] = set()
    failures: list[BaseException] = []

    async def one(item: T) -> None:
        place = Place(free)
        try:
            await work(item, place)
        except asyncio.CancelledError:
            raise
        except BaseException as failure:
            failures.append(failure)
            raise
        finally:
            place.give_up()

    try:
        for item in items:
            await free.acquire()
            if failures:
                free.release()
                break
            task = asyncio.create_task(one(item))
            running.add(task)
            task.add_done_callback(_forget(running))
        if failures:
            raise failures[0]
        await asyncio.gather(*running)
    except asyncio.CancelledError:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)
        raise


def _forget(running: set[asyncio.Task[None]]) -> Callable[[asyncio.Task[None]], None]:
    """A done callback: drop the ended task from `running` (memory held by ended jobs is let
    go) and take note of its exception, raised by `in_order` already or to be (not reported
    again as never retrieved)."""

    def forget(task: asyncio.Task[None]) -> None:
        running.discard(task)
        if not task.cancelled():
            task.exception()

    return forget
