"""Bugs in a provider adapter (a third-party one, usually): a method raising something other
than `ProviderError` (a KeyError, a TypeError), or returning something of the wrong type. Each
is kept, its traceback redacted, in the run's call log (the `calls` table, outcome
`adapter-error`) for the adapter's author; what else happens depends on the method:

* `submit_batch`, `batch_status`, `batch_results` (`--batch`), `chunk_limit` (offline engines):
  the model alone stops, as a batch request failing for good does: one paragraph naming the
  model, the adapter (its entry point and package) and the exception; its jobs stay pending (a
  batch already submitted stays in the `batches` table and is polled again by the next run); the
  other models go on. A `BatchStatus` whose state is not one of `BATCH_STATES`, or whose counts
  are not ints, is such a bug of `batch_status` (nothing of it is stored).
* `generate`, `generate_batch`: the job (or chunk) fails alone, stored as an error row
  ("KeyError: ...") that the next run tries again. The traceback is logged, and a warning
  printed, once per model and place that raised (exception type, file and line), not once per
  job: a bug hit by every job would otherwise fill the log with the same traceback. A
  `generate_batch` that returns anything but a sequence of one result per request fails its
  chunk the same way. A result that is no well-formed `Completion` (`completion_check`: a token
  count or the text None) fails its job alone, from `batch_results` too.
* A `ProviderError` whose `status` is not an int (from any method): the status is dropped (it
  would be stored in the call log and quoted in error rows as it is), the error otherwise
  handled as it says; logged and warned once per model and place.
* `aclose`: a warning only; every result was stored before it, the exit status is unchanged and
  the other models go on.
"""

from __future__ import annotations

import shlex
import traceback
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, get_args

from poemetric.hints import program
from poemetric.providers.base import BatchState, BatchStatus, Provider, ProviderError
from poemetric.providers.registry import describe_provider

if TYPE_CHECKING:
    from poemetric.runner.model_run import ModelRun

#: The `calls` outcome of an adapter's bug.
OUTCOME = "adapter-error"
#: Longest exception message kept in the line that says why the model was stopped.
_MESSAGE_CHARS = 300

#: The states a `BatchStatus` may have.
BATCH_STATES = frozenset(get_args(BatchState))

#: How an adapter has a failure of its service retried (an exception of another type is not).
RAISE_PROVIDER_ERROR = (
    "if the service failed (an HTTP 5xx or 429, a timeout, a dropped connection), raise "
    "poemetric.providers.ProviderError(message, retryable=True, status=...) instead: that is "
    "retried with backoff within this run (limits.max_retries); other exceptions, TimeoutError "
    "aside, are not"
)

T = TypeVar("T")
#: The type(s) a batch method must return, and how to say it ("a batch id (str)").
Expected = tuple[type | tuple[type, ...], str]


class AdapterBug(Exception):
    """`method` of the model's adapter raised `error` (not a `ProviderError`), or returned a
    value of the wrong type (`error` is then a TypeError saying so)."""

    def __init__(self, method: str, error: BaseException) -> None:
        super().__init__(f"{method}: {type(error).__name__}: {error}")
        self.method = method
        self.error = error


async def adapter_call(run: ModelRun, call: Callable[[], Awaitable[T]], returns: Expected) -> T:
    """`await call()` (a `functools.partial` of an adapter's batch method): its value, or the
    `ProviderError` it raised (its status checked: `note_adapter_bug`); `AdapterBug` for any
    other exception, or a value that is not of the type `returns` names (an empty batch id
    included)."""
    method = getattr(getattr(call, "func", call), "__name__", "a batch method")
    try:
        value = await call()
    except ProviderError as error:
        note_adapter_bug(run, method, error, "-")
        raise
    except Exception as error:  # a bug in the adapter: never retried
        raise AdapterBug(method, error) from error
    expected, described = returns
    if not isinstance(value, expected) or (isinstance(value, str) and not value):
        wrong = TypeError(f"it returned {type(value).__name__}, not {described}: {value!r:.80}")
        raise AdapterBug(method, wrong)
    return value


