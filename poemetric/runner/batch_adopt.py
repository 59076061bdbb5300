"""Finding the batch of a submission whose answer never reached the store (`batch_intent`).

A provider whose batch list shows a tag sent with each submission (`FindsBatches`: OpenAI's
`metadata`, Gemini's `display_name`) gets the `unconfirmed-...` row's id as that tag. When the
answer was lost (a timeout, a dropped connection, a 500) or the process was killed while it
waited, the next run asks the provider's list (free: nothing is sent that is paid for) for the
batches carrying it, before it stops the model:

* exactly one: it is adopted, as a successful submission's answer would have been: its own row
  replaces the `unconfirmed-...` one (same request keys), then it is polled and collected as
  usual; a line under the summary says so;
* none: the model stops as before, the line saying how many batches the list held; its jobs
  are still not submitted again, since a list may lag behind a batch just created;
* several (the tag sent twice: a retry after an answer read as a refusal although the provider
  had created the batch, or an adapter's bug): the model stops with a line naming them, since
  only one may be paid for.

A row written without a tag (by a provider without `FindsBatches`, such as Anthropic's, or an
earlier version of poemetric) is never searched for: a list without it would prove nothing.
The run that sends a tagged submission searches too, with `search_tag` and `adopt`: before a
retry after a 503 or 529, and after a lost answer (`batch_retry_search`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from poemetric.providers.base import BatchCapable, BatchSearch, FindsBatches
from poemetric.runner.adapter_bugs import AdapterBug, log_traceback, shortened
from poemetric.runner.batch_calls import BatchRequest, GaveUp, Stopped, log_batch_call, retried
from poemetric.runner.batch_intent import TAGGED, submission_detail
from poemetric.runner.batch_table import RECORDED_KEYS, InFlight, record_batch
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun

#: Batches created this long before their row was written are not read (clock skew between
#: this machine and the provider's).
CLOCK_SKEW_S = 3600.0


@dataclass
class Found:
    """What the provider's batch lists said of the rows left by lost submissions."""

    #: The batches adopted, their rows written in place of the `unconfirmed-...` ones.
    adopted: list[InFlight] = field(default_factory=list)
    #: The rows still unconfirmed, with their pending jobs here.
    left: list[tuple[str, int]] = field(default_factory=list)
    #: For a row of `left`: what its search found ("holds no batch ...").
    notes: dict[str, str] = field(default_factory=dict)
    #: Why the model stops at once: a row whose tag several batches carry.
    several: str | None = None


async def search_lost(
    run: ModelRun,
    provider: BatchCapable,
    unconfirmed: list[tuple[str, int]],
    keys: Mapping[str, dict[str, str]],
    waiting: list[InFlight],
) -> tuple[list[tuple[str, int]], dict[str, str]]:
    """Before the model stops for `unconfirmed` ((row id, jobs pending here)): with a provider
    that `FindsBatches`, the batches found are added to `waiting` (`keys`: each row's request
    keys), and several found stop the model. The rows still unconfirmed, and what the search
    said of them (for `unconfirmed_reason`)."""
    if not unconfirmed or not isinstance(provider, FindsBatches):
        return unconfirmed, {}
    found = await find_lost_batches(run, provider, unconfirmed, keys)
    known = {batch.batch_id for batch in waiting}
    waiting.extend(batch for batch in found.adopted if batch.batch_id not in known)
    if found.several:
        run.stop_mid_run(found.several)
    return found.left, found.notes


async def find_lost_batches(
    run: ModelRun,
    provider: FindsBatches,
    unconfirmed: Sequence[tuple[str, int]],
    keys: Mapping[str, dict[str, str]],
) -> Found:
    """Search the provider's batch list for each row of `unconfirmed` ((row id, jobs pending
    here)); `keys`: each row's request keys."""
    found = Found()
    for marker, jobs in unconfirmed:
        detail = submission_detail(run.store, marker)
        search = await search_tag(run, provider, marker) if detail.get(TAGGED) else None
        if isinstance(search, BatchSearch) and len(search.found) == 1:
            found.adopted.append(adopt(run, marker, search, keys[marker], detail, _NEXT_RUN))
            continue
        found.left.append((marker, jobs))  # untagged, unreadable, none or several found
        if isinstance(search, str):
            found.notes[marker] = search
        elif search is not None and not search.found:
            found.notes[marker] = (
                f"the provider's batch list ({counted(search.searched, 'batch', 'batches')} "
                "searched) holds no batch of that submission, but a list may lag behind a batch "
                "just created"
            )
        elif search is not None and found.several is None:
            found.several = several_reason(marker, search)
    return found


