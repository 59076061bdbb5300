"""Retry policy of the batch runner, run by tenacity.

- A failure is retried when the provider says it is worth it (`ProviderError.retryable`).
- A rate limit (HTTP 429) does not spend the retry budget: the job waits the server's
  Retry-After (or backs off when there is none) while the model's rate controller slows down.
  A quota that never refills must still end: at most `max_rate_limited` 429s per job.
- Other failures get `max_retries` retries with full-jitter exponential backoff (uniform in
  `[0, min(cap, base * 2^(k-1))]`, k = failures so far), and at least the Retry-After when the
  server sends one.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception
from tenacity.stop import stop_base
from tenacity.wait import wait_base

from poemetric.providers.base import ModelSpec, ProviderError
from poemetric.redaction import url_without_credentials

RATE_LIMIT_STATUS = 429
#: The API key was refused (wrong, revoked, or without access to the model): every other
#: request of the model would fail the same way, so the runner stops the model instead.
#: Gemini says it with HTTP 400 (API_KEY_INVALID): its adapter sets `ProviderError.key_refused`.
AUTH_STATUSES = frozenset({401, 403})


def is_rate_limit(error: BaseException) -> bool:
    return isinstance(error, ProviderError) and error.status == RATE_LIMIT_STATUS


def is_auth_failure(error: BaseException) -> bool:
    return isinstance(error, ProviderError) and (error.key_refused or error.status in AUTH_STATUSES)


def is_model_not_found(error: BaseException) -> bool:
    """A request answered 404: the provider knows no such model (OpenAI's `model_not_found`,
    Anthropic's `not_found_error`, Gemini's `NOT_FOUND`), or no such endpoint; either way every
    other job of the model would be answered the same."""
    return isinstance(error, ProviderError) and error.status == 404


def model_not_found_reason(spec: ModelSpec, error: str) -> str:
    """Why a model answered 404 was stopped, naming what to check in its model file."""
    where = f" at {url_without_credentials(spec.base_url)}" if spec.base_url else ""
    return (
        f"the provider knows no model {spec.model!r}{where} ({error}): check `model:` (and "
        f"`base_url:`) in the model file of {spec.name!r}"
    )


def _worth_retrying(error: BaseException) -> bool:
    return isinstance(error, ProviderError) and error.retryable and not error.fatal


@dataclass
class Attempts:
    """One job's failures so far."""

    failures: int = 0
    rate_limited: int = 0

    def count(self, error: BaseException | None) -> None:
        if is_rate_limit(error):  # type: ignore[arg-type]
            self.rate_limited += 1
        else:
            self.failures += 1


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` retries after the first attempt (429s not counted); delays from `delay`."""

    max_retries: int
    base_s: float = 1.0
    cap_s: float = 60.0
    #: Longest Retry-After the runner will honour; longer ones are capped to this.
    max_retry_after_s: float = 600.0
    max_rate_limited: int = 100

    def delay(self, attempts: Attempts, error: BaseException, rng: random.Random) -> float:
        """Seconds to wait after `error`, the latest of `attempts`.

        Full jitter spreads the retries of many concurrent requests. When the server sent
        Retry-After the wait is at least that long, plus a little jitter so that requests told
        the same moment do not all return at once.
        """
        rate_limited = is_rate_limit(error)
        tries = attempts.rate_limited if rate_limited else attempts.failures
        ceiling = min(self.cap_s, self.base_s * 2 ** max(0, tries - 1))
        backoff = rng.uniform(0.0, ceiling)
        after = error.retry_after_s if isinstance(error, ProviderError) else None
        if after is None or after < 0:
            return backoff
        honoured = min(after, self.max_retry_after_s)
        return honoured + rng.uniform(0.0, min(1.0, 0.1 * honoured + 0.05))

    def exhausted(self, attempts: Attempts) -> bool:
        return attempts.failures > self.max_retries or attempts.rate_limited > self.max_rate_limited

    def retrying(
        self,
        rng: random.Random,
        *,
        before_sleep: Callable[[ProviderError, int], None] | None = None,
        also_if: Callable[[ProviderError], bool] | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
    ) -> AsyncRetrying:
        """A tenacity controller for one job: `async for attempt in ...: with attempt: ...`.

        `before_sleep(error, attempt_number)` runs when a failed attempt is going to be retried.
        `also_if(error)` narrows what is retried: a retryable error is retried only when it also
        says yes. `sleep(seconds)` waits before a retry (default `asyncio.sleep`). The last
        failure is re-raised once the policy gives up.
        """
        attempts = Attempts()

        def worth_retrying(error: BaseException) -> bool:
            if not _worth_retrying(error) or not isinstance(error, ProviderError):
                return False
            return also_if is None or also_if(error)

        def after(state: RetryCallState) -> None:
            attempts.count(_failure(state))

        def sleep_hook(state: RetryCallState) -> None:
            error = _failure(state)
            if before_sleep is not None and isinstance(error, ProviderError):
                before_sleep(error, state.attempt_number)

        extra: dict[str, Any] = {} if sleep is None else {"sleep": sleep}
        return AsyncRetrying(
            retry=retry_if_exception(worth_retrying),
            stop=_StopWhenExhausted(self, attempts),
            wait=_WaitPerPolicy(self, attempts, rng),
            after=after,
            before_sleep=sleep_hook,
            reraise=True,
            **extra,
        )


def _failure(state: RetryCallState) -> BaseException | None:
    return None if state.outcome is None else state.outcome.exception()


class _StopWhenExhausted(stop_base):
    def __init__(self, policy: RetryPolicy, attempts: Attempts) -> None:
        self.policy = policy
        self.attempts = attempts

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self.policy.exhausted(self.attempts)


class _WaitPerPolicy(wait_base):
    def __init__(self, policy: RetryPolicy, attempts: Attempts, rng: random.Random) -> None:
        self.policy = policy
        self.attempts = attempts
        self.rng = rng

    def __call__(self, retry_state: RetryCallState) -> float:
        error: Any = _failure(retry_state)
        return self.policy.delay(self.attempts, error, self.rng)
