"""A batch status poll answered 404 or 410: the provider knows no such batch under this key.

A provider answers a batch submitted with another key the same way (OpenAI does, for another
project's key), and listing this key's batches succeeds without it in both cases: the runner
cannot tell a batch deleted from one this key cannot see. Abandoning it by itself could buy
its jobs twice, so the model stops after that one poll (404 is not retried), and the line says
what to do: restore the key that submitted it, or give the batch up with the exact command.

The batch row records the answer: status 'not found (404)' (or 410), with `not_found_since`
(the first such poll) in `detail` and the last poll's time as `updated_at`, so `poemetric
batches list` says it plainly. The rule for later runs: such a batch stays in flight (its jobs
are not submitted again) and each run polls it once more, never retried. A status poll is free
and sends nothing to be paid for, and the key may have been put back: a batch found again goes
on as if nothing happened (its row back to the provider's state); one still unknown stops the
model again, the line saying since when. Only `poemetric batches abandon --force` gives it up:
a batch abandoned wrongly would pay for its requests again, one kept wrongly only waits.
"""

from __future__ import annotations

import json
from pathlib import Path

from poemetric.providers.base import ModelSpec
from poemetric.providers.remote_common import key_variables
from poemetric.runner.batch_table import abandon_command
from poemetric.store.db import RunStore, utc_now

#: A status poll answered with these: no batch of that id for this key.
UNKNOWN_STATUSES = (404, 410)


def not_found_status(http_status: int) -> str:
    """The batch row's status after a status poll answered `http_status` (404 or 410)."""
    return f"not found ({http_status})"


def shown_time(stamp: str) -> str:
    """A stored UTC time (`utc_now`) as a reader wants it: '2026-11-27 02:41:04 UTC'."""
    return stamp[:19].replace("T", " ") + " UTC"


def mark_not_found(store: RunStore, batch_id: str, http_status: int, error: str) -> str | None:
    """Store that a status poll of `batch_id` was answered `http_status` (`error`: the
    provider's message, keys removed), keeping what the row knew; an abandoned or collected
    batch is left as it is. Returns since when polls have found no such batch, when an earlier
    poll already found none (None the first time)."""
    now = utc_now()
    with store.transaction() as conn:
        found = conn.execute(
            "SELECT status, detail FROM batches WHERE batch_id = ?", (batch_id,)
        ).fetchone()
        if found is None or found["status"] in ("collected", "abandoned"):
            return None
        detail = json.loads(found["detail"] or "{}")
        since = detail.get("not_found_since")
        if not str(found["status"]).startswith("not found"):
            detail.setdefault("state", found["status"])
        detail.update(not_found_since=since or now, poll_error=error)
        conn.execute(
            "UPDATE batches SET status = ?, detail = ?, updated_at = ? WHERE batch_id = ?",
            (not_found_status(http_status), json.dumps(detail, sort_keys=True), now, batch_id),
        )
    return str(since) if since else None


def unknown_batch_advice(
    spec: ModelSpec, batch: tuple[str, int], run_dir: Path, since: str | None = None
) -> str:
    """What to do about the batch `batch` (its id, and the HTTP status its poll was answered:
    404 or 410), which the provider does not know under the model's key (appended to the line
    that says why the model stopped); `since`: the first poll that found no such batch, when it
    was not this one."""
    batch_id, http_status = batch
    where = " or ".join(key_variables(spec)) or "the model's key variable"
    command = abandon_command(run_dir, {batch_id: not_found_status(http_status)})
    known = f", on every poll since {shown_time(since)}" if since else ""
    return (
        f"; the provider knows no batch {batch_id} for this API key{known} (deleted, or "
        "submitted with another key or project: the same answer), so every run stops here. If "
        f"the key changed, put the one that submitted it back in {where}; else cancel the batch "
        f"in the provider's batch list if it is still there, then give it up with `{command}` "
        "(the next run submits its jobs again, paying again)"
    )