def check_batch_status(status: BatchStatus) -> BatchStatus:
    """`status` (from `batch_status`, of the right type); `AdapterBug` when its state is not a
    known one (anything else would count as finished, and be stored as it is), its counts
    are not ints or its error is not text."""
    counts = (status.total, status.completed, status.failed)
    state: Any = status.state
    problem = None
    if not isinstance(state, str) or state not in BATCH_STATES:
        problem = f"state {state!r:.80}, not one of {', '.join(sorted(BATCH_STATES))}"
    elif not all(isinstance(n, int) and not isinstance(n, bool) for n in counts):
        problem = f"counts (total, completed, failed) that are not all ints: {counts!r:.80}"
    elif not isinstance(status.error, str | None):
        problem = f"an error that is not text: {type(status.error).__name__}"
    if problem:
        raise AdapterBug("batch_status", ValueError(f"it returned a BatchStatus with {problem}"))
    return status


def chunk_limit(provider: Provider) -> int | None:
    """`provider.chunk_limit()`; `AdapterBug` when it raises, or returns neither an int nor
    None."""
    try:
        limit: object = provider.chunk_limit()
    except Exception as error:
        raise AdapterBug("chunk_limit", error) from error
    if limit is None or (isinstance(limit, int) and not isinstance(limit, bool)):
        return limit
    wrong = TypeError(f"it returned {type(limit).__name__}, not an int or None: {limit!r:.80}")
    raise AdapterBug("chunk_limit", wrong)


def batch_answers(results: object, requests: int) -> Sequence[Any] | TypeError:
    """`generate_batch`'s return value when it is a sequence of one result per request; else
    the TypeError that says what it returned (the chunk's jobs then fail)."""
    if isinstance(results, Sequence) and not isinstance(results, str | bytes):
        if len(results) == requests:
            return results
        returned = f"{len(results)} results for {requests} requests"
    else:
        returned = f"{type(results).__name__}, not a sequence of {requests} results"
    return TypeError(f"generate_batch returned {returned}, one per request")


def stop_for_adapter_bug(
    run: ModelRun, bug: AdapterBug, batch_id: str | None, *, jobs: int, kept: str | None = None
) -> None:
    """Stop the model, its `jobs` left pending for the next run, and log the traceback; `kept`
    says what to do about a batch `submit_batch` may have created before it failed."""
    error = bug.error
    message = shortened(run.redact(str(error)))
    where = f" for batch {batch_id}" if batch_id else ""
    reason = (
        f"{describe_provider(run.spec.provider)} failed in {bug.method}{where} with "
        f"{type(error).__name__}: {message}. This is a bug in the adapter, not a failure of the "
        "service: nothing was stored as done or as an error; its traceback is in the run's call "
        f"log (`{program()} export calls --run {shlex.quote(str(run.store.run_dir))}`, outcome "
        "adapter-error)"
    )
    if kept:
        reason += f"; {kept}"
    elif bug.method in ("submit_batch", "submit_tagged_batch"):
        reason += (
            "; if the adapter created the batch before it failed, cancel it in the provider's "
            "batch list before running again"
        )
    run.stop_mid_run(reason)
    log_traceback(run, f"{bug.method}{where}", error, cache_key=batch_id or "-")
    run.leave_pending(jobs)


def start_bug(run: ModelRun, method: str, error: Exception) -> str:
    """Why the model cannot run when its adapter's `method` (the constructor or `preflight`)
    raised `error`, not a `ProviderError`: the exception, then the adapter (its entry point and
    package) and the file and line that raised, which "ValueError: ..." alone did not say; the
    traceback goes to the call log."""
    frames = traceback.extract_tb(error.__traceback__)
    line = f", {Path(frames[-1].filename).name} line {frames[-1].lineno}" if frames else ""
    log_traceback(run, method, error, cache_key="-")
    logged = (
        ""
        if run.options.dry_run
        else f"; traceback: `{program()} export calls --run {shlex.quote(str(run.store.run_dir))}`"
        ", outcome adapter-error"
    )
    where = f"in {method} of {describe_provider(run.spec.provider)}{line}{logged}"
    return f"{type(error).__name__}: {shortened(str(error))} ({where})"


