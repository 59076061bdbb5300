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
`poemetric batches abandon ... --force` (which submits the jobs again). Where the provider's
batch list shows a tag sent with the batch (`FindsBatches`: OpenAI, Gemini), the batch carries
the row's id (`TAGGED` in its detail): the run that lost the answer looks for it there a few
times before it stops the model (`batch_retry_search`), and the next run first looks for it
there too, adopting the one it finds (`batch_adopt`).

Several processes may share a run directory (`--shard`, or one command run twice): a row of
another process whose submission is still under way is no trace of a kill. Its `detail` names
its process (`holder`: pid, host, kernel start time), and a run stops the model only for a row
whose jobs are pending in it: a live process holds the leases of the jobs it submits, so they
are pending in no other, and another shard's jobs are not this one's. A row whose jobs are
pending here although its process still runs (its leases taken over: a host that stopped
renewing its heartbeat on a shared file system) leaves those jobs to it, as a held lease does;
the check is by pid on the same host and by the lease heartbeat on another (`leases`).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from poemetric.runner.batch_table import UNCONFIRMED_PREFIX, abandon_command, is_unconfirmed
from poemetric.runner.batch_unknown import shown_time
from poemetric.runner.leases import process_alive, this_process
from poemetric.store.db import RunStore, utc_now
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun

#: The status of a marker row (`UNCONFIRMED_PREFIX...`) while its submission is under way.
SUBMITTING = "submitting"
#: In a marker's `detail`: the batch carries the marker's id as its tag in the provider's batch
#: list (`FindsBatches`), so the next run can search for it (`batch_adopt`).
TAGGED = "tagged"
#: The longest lost answer's error `SubmissionState.note` shows.
LOST_CHARS = 120


def new_marker() -> str:
    """The id of a row written before a submission (`unconfirmed-...`)."""
    return UNCONFIRMED_PREFIX + secrets.token_hex(6)


def note_submission(
    store: RunStore,
    where: tuple[str, str, str],
    keys: Mapping[str, str],
    detail: dict[str, Any],
    marker: str | None = None,
) -> str:
    """Before a submission: its row (status 'submitting'), with the id `marker` (a new one by
    default); `where` is (provider, model, stage)."""
    marker = marker or new_marker()
    now = utc_now()
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO batches(batch_id, provider, model, stage, status, request_keys, detail, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (marker, *where, SUBMITTING, json.dumps(dict(keys), sort_keys=True),
             json.dumps({**detail, "holder": this_process()}), now, now),
        )  # fmt: skip
    return marker


def drop_submission(store: RunStore, marker: str) -> None:
    """The submission surely created no batch (or its batch's own row is written)."""
    with store.transaction() as conn:
        conn.execute("DELETE FROM batches WHERE batch_id = ? AND status = ?", (marker, SUBMITTING))


def keep_submission(store: RunStore, marker: str, error: str) -> None:
    """The submission's answer was lost (`error`): its row stays, saying so, for the next run.
    A row gone meanwhile was replaced by the batch's own: another process sharing the run,
    this one taken for dead (a heartbeat not renewed), found the batch (`batch_adopt`)."""
    with store.transaction() as conn:
        rows = conn.execute("SELECT detail FROM batches WHERE batch_id = ?", (marker,)).fetchall()
        if not rows:
            return
        detail = {**json.loads(rows[0][0] or "{}"), "lost": error}
        conn.execute(
            "UPDATE batches SET detail = ?, updated_at = ? WHERE batch_id = ?",
            (json.dumps(detail), utc_now(), marker),
        )


def abandon_markers(run_dir: object, markers: Iterable[str]) -> str:
    """The `batches abandon ... --force` command that gives up the rows `markers` (BATCH_ID for
    one of several): a row written before a submission is never known to have ended."""
    return abandon_command(str(run_dir), dict.fromkeys(markers, SUBMITTING))


