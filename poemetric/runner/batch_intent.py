"""A batch submission under way, written to the `batches` table before the provider is asked.

A process killed (SIGKILL, the machine lost) while its submission is in flight may leave a batch
the provider accepted, and charges for, without its id in the store. Without a trace of it the
next run submitted those jobs again and paid for them twice. So before each submission the
runner writes a row `unconfirmed-...` (status 'submitting') with the request keys; the
provider's answer replaces it by the batch's own row in one write, and a submission surely not
accepted (refused, never sent, a stop before any attempt) removes it. A submission whose answer
was lost (a read timeout, a dropped connection, an unreadable answer, a 500, 502 or 504; the
adapter's bug) keeps it, the error in its `detail` as `lost`: the provider may have accepted that
batch too (`batch_calls.may_have_created`). A row left behind means the process died
mid-submission, or lost the answer: the next run does not submit its jobs again but stops the
model with a line that says to look in the provider's batch list, then give the row up with
`poemetric batches abandon ... --force` (which submits the jobs again).
"""

from __future__ import annotations

import json
import secrets
import shlex
from collections.abc import Mapping
from typing import Any

from poemetric.hints import program
from poemetric.store.db import RunStore, utc_now
from poemetric.text.plural import counted

#: Ids of the rows written before a submission: no provider's batch id starts so.
PREFIX = "unconfirmed-"
SUBMITTING = "submitting"


def is_unconfirmed(batch_id: str) -> bool:
    return batch_id.startswith(PREFIX)


def note_submission(
    store: RunStore, where: tuple[str, str, str], keys: Mapping[str, str], detail: dict[str, Any]
) -> str:
    """Before a submission: its row (status 'submitting'); `where` is (provider, model, stage)."""
    marker = PREFIX + secrets.token_hex(6)
    now = utc_now()
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO batches(batch_id, provider, model, stage, status, request_keys, detail, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (marker, *where, SUBMITTING, json.dumps(dict(keys), sort_keys=True),
             json.dumps(detail), now, now),
        )  # fmt: skip
    return marker


def drop_submission(store: RunStore, marker: str) -> None:
    """The submission surely created no batch (or its batch's own row is written)."""
    with store.transaction() as conn:
        conn.execute("DELETE FROM batches WHERE batch_id = ? AND status = ?", (marker, SUBMITTING))


def keep_submission(store: RunStore, marker: str, error: str) -> None:
    """The submission's answer was lost (`error`): its row stays, saying so, for the next run."""
    with store.transaction() as conn:
        (row,) = conn.execute("SELECT detail FROM batches WHERE batch_id = ?", (marker,)).fetchall()
        detail = {**json.loads(row[0] or "{}"), "lost": error}
        conn.execute(
            "UPDATE batches SET detail = ?, updated_at = ? WHERE batch_id = ?",
            (json.dumps(detail), utc_now(), marker),
        )


def abandon_command(run_dir: str, marker: str) -> str:
    """`poemetric batches abandon unconfirmed-... --run RUN --force`."""
    return f"{program()} batches abandon {shlex.quote(marker)} --run {shlex.quote(run_dir)} --force"


def lost_advice(run_dir: str, marker: str) -> str:
    """What to do after a submission whose answer was lost (its row `marker` kept)."""
    return (
        "the provider may have accepted the batch all the same, so these jobs are not submitted "
        "again: look for it in the provider's batch list and cancel it there if it is; then "
        f"`{abandon_command(run_dir, marker)}`, after which the next run submits them again"
    )


def _lost(store: RunStore, marker: str) -> str | None:
    rows = store.query("SELECT detail FROM batches WHERE batch_id = ?", (marker,))
    lost = json.loads(rows[0]["detail"] or "{}").get("lost") if rows else None
    return lost if isinstance(lost, str) else None


def unconfirmed_reason(store: RunStore, stage: str, markers: list[tuple[str, int]]) -> str:
    """Why the model stops: `markers` are (row id, jobs) left by a process killed mid-submission
    or one that lost the submission's answer."""
    jobs = sum(n for _, n in markers)
    ids = ", ".join(m for m, _ in markers)
    what = f"{counted(len(markers), 'batch', 'batches')} of {counted(jobs, 'job')}"
    lost = [error for error in (_lost(store, m) for m, _ in markers) if error]
    if lost:
        head = f"an earlier run lost the provider's answer to its submission of {what} ({ids}: "
        head += f"{lost[0]})"
    else:
        head = f"an earlier run was killed while submitting {what} ({ids}), before the provider's "
        head += "answer was stored"
    marker = markers[0][0] if len(markers) == 1 else "BATCH_ID"
    return (
        f"{head}: the provider may have accepted it and charges for it, so its jobs are "
        "not submitted again. Look for it in the provider's batch list (created at the time of "
        f"that run, {stage} stage) and cancel it there if it is; then "
        f"`{abandon_command(str(store.run_dir), marker)}`, after which the next run "
        "submits these jobs again"
    )