def log_traceback(run: ModelRun, method: str, error: BaseException, *, cache_key: str) -> None:
    """Keep `error`'s traceback, keys removed, in the call log as an `adapter-error` of `method`
    (nothing is written by a dry run)."""
    if run.options.dry_run:
        return
    trace = "".join(traceback.format_exception(error))
    run.store.log_call(
        cache_key=cache_key,
        provider=run.spec.provider,
        model=run.spec.model,
        attempt=1,
        outcome=OUTCOME,
        http_status=None,
        detail=run.redact(f"{method}: {trace}"),
        latency_s=None,
    )


def note_adapter_bug(run: ModelRun, method: str, error: BaseException, cache_key: str) -> None:
    """`method` (`generate`, `generate_batch`) raised `error` (or returned the wrong value it
    describes, not raised) for the job `cache_key`, which fails alone. Unless it is a
    `ProviderError` or a timeout, which are failures of the service, log its traceback and
    warn, once per model and place that raised. A `ProviderError` (from any method) whose
    status is not an int loses that status here, noted the same way."""
    if isinstance(error, ProviderError):
        status: object = error.status
        if status is not None and (not isinstance(status, int) or isinstance(status, bool)):
            error.status = None
            did = (
                f"raised a ProviderError whose status is not an int ({type(status).__name__}) "
                f"in {method}"
            )
            dropped = "the status was dropped, the error otherwise handled as it says"
            _note_once(
                run, error, cache_key, (method, did, dropped), f"{method}: status {status!r:.80}"
            )
        return
    if isinstance(error, TimeoutError):
        return
    did = f"raised {type(error).__name__} in {method}"
    failed = "the jobs it failed are stored as errors (retried by the next run)"
    if error.__traceback__ is None:  # not raised: the wrong value it returned
        did = f"broke the contract of {method} ({error})"
    else:  # an adapter's author often raises a plain exception for the service's 500
        failed += f"; {RAISE_PROVIDER_ERROR}"
    _note_once(run, error, cache_key, (method, did, failed), method)


def _note_once(
    run: ModelRun, error: BaseException, cache_key: str, bug: tuple[str, str, str], label: str
) -> None:
    """Log `error`'s traceback (as `label`) and warn that the adapter `did` (a bug in `method`,
    with `consequence`: `bug`), once per model and place that raised."""
    method, did, consequence = bug
    frames = traceback.extract_tb(error.__traceback__)
    where = (frames[-1].filename, frames[-1].lineno) if frames else ("", None)
    site = (method, did.partition(" (")[0], type(error).__qualname__, *where)
    if site in run.adapter_bug_sites:
        return
    run.adapter_bug_sites.add(site)
    log_traceback(run, label, error, cache_key=cache_key)
    line = f" ({Path(where[0]).name}, line {where[1]})" if frames else ""
    run.report.warnings.append(
        run.redact(
            f"{describe_provider(run.spec.provider)} {did}{line}, a bug in the adapter: "
            f"{consequence}; its traceback is in the run's call log (`{program()} export calls "
            f"--run {shlex.quote(str(run.store.run_dir))}`, outcome adapter-error)"
        )
    )


async def close_provider(run: ModelRun, provider: Provider) -> None:
    """`provider.aclose()`; an exception from it is a warning (every result is stored by now),
    its traceback logged, so that it neither ends the command nor stops the other models."""
    try:
        await provider.aclose()
    except Exception as error:
        message = shortened(run.redact(str(error)))
        logged = (
            ""
            if run.options.dry_run
            else f"; its traceback is in the run's call log (`{program()} export calls --run "
            f"{run.store.run_dir}`, outcome adapter-error)"
        )
        run.report.warnings.append(
            f"{describe_provider(run.spec.provider)} failed in aclose with "
            f"{type(error).__name__}: {message}. This is a bug in the adapter: the results "
            "are stored, but it may have left a client, connection or engine open" + logged
        )
        log_traceback(run, "aclose", error, cache_key="-")


def shortened(message: str) -> str:
    """`message` cut to the length kept in the line that says why a model was stopped."""
    return message if len(message) <= _MESSAGE_CHARS else message[: _MESSAGE_CHARS - 1] + "…"
