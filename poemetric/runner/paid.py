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
from typing import TYPE_CHECKING, Any

from poemetric.runner.jobs import Job
from poemetric.store.db import RESULT_TABLE_KEYS

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun


def _stored_row(run: ModelRun, job: Job) -> dict[str, Any] | None:
    table = run.handler.table
    key = getattr(run.handler, "natural_key", None) or RESULT_TABLE_KEYS.get(table)
    if not key or any(column not in job.row for column in key):
        return None
    where = " AND ".join(f"{column} = ?" for column in key)
    rows = run.store.query(f"SELECT * FROM {table} WHERE {where}", tuple(job.row[c] for c in key))
    return dict(rows[0]) if rows else None


def paid_turn_cost(run: ModelRun, job: Job) -> float:
    """USD this job's own stored row records as paid for the answer to `job`'s turn, which is
    being replayed from the cache: 0 when the row never paid for it (no row yet, or a row whose
    answer to that turn was someone else's or never came)."""
    row = _stored_row(run, job)
    if row is None:
        return 0.0
    stored_turn = int(row.get("reasks") or 0)
    turns = json.loads(row["turns"]) if row.get("turns") else []
    if job.turn < stored_turn:  # an earlier turn of the stored conversation
        earlier = [t for t in turns if int(t.get("turn", -1)) == job.turn]
        return float(earlier[0].get("cost_usd") or 0.0) if earlier else 0.0
    if job.turn > stored_turn or row.get("cache_key") != job.cache_key:
        return 0.0
    before = sum(float(t.get("cost_usd") or 0.0) for t in turns)
    return max(0.0, float(row.get("cost_usd") or 0.0) - before)
