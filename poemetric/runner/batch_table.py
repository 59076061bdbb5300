"""The `batches` table of a run store: one row per provider batch that `--batch` submitted.

A row's `status` is the provider's last known state ('submitted', 'in_progress', 'completed',
'failed', 'expired', 'cancelled'), or 'not found (404)' / 'not found (410)' after a status poll
found no such batch for the run's key (`poemetric.runner.batch_unknown`), until the batch is
finished with: 'collected' (its results stored) or 'abandoned' (its results can no longer be
had: the runner found them gone, or `poemetric batches abandon` gave the batch up). A batch in
neither of these two states is in flight: its jobs are never submitted again, the next run
polls and downloads it. An abandoned batch's jobs are pending again, so the next run submits
them again (and pays for them again).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from poemetric.hints import program
from poemetric.store.db import RunStore, utc_now

#: Batch rows in these states have been fully stored, or given up on.
FINISHED_STATES = ("collected", "abandoned")
#: Provider states after which a batch will not change any more (its results can be fetched).
ENDED_STATES = ("completed", "failed", "expired", "cancelled")
#: What a batch's `detail` recorded at its submission (`record_batch`), kept by the polls'
#: updates: the model the provider was asked for, the number of requests, and the row written
#: before a lost submission whose batch was found in the provider's list (`batch_adopt`).
RECORDED_KEYS = ("provider_model", "requests", "found_for")
#: Ids of the rows written before a submission (`poemetric.runner.batch_intent`): no provider's
#: batch id starts so.
UNCONFIRMED_PREFIX = "unconfirmed-"


def is_unconfirmed(batch_id: str) -> bool:
    """Whether `batch_id` is a row written before a submission, not a provider's batch."""
    return batch_id.startswith(UNCONFIRMED_PREFIX)


@dataclass(frozen=True)
class BatchRow:
    batch_id: str
    provider: str
    model: str
    stage: str
    status: str
    jobs: int
    detail: dict[str, Any]
    updated_at: str

    @property
    def in_flight(self) -> bool:
        return self.status not in FINISHED_STATES

    @property
    def unconfirmed(self) -> bool:
        """A row written before a submission whose answer never reached the store."""
        return is_unconfirmed(self.batch_id)


class InFlight(NamedTuple):
    """A batch not finished with: its id and {custom_id: cache_key}."""

    batch_id: str
    keys: dict[str, str]

    @property
    def unconfirmed(self) -> bool:
        """A row written before a submission whose answer never reached the store."""
        return is_unconfirmed(self.batch_id)


def in_flight_batches(store: RunStore, stage: str, model: str, provider: str) -> list[InFlight]:
    """Batches of this stage and model not finished with, oldest first."""
    rows = store.query(
        "SELECT batch_id, request_keys FROM batches WHERE stage = ? AND model = ? "
        "AND provider = ? AND status NOT IN (?, ?) ORDER BY created_at",
        (stage, model, provider, *FINISHED_STATES),
    )
    return [InFlight(str(r["batch_id"]), dict(json.loads(r["request_keys"]))) for r in rows]


def needs_force(status: str) -> bool:
    """Whether `poemetric batches abandon` asks for --force to give up a batch last seen
    `status`: one not known to have ended may still be answered and charged for."""
    return status not in ENDED_STATES


def abandon_command(run_dir: Path | str, statuses: Mapping[str, str]) -> str:
    """The `batches abandon` command that gives up a batch of `statuses` ({batch id: its last
    status}), to be pasted as it is: `program()`, the id and the run directory shell-quoted,
    `--force` when the command asks for it (`needs_force`). Of several batches it names
    BATCH_ID, with --force when any of them needs it."""
    (batch_id,) = statuses if len(statuses) == 1 else ("BATCH_ID",)
    words = [
        program(),
        "batches abandon",
        shlex.quote(batch_id),
        "--run",
        shlex.quote(str(run_dir)),
    ]
    force = ["--force"] if any(needs_force(status) for status in statuses.values()) else []
    return " ".join(words + force)


