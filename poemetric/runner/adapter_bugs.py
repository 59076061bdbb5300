"""Bugs in a provider adapter (a third-party one, usually): a method raising something other
than `ProviderError` (a KeyError, a TypeError), or returning something of the wrong type. Each
is kept, its traceback redacted, in the run's call log (the `calls` table, outcome
`adapter-error`) for the adapter's author; what else happens depends on the method:

* `submit_batch`, `batch_status`, `batch_results` (`--batch`): the model alone stops, as a batch
  request failing for good does: one paragraph naming the model, the adapter (its entry point
  and package) and the exception; its jobs stay pending (a batch already submitted stays in the
  `batches` table and is polled again by the next run); the other models go on.
* `generate`, `generate_batch`: the job (or chunk) fails alone, stored as an error row
  ("KeyError: ...") that the next run tries again. The traceback is logged, and a warning
  printed, once per model and place that raised (exception type, file and line), not once per
  job: a bug hit by every job would otherwise fill the log with the same traceback.
* `aclose`: a warning only; every result was stored before it, the exit status is unchanged and
  the other models go on.
"""

from __future__ import annotations

import traceback
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from poemetric.providers.base import Provider, ProviderError
from poemetric.providers.registry import describe_provider

if TYPE_CHECKING:
    from poemetric.runner.runner import ModelRun

#: The `calls` outcome of an adapter's bug.
OUTCOME = "adapter-error"
#: Longest exception message kept in the line that says why the model was stopped.
_MESSAGE_CHARS = 300

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


async def adapter_call(call: Callable[[], Awaitable[T]], returns: Expected) -> T:
    """`await call()` (a `functools.partial` of an adapter's batch method): its value, or the
    `ProviderError` it raised; `AdapterBug` for any other exception, or a value that is not of
    the type `returns` names (an empty batch id included)."""
    method = getattr(getattr(call, "func", call), "__name__", "a batch method")
    try:
        value = await call()
    except ProviderError:
        raise
    except Exception as error:  # a bug in the adapter: never retried
        raise AdapterBug(method, error) from error
    expected, described = returns
    if not isinstance(value, expected) or (isinstance(value, str) and not value):
        wrong = TypeError(f"it returned {type(value).__name__}, not {described}: {value!r:.80}")
        raise AdapterBug(method, wrong)
    return value


def stop_for_adapter_bug(run: ModelRun, bug: AdapterBug, batch_id: str | None) -> None:
    """Stop the model (its jobs stay pending: the caller counts them) and log the traceback."""
    error = bug.error
    message = _shortened(run.redact(str(error)))
    where = f" for batch {batch_id}" if batch_id else ""
    reason = (
        f"{describe_provider(run.spec.provider)} failed in {bug.method}{where} with "
        f"{type(error).__name__}: {message}. This is a bug in the adapter, not a failure of the "
        "service: nothing was stored as done or as an error; its traceback is in the run's call "
        f"log (`poemetric export calls --run {run.store.run_dir}`, outcome adapter-error)"
    )
    if bug.method == "submit_batch":
        reason += (
            "; if the adapter created the batch before it failed, cancel it in the provider's "
            "batch list before running again"
        )
    run.stop_mid_run(reason)
    log_traceback(run, f"{bug.method}{where}", error, cache_key=batch_id or "-")


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
    """`method` (`generate`, `generate_batch`) raised `error` for the job `cache_key`, which
    fails alone. Unless it is a `ProviderError` or a timeout, which are failures of the service,
    log its traceback and warn, once per model and place that raised."""
    if isinstance(error, ProviderError | TimeoutError):
        return
    frames = traceback.extract_tb(error.__traceback__)
    where = (frames[-1].filename, frames[-1].lineno) if frames else ("", None)
    site = (method, type(error).__qualname__, *where)
    if site in run.adapter_bug_sites:
        return
    run.adapter_bug_sites.add(site)
    log_traceback(run, method, error, cache_key=cache_key)
    line = f" ({Path(where[0]).name}, line {where[1]})" if frames else ""
    run.report.warnings.append(
        f"{describe_provider(run.spec.provider)} raised {type(error).__name__} in {method}"
        f"{line}, a bug in the adapter: the jobs it failed are stored as errors (retried by the "
        "next run); its traceback is in the run's call log (`poemetric export calls --run "
        f"{run.store.run_dir}`, outcome adapter-error)"
    )


async def close_provider(run: ModelRun, provider: Provider) -> None:
    """`provider.aclose()`; an exception from it is a warning (every result is stored by now),
    its traceback logged, so that it neither ends the command nor stops the other models."""
    try:
        await provider.aclose()
    except Exception as error:
        message = _shortened(run.redact(str(error)))
        logged = (
            ""
            if run.options.dry_run
            else "; its traceback is in the run's call log (`poemetric export calls --run "
            f"{run.store.run_dir}`, outcome adapter-error)"
        )
        run.report.warnings.append(
            f"{describe_provider(run.spec.provider)} failed in aclose with "
            f"{type(error).__name__}: {message}. This is a bug in the adapter: the results "
            "are stored, but it may have left a client, connection or engine open" + logged
        )
        log_traceback(run, "aclose", error, cache_key="-")


def _shortened(message: str) -> str:
    return message if len(message) <= _MESSAGE_CHARS else message[: _MESSAGE_CHARS - 1] + "…"