async def search_tag(run: ModelRun, provider: FindsBatches, marker: str) -> BatchSearch | str:
    """The provider's batches tagged `marker`; what went wrong when the list could not be read."""
    request = BatchRequest("batch list search", marker)
    since = _written_at(run, marker) - CLOCK_SKEW_S
    try:
        search = await retried(
            run,
            partial(provider.find_batches, marker, since=since),
            request,
            returns=(BatchSearch, "a poemetric.providers.base.BatchSearch"),
        )
    except GaveUp as failed:
        said = shortened(run.redact(str(failed.error)))
        return f"the provider's batch list could not be searched for it ({said})"
    except Stopped:
        return "the search of the provider's batch list was stopped"
    except AdapterBug as bug:  # the adapter's bug: its traceback in the call log
        error = bug.error
        log_traceback(run, bug.method, error, cache_key=marker)
        return (
            f"the provider's batch list could not be searched for it: {bug.method} raised "
            f"{type(error).__name__}: {shortened(run.redact(str(error)))} (a bug in the adapter, "
            "its traceback in the run's call log)"
        )
    # A batch named twice (a list read twice over: a cursor the API ignores) is one batch.
    search = BatchSearch(tuple(dict.fromkeys(search.found)), search.searched)
    note = f"{counted(len(search.found), 'batch', 'batches')} found in {search.searched} listed"
    log_batch_call(run, request, request.attempts, "ok", note=note)
    return search


def _written_at(run: ModelRun, marker: str) -> float:
    """When the row `marker` was written (Unix time)."""
    rows = run.store.query("SELECT created_at FROM batches WHERE batch_id = ?", (marker,))
    return datetime.fromisoformat(str(rows[0]["created_at"])).timestamp()


#: Of a batch found by a later run (`adopt`'s `how`).
_NEXT_RUN = "whose answer an earlier run never stored"


def adopt(
    run: ModelRun,
    marker: str,
    search: BatchSearch,
    keys: dict[str, str],
    detail: dict[str, object],
    how: str,
) -> InFlight:
    """The one batch tagged `marker`: its row in place of the marker's, said under the summary
    (`how`: what became of the submission's answer, "whose answer ...")."""
    (batch_id,) = search.found
    where = (run.spec.provider, run.spec.name, run.handler.table)
    kept: dict[str, object] = {k: detail[k] for k in RECORDED_KEYS if k in detail}
    record_batch(run.store, batch_id, where, keys, {**kept, "found_for": marker}, replacing=marker)
    run.report.notes.append(
        f"found batch {batch_id} in the provider's batch list "
        f"({counted(search.searched, 'batch', 'batches')} searched): the submission {marker} "
        f"of {counted(len(keys), 'job')}, {how}; it is polled and collected as usual, nothing "
        "is submitted again"
    )
    return InFlight(batch_id, keys)


def several_reason(marker: str, search: BatchSearch, who: str = "an earlier run") -> str:
    """Why the model stops when several batches carry the tag `marker`, which `who` sent once."""
    ids = ", ".join(search.found)
    return (
        f"the provider's batch list ({counted(search.searched, 'batch', 'batches')} searched) "
        f"holds {len(search.found)} batches of the submission {marker} ({ids}), which {who} "
        "meant to send once (a retry after an answer read as a refusal, though the batch "
        "was created): each is paid for, and only one can be "
        "collected. Cancel all but one of them in the provider's batch list (a cancelled batch "
        "is not adopted), then run again: it adopts the one left"
    )