def lost_advice(store: RunStore, marker: str) -> str:
    """What to do after a submission whose answer was lost (its row `marker` kept): a batch
    tagged with `marker` is looked for by the next run (`batch_adopt`); else by hand. A row
    gone was replaced by the batch's own, found by another process meanwhile."""
    if not row_kept(store, marker):
        return (
            "the provider accepted the batch all the same: another run found that batch in the "
            f"provider's batch list meanwhile (it carries {marker}) and collects it, so these "
            "jobs are not submitted again"
        )
    head = "the provider may have accepted the batch all the same, so these jobs are not submitted "
    if submission_detail(store, marker).get(TAGGED):
        return (
            f"{head}again: the next run with --batch looks for it in the provider's batch list "
            f"(it carries {marker}) and collects it if it is there"
        )
    return (
        f"{head}again: look for it in the provider's batch list and cancel it there if it is; "
        f"then `{abandon_markers(store.run_dir, [marker])}`, after which the next run submits "
        "them again"
    )


def row_kept(store: RunStore, marker: str) -> bool:
    """Whether the row `marker` is still there: another process sharing the run, this one taken
    for dead (a heartbeat not renewed), may have found the batch and replaced the row by its
    own (`batch_adopt`)."""
    return bool(store.query("SELECT 1 FROM batches WHERE batch_id = ?", (marker,)))


def submission_detail(store: RunStore, marker: str) -> dict[str, Any]:
    """The stored `detail` of the row `marker` ({} when there is none)."""
    rows = store.query("SELECT detail FROM batches WHERE batch_id = ?", (marker,))
    detail = json.loads(rows[0]["detail"] or "{}") if rows else {}
    return detail if isinstance(detail, dict) else {}


def _lost(store: RunStore, marker: str) -> str | None:
    lost = submission_detail(store, marker).get("lost")
    return lost if isinstance(lost, str) else None


@dataclass(frozen=True)
class Holder:
    """The process that wrote a row before its submission (`this_process`)."""

    pid: int
    host: str
    started: str | None

    @property
    def who(self) -> str:
        return f"pid {self.pid} on {self.host}"

    def alive(self, store: RunStore) -> bool:
        return process_alive(store, self.pid, self.host, self.started)


def _holder(detail: Mapping[str, Any]) -> Holder | None:
    """The row's `holder` (pid, host, kernel start time); None when it names none."""
    holder = detail.get("holder")
    if not isinstance(holder, dict):
        return None
    pid, host, started = holder.get("pid"), holder.get("host"), holder.get("process_start")
    if not isinstance(pid, int) or not isinstance(host, str):
        return None
    return Holder(pid, host, started if isinstance(started, str) else None)


def submitting_process(store: RunStore, marker: str) -> str | None:
    """The process still submitting `marker` ('pid N on HOST'); None when it is gone (killed),
    lost the answer, is this process (a submission cut by a cancel, seen by the next
    `run_generation` of a notebook or script: a model runs once at a time in a process, so its
    own row is never still under way), or the row names none."""
    detail = submission_detail(store, marker)
    holder = _holder(detail)
    if "lost" in detail or holder is None:
        return None
    me = this_process()
    if (holder.pid, holder.host) == (me["pid"], me["host"]):
        return None
    return holder.who if holder.alive(store) else None


def _holder_start(store: RunStore, holder: Holder) -> str | None:
    """When the submitting process started (UTC): from its lease holder row, else (the same
    host) from its kernel start time and the boot time; None when neither tells."""
    rows = store.query(
        "SELECT started_at FROM holders WHERE pid = ? AND host = ? AND process_start IS ? "
        "ORDER BY started_at LIMIT 1",
        (holder.pid, holder.host, holder.started),
    )
    if rows:
        return shown_time(str(rows[0]["started_at"]))
    started = holder.started
    if holder.host != socket.gethostname() or started is None or not started.isdigit():
        return None
    try:
        with open("/proc/stat", encoding="utf-8") as handle:
            boot = next(int(x.split()[1]) for x in handle if x.startswith("btime "))
        ticks = os.sysconf("SC_CLK_TCK")
    except (OSError, StopIteration, ValueError):
        return None
    when = datetime.fromtimestamp(boot + int(started) / ticks, UTC)
    return shown_time(when.isoformat())


@dataclass(frozen=True)
class SubmissionState:
    """What `poemetric batches list` says of a row written before a submission."""

    note: str
    #: Its process still runs and has not lost the provider's answer: the row is left to it.
    under_way: bool


