"""Client-side rate limiting: a concurrency cap plus request-rate and token-rate token buckets."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from poemetric.providers.base import RateLimits


class TokenBucket:
    """Refills at `rate_per_s` up to `capacity`; `acquire(n)` waits until `n` can be taken.

    Waiters are served first come, first served. A request larger than the capacity waits for a
    full bucket and then drives the level negative (a debt later requests wait out), so an
    oversized request cannot starve. `adjust` corrects the level once the true size is known.
    """

    def __init__(
        self,
        rate_per_s: float,
        capacity: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if rate_per_s <= 0 or capacity <= 0:
            raise ValueError("rate and capacity must be positive")
        self.rate_per_s = rate_per_s
        self.capacity = capacity
        self._clock = clock
        self._level = capacity
        self._updated = clock()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._level = min(self.capacity, self._level + (now - self._updated) * self.rate_per_s)
        self._updated = now

    @property
    def level(self) -> float:
        self._refill()
        return self._level

    async def acquire(self, amount: float = 1.0) -> None:
        needed = min(amount, self.capacity)
        async with self._lock:
            self._refill()
            while self._level < needed:
                await asyncio.sleep((needed - self._level) / self.rate_per_s)
                self._refill()
            self._level -= amount

    def adjust(self, delta: float) -> None:
        """Take `delta` more (positive) or give back (negative) after the fact."""
        self._refill()
        self._level = min(self.capacity, self._level - delta)


class ModelLimiter:
    """Everything that paces one model's calls: `async with limiter.slot(tokens): call()`.

    The concurrency slot is taken first and the rate buckets second, so a request never consumes
    a rate slot while it still queues for a connection. Request pacing uses a bucket of one
    request (smooth, no bursts): providers and proxies enforce limits over sliding windows that a
    burst would overrun. The token bucket holds ten seconds' worth of tokens.
    """

    def __init__(self, limits: RateLimits, *, concurrency: int | None = None) -> None:
        self.concurrency = concurrency or limits.max_concurrency
        self._slots = asyncio.Semaphore(self.concurrency)
        self.requests = (
            TokenBucket(limits.requests_per_minute / 60.0, 1.0)
            if limits.requests_per_minute
            else None
        )
        self.tokens = (
            TokenBucket(limits.tokens_per_minute / 60.0, limits.tokens_per_minute / 6.0)
            if limits.tokens_per_minute
            else None
        )

    @asynccontextmanager
    async def concurrency_slot(self) -> AsyncIterator[None]:
        async with self._slots:
            yield

    async def pace(self, estimated_tokens: int) -> None:
        """Wait for the rate buckets (call inside `concurrency_slot`)."""
        if self.requests is not None:
            await self.requests.acquire(1.0)
        if self.tokens is not None:
            await self.tokens.acquire(float(estimated_tokens))

    def correct_tokens(self, estimated: int, actual: int) -> None:
        if self.tokens is not None:
            self.tokens.adjust(float(actual - estimated))
