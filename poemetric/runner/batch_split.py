"""How `--batch` splits the jobs it submits into batches: at most `RunnerOptions.batch_max_items`
requests each, and within the provider's own limits on one batch (`BatchCapable`:
`max_batch_requests`, and `max_batch_bytes` as `batch_item_bytes` counts them; Gemini's inline
requests must stay under 20 MB in all), which a batch past them would be refused for."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from poemetric.providers.base import BatchCapable, ProviderError
from poemetric.runner.adapter_bugs import AdapterBug
from poemetric.runner.jobs import Job


def split_batches(
    provider: BatchCapable, jobs: Sequence[Job], max_items: int
) -> Iterator[list[Job]]:
    """`jobs` in order, cut into batches within `max_items` and the provider's limits. A request
    larger than the byte limit alone goes in a batch of its own (the provider says why not).
    Each batch is sized when the one before it was taken (submitted), so that an adapter that
    builds a request to size it (Gemini) keeps one batch's requests for its submission, not all.
    `AdapterBug` from the adapter's `batch_item_bytes` (`_item_bytes`)."""
    most = max(1, max_items)
    # getattr: an adapter registered as a virtual subclass has neither.
    if count_limit := getattr(provider, "max_batch_requests", None):
        most = min(most, count_limit)
    limit: int | None = getattr(provider, "max_batch_bytes", None)
    current: list[Job] = []
    size = 0
    for job in jobs:
        added = _item_bytes(provider, job) if limit else 0
        if current and (len(current) >= most or (limit and size + added > limit)):
            yield current
            current, size = [], 0
        current.append(job)
        size += added
    if current:
        yield current


def _item_bytes(provider: BatchCapable, job: Job) -> int:
    """`batch_item_bytes` of the job's request; `AdapterBug` when it raises other than a
    `ProviderError` or returns no int (a third-party adapter's bug stops its model alone, as
    one in `submit_batch` does)."""
    try:
        size: object = provider.batch_item_bytes(job.key, job.request)
    except ProviderError:  # a request the adapter refuses: its submission says why
        return 0
    except Exception as error:
        raise AdapterBug("batch_item_bytes", error) from error
    if not isinstance(size, int) or isinstance(size, bool):
        wrong = TypeError(
            f"it returned {type(size).__name__}, not a byte count (int): {size!r:.80}"
        )
        raise AdapterBug("batch_item_bytes", wrong)
    return size