def submission_state(store: RunStore, detail: Mapping[str, Any]) -> SubmissionState:
    """A row written before a submission: its process (pid, host, start) and whether it still
    submits, was killed, or lost the provider's answer."""
    holder = _holder(detail)
    who = "process unknown"
    alive = False
    if holder is not None:
        start = _holder_start(store, holder)
        who = holder.who + (f", started {start}" if start else "")
        alive = holder.alive(store)
    lost = detail.get("lost")
    if isinstance(lost, str):
        lost = lost if len(lost) <= LOST_CHARS else lost[: LOST_CHARS - 1] + "…"
        state = "answer lost" + (" (its process still runs)" if alive else "")
        return SubmissionState(f"{state}: {lost}; submitted by {who}", under_way=False)
    if alive:
        return SubmissionState(f"submission under way: {who}, still running", under_way=True)
    return SubmissionState(f"killed mid-submission: {who}, no longer running", under_way=False)


def split_unconfirmed(batch_ids: Iterable[str]) -> tuple[list[str], dict[str, int]]:
    """The ids of one open batch per job: the batches' (sorted), and the jobs by row written
    before a submission whose answer never reached the store (`batch_intent`)."""
    counts = Counter(batch_ids)
    return (
        sorted(b for b in counts if not is_unconfirmed(b)),
        {b: n for b, n in sorted(counts.items()) if is_unconfirmed(b)},
    )


def unconfirmed_here(
    run: ModelRun, marker: str, here: int, unconfirmed: list[tuple[str, int]]
) -> None:
    """The row `marker` covers `here` jobs pending in this process: if the process that wrote it
    still runs (its leases taken over), they are left to it; else it was killed or lost the
    provider's answer, and the model stops (`unconfirmed`)."""
    holder = submitting_process(run.store, marker)
    if holder is None:
        unconfirmed.append((marker, here))
        return
    run.report.held_elsewhere += here
    run.report.pending -= here
    held = f"{here} in a batch submission under way ({marker}) by {holder}"
    run.report.held_by = f"{run.report.held_by}; {held}" if run.report.held_by else held


def unconfirmed_reason(
    store: RunStore,
    stage: str,
    markers: list[tuple[str, int]],
    searched: Mapping[str, str] | None = None,
) -> str:
    """Why the model stops: `markers` are (row id, jobs) left by a process killed mid-submission
    or one that lost the submission's answer; `searched`, what the provider's batch list said
    of some of them (`batch_adopt`)."""
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
    notes = [(m, note) for m, _ in markers if (note := (searched or {}).get(m))]
    if notes:
        head += "; " + "; ".join(note if len(markers) == 1 else f"{m}: {note}" for m, note in notes)
    return (
        f"{head}: the provider may have accepted it and charges for it, so its jobs are "
        "not submitted again. Look for it in the provider's batch list (created at the time of "
        f"that run, {stage} stage) and cancel it there if it is; then "
        f"`{abandon_markers(store.run_dir, [m for m, _ in markers])}`, after which the next run "
        "submits these jobs again"
    )


def unconfirmed_warnings(
    store: RunStore, stage: str, counts: Mapping[str, int], what: str
) -> list[str]:
    """What a plan, or a run without --batch, says of the pending jobs in rows written before a
    submission (`counts`: jobs by row): those of a process still submitting are left to it; the
    others stop the model in a run with --batch, `what` says what this command does with them."""
    lines: list[str] = []
    gone: list[tuple[str, int]] = []
    for marker, jobs in counts.items():
        if (holder := submitting_process(store, marker)) is None:
            gone.append((marker, jobs))
            continue
        lines.append(
            f"{counted(jobs, 'job')} {plural(jobs, 'is', 'are')} in a batch submission under way "
            f"in another process ({holder}, {marker}): left to it, not called"
        )
    if gone:
        jobs = sum(n for _, n in gone)
        if any(submission_detail(store, marker).get(TAGGED) for marker, _ in gone):
            what += (
                "; a run with --batch first searches the provider's batch list for it (the "
                "batch carries the row's id) and collects it if it is there"
            )
        lines.append(
            f"{counted(jobs, 'job')} {plural(jobs, 'is', 'are')} in a batch submission whose "
            f"answer never reached the store: {what}; {unconfirmed_reason(store, stage, gone)}"
        )
    return lines
