"""A tagged `--batch` submission (`FindsBatches`: OpenAI, `openai-compatible`, Gemini) looked for
in the provider's batch list within the run that sent it, so that it is neither bought twice nor
left for the next run needlessly (`batch_adopt` is the next run's search).

* Before each retry of a submission answered 503 or 529 (after the retry's wait): a gateway may
  send one after the provider behind it created the batch, and the retry would buy it a second
  time. The one batch found carrying the submission's tag is taken instead of retrying; none
  found, or a list that cannot be read, lets the retry go as before (a list may lag behind a
  batch just created: the next run then finds both, and stops the model naming them). After
  the last attempt (no retry left) the list is searched once so too, since the next run would
  submit those jobs again.
* After a lost answer (a read timeout, a dropped connection, an unreadable answer, a 500, 502 or
  504), its row already kept (`batch_intent.keep_submission`): the list is searched up to
  `LOST_SEARCHES` times, no more than the model's `limits.max_retries` (0: not searched), the k-th
  after a wait of `retry_base_s * 4^k` seconds, at most `retry_cap_s` (`RunnerOptions`: 2, 8 and
  30 s with the defaults). The batch found is taken and collected in this run; none found leaves
  the row and stops the model as before, and the next run searches again. Nothing is submitted
  again on "none found": the list may lag.
* Several batches found (the tag sent twice) stop the model with a line naming them: each is
  paid for, only one can be collected (`batch_adopt.several_reason`).

A batch taken has its own row in place of the `unconfirmed-...` one and a line under the summary
(`batch_adopt.adopt`); each search is a `batch list search` row of the call log. A stop (Ctrl-C,
SIGTERM) ends a wait at once and searches no more.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from poemetric.providers.base import BatchSearch, FindsBatches, ProviderError
from poemetric.runner import stopping
from poemetric.runner.adapter_bugs import shortened
from poemetric.runner.batch_adopt import adopt, search_tag, several_reason
from poemetric.runner.batch_calls import REFUSED_5XX
from poemetric.runner.batch_intent import row_kept
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun

#: The most searches of the batch list after a lost answer (fewer with a lower `max_retries`).
LOST_SEARCHES = 3
#: Each wait before a search after a lost answer is this many times the one before.
WAIT_GROWTH = 4.0


class SeveralFound(Exception):
    """Several batches carry the submission's tag: the model stops for `reason`; `error`, the
    refusal that preceded the search (kept in the row as its lost answer)."""

    def __init__(self, reason: str, error: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.error = error


@dataclass
class LostSearch:
    """What the searches after a lost answer found: the batch taken (`adopted`), or a `note`
    for the line that stops the model (none found, the list unreadable, a stop)."""

    adopted: str | None = None
    note: str | None = None


@dataclass
class TaggedSubmission:
    """One submission sent with its row's id (`marker`) as its tag; `keys`, its request keys;
    `detail`, what its batch's row keeps (provider model, requests)."""

    run: ModelRun
    provider: FindsBatches
    marker: str
    keys: dict[str, str]
    detail: dict[str, object]
    #: The batch taken from the list after a refusal, instead of a retry.
    adopted: str | None = None

    async def before_retry(self, error: ProviderError) -> str | None:
        """Before retrying after `error` (`batch_calls.retried`): after a 503 or 529, the id of
        the batch found carrying the tag (taken); None to retry. `SeveralFound` stops."""
        if error.status not in REFUSED_5XX:
            return None
        search = await search_tag(self.run, self.provider, self.marker)
        if isinstance(search, str) or not search.found:
            return None
        said = shortened(self.run.redact(str(error)))
        if len(search.found) > 1:
            raise SeveralFound(several_reason(self.marker, search, "this run"), said)
        how = f"answered HTTP {error.status} although the provider had created it"
        self.adopted = self._adopt(search, how)
        return self.adopted

    async def after_lost_answer(self, error: str) -> LostSearch:
        """After the answer was lost (`error`, redacted): search the list a few times, waiting
        before each. `SeveralFound` stops."""
        searches = min(LOST_SEARCHES, self.run.spec.limits.max_retries)
        options = self.run.options
        started = time.monotonic()
        last: BatchSearch | str | None = None
        done = 0
        for k in range(1, searches + 1):
            if stopping.requested() or not row_kept(self.run.store, self.marker):
                break
            await stopping.pause(min(options.retry_cap_s, options.retry_base_s * WAIT_GROWTH**k))
            if stopping.requested() or not row_kept(self.run.store, self.marker):
                break
            last = await search_tag(self.run, self.provider, self.marker)
            done += 1
            if isinstance(last, str):
                return LostSearch(note=last)
            if len(last.found) > 1:
                raise SeveralFound(several_reason(self.marker, last, "this run"), error)
            if last.found:
                return LostSearch(adopted=self._adopt(last, f"whose answer was lost ({error})"))
        if not isinstance(last, BatchSearch):
            return LostSearch()
        return LostSearch(
            note=(
                f"the provider's batch list holds no batch of it after "
                f"{counted(done, 'search', 'searches')} in {time.monotonic() - started:.0f} s, "
                f"{counted(last.searched, 'batch', 'batches')} searched the last time, but a "
                "list may lag behind a batch just created"
            )
        )

    def _adopt(self, search: BatchSearch, how: str) -> str:
        return adopt(self.run, self.marker, search, self.keys, self.detail, how).batch_id