def batch_statuses(store: RunStore, batch_ids: Iterable[str]) -> dict[str, str]:
    """The last status of each of `batch_ids` (in their order; an id with no row left out)."""
    wanted = list(dict.fromkeys(batch_ids))
    rows = store.query(
        f"SELECT batch_id, status FROM batches WHERE batch_id IN ({', '.join('?' * len(wanted))})",
        tuple(wanted),
    )
    found = {str(r["batch_id"]): str(r["status"]) for r in rows}
    return {i: found[i] for i in wanted if i in found}


def record_batch(
    store: RunStore,
    batch_id: str,
    where: tuple[str, str, str],
    keys: Mapping[str, str],
    detail: dict[str, Any],
    replacing: str | None = None,
) -> None:
    """A batch the provider accepted: `where` is (provider, model, stage); `keys` maps each
    custom id to its cache key; `replacing`, the row written before the submission
    (`poemetric.runner.batch_intent`), removed in the same write."""
    now = utc_now()
    with store.transaction() as conn:
        if replacing is not None:
            conn.execute("DELETE FROM batches WHERE batch_id = ?", (replacing,))
        conn.execute(
            "INSERT OR IGNORE INTO batches(batch_id, provider, model, stage, status, "
            "request_keys, detail, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                batch_id,
                *where,
                "submitted",
                json.dumps(dict(keys), sort_keys=True),
                json.dumps(detail),
                now,
                now,
            ),
        )


def update_batch(store: RunStore, batch_id: str, status: str, detail: dict[str, Any]) -> None:
    """The batch's latest state (`detail` replaces the last one, but for what its submission
    recorded: `RECORDED_KEYS`). A batch abandoned meanwhile (by `poemetric batches abandon`
    while this run waited for it) stays abandoned, unless its results were stored after all."""
    with store.transaction() as conn:
        rows = conn.execute("SELECT detail FROM batches WHERE batch_id = ?", (batch_id,))
        found = rows.fetchone()
        before = json.loads(found["detail"] or "{}") if found is not None else {}
        kept = {k: before[k] for k in RECORDED_KEYS if isinstance(before, dict) and k in before}
        conn.execute(
            "UPDATE batches SET status = ?, detail = ?, updated_at = ? "
            "WHERE batch_id = ? AND (status != 'abandoned' OR ? = 'collected')",
            (status, json.dumps({**kept, **detail}, sort_keys=True), utc_now(), batch_id, status),
        )


def abandon_batch(
    store: RunStore, batch_id: str, reason: str, latest: Mapping[str, Any] | None = None
) -> None:
    """Give a batch up: its jobs are pending again (the next run submits them again), and
    `detail` keeps the provider's last state and `reason`. `latest`: what the runner last
    learnt of the batch (its state, a download's error), stored in the same write."""
    with store.transaction() as conn:
        row = conn.execute("SELECT status, detail FROM batches WHERE batch_id = ?", (batch_id,))
        found = row.fetchone()
        if found is None:
            return
        detail = {**json.loads(found["detail"] or "{}"), **(latest or {})}
        detail.setdefault("state", found["status"])
        detail["abandoned"] = reason
        conn.execute(
            "UPDATE batches SET status = 'abandoned', detail = ?, updated_at = ? "
            "WHERE batch_id = ?",
            (json.dumps(detail, sort_keys=True), utc_now(), batch_id),
        )


def batch_rows(store: RunStore, batch_id: str | None = None) -> list[BatchRow]:
    """The run's batches, oldest first (only `batch_id` when given)."""
    where, params = ("WHERE batch_id = ?", (batch_id,)) if batch_id else ("", ())
    rows = store.query(
        "SELECT batch_id, provider, model, stage, status, request_keys, detail, updated_at "
        f"FROM batches {where} ORDER BY created_at, batch_id",
        params,
    )
    return [
        BatchRow(
            batch_id=str(r["batch_id"]),
            provider=str(r["provider"]),
            model=str(r["model"]),
            stage=str(r["stage"]),
            status=str(r["status"]),
            jobs=len(json.loads(r["request_keys"])),
            detail=json.loads(r["detail"] or "{}"),
            updated_at=str(r["updated_at"]),
        )
        for r in rows
    ]
