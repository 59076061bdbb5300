"""What a job has already paid for: the cost a replayed (cached) answer is stored with.

An answer served from the response cache costs nothing in the run that replays it. It was paid
once, by the call that put it in the cache, and that call's row records the cost; a row of
another model file that sends the same request (two judge files of one model id and URL) shares
the answer but did not buy it, so it records 0. A job that replays an answer it bought itself
(an unparsable answer re-parsed by the next run, a judgment resumed between an answer and its
re-ask) keeps the cost its row already recorded, so each paid call is counted exactly once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from poemetric.runner.jobs import Job
from poemetric.store.db import RESULT_TABLE_KEYS

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun


def _row_key(run: ModelRun, job: Job) -> tuple[Any, ...] | None:
    """The natural key of the row `job` is stored in (None: the job does not name one)."""
    key = getattr(run.handler, "natural_key", None) or RESULT_TABLE_KEYS.get(run.handler.table)
    if not key or any(column not in job.row for column in key):
        return None
    return (run.handler.table, *((column, job.row[column]) for column in key))


@dataclass(frozen=True)
class PaidTurns:
    """What a stored row records as paid, turn by turn: the turns before its last (from its
    `turns`), and its last turn (`reasks`) with that turn's request (`cache_key`) and cost."""

    earlier: dict[int, float]
    last_turn: int = -1
    last_key: str | None = None
    last_cost: float = 0.0

    def cost(self, job: Job) -> float:
        if job.turn < self.last_turn:  # an earlier turn of the stored conversation
            return self.earlier.get(job.turn, 0.0)
        if job.turn > self.last_turn or job.cache_key != self.last_key:
            return 0.0
        return self.last_cost


def _paid_turns(run: ModelRun, key: tuple[Any, ...]) -> PaidTurns:
    table, *pairs = key
    where = " AND ".join(f"{column} = ?" for column, _ in pairs)
    rows = run.store.query(f"SELECT * FROM {table} WHERE {where}", tuple(v for _, v in pairs))
    if not rows:
        return PaidTurns({})
    row = dict(rows[0])
    last_turn = int(row.get("reasks") or 0)
    turns = json.loads(row["turns"]) if row.get("turns") else []
    earlier = {
        int(t.get("turn", -1)): float(t.get("cost_usd") or 0.0)
        for t in turns
        if int(t.get("turn", -1)) < last_turn
    }
    before = sum(float(t.get("cost_usd") or 0.0) for t in turns)
    last_cost = max(0.0, float(row.get("cost_usd") or 0.0) - before)
    return PaidTurns(earlier, last_turn, row.get("cache_key"), last_cost)


def paid_turn_cost(run: ModelRun, job: Job) -> float:
    """USD this job's own stored row records as paid for the answer to `job`'s turn, which is
    being replayed from the cache: 0 when the row never paid for it (no row yet, or a row whose
    answer to that turn was someone else's or never came).

    The row is read once, at the first turn replayed, and kept (`ModelRun.paid_turns`): each
    replayed turn stores the row again, as of that turn, and the next turn read from it would
    find its own paid answer gone (a conversation of two paid turns re-parsed from the cache
    kept the first turn's cost only). A call that pays for a turn forgets it (`forget_paid`)."""
    key = _row_key(run, job)
    if key is None:
        return 0.0
    paid = run.paid_turns.get(key)
    if paid is None:
        paid = run.paid_turns[key] = _paid_turns(run, key)
    return paid.cost(job)


def forget_paid(run: ModelRun, job: Job) -> None:
    """A call was paid for a turn of `job`'s row: what the row records is read again."""
    key = _row_key(run, job)
    if key is not None:
        run.paid_turns.pop(key, None)
