"""Client-side rate limiting: a concurrency cap, an adaptive request rate and a token-rate bucket.

The request rate adapts to the server (AIMD, as TCP does): a model starts at its configured
`requests_per_minute`, or unpaced when the model file sets none. When the server starts refusing
(a burst of 429s, not a lone one), the rate drops to `DECREASE` times the current rate (the first
time, the throughput the server granted while unpaced), at most once per `HOLD_S`; every success
raises it again (by `INCREASE` requests/s per second, or `INCREASE_SHARE` of the rate if more),
never above the configured ceiling. A model file without limits therefore finds a server's rate
by itself instead of failing its jobs.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
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

    def set_rate(self, rate_per_s: float) -> None:
        """Change the refill rate from now on (the level reached so far is kept)."""
        if rate_per_s <= 0:
            raise ValueError("rate must be positive")
        self._refill()
        self.rate_per_s = rate_per_s


#: Multiplicative decrease when the server rate-limits, and the shortest time between two.
DECREASE = 0.85
HOLD_S = 1.0
#: Additive increase: requests/s gained per second of successes (at least INCREASE, or
#: INCREASE_SHARE of the current rate, whichever is more).
INCREASE = 0.5
INCREASE_SHARE = 0.08
#: Never slower than this (requests/s).
MIN_RATE = 0.05
#: Successes within this window measure the throughput the server grants.
WINDOW_S = 2.0
#: 429s that count as the server's limit being reached: this many within the time of
#: BURST_REQUESTS requests (at least one second). A lone 429 (an overloaded replica, a proxy
#: hiccup) only makes its own job wait its Retry-After.
BURST_429 = 2
BURST_REQUESTS = 2.5
#: Transient failures (5xx, timeouts, dropped connections, broken bodies) in a row across a
#: model's requests, with no success between them, that make an outage: the model's requests
#: not yet sent are held (`ModelLimiter.on_transient_failure`).
OUTAGE_FAILURES = 4


class AdaptiveRate:
    """A request rate that adapts to the server's 429s (AIMD); None = not paced."""

    def __init__(
        self, ceiling_per_s: float | None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ceiling = ceiling_per_s
        self._clock = clock
        self._bucket = TokenBucket(ceiling_per_s, 1.0, clock=clock) if ceiling_per_s else None
        self._successes: deque[float] = deque()
        self._limited: deque[float] = deque()
        self._started = clock()
        self._last_decrease = float("-inf")
        self.decreases = 0

    @property
    def rate(self) -> float | None:
        return None if self._bucket is None else self._bucket.rate_per_s

    async def acquire(self) -> None:
        if self._bucket is not None:
            await self._bucket.acquire(1.0)

    def _granted(self, now: float) -> float:
        """Successes per second over the last window (since the start, early on)."""
        while self._successes and now - self._successes[0] > WINDOW_S:
            self._successes.popleft()
        span = max(min(WINDOW_S, now - self._started), 0.25)
        return len(self._successes) / span

    def on_success(self) -> None:
        now = self._clock()
        self._successes.append(now)
        if self._bucket is None:
            return
        rate = self._bucket.rate_per_s
        per_second = max(INCREASE, INCREASE_SHARE * rate)
        raised = rate + per_second / max(rate, 1.0)
        if self.ceiling is not None:
            raised = min(raised, self.ceiling)
        if raised != rate:
            self._bucket.set_rate(raised)

    def on_rate_limited(self) -> bool:
        """A 429: lower the rate when it is part of a burst. Returns whether it is (a lone
        429 is not: its job alone waits)."""
        now = self._clock()
        window = max(1.0, BURST_REQUESTS / self.rate) if self.rate else 1.0
        self._limited.append(now)
        while self._limited and now - self._limited[0] > window:
            self._limited.popleft()
        if len(self._limited) < BURST_429:
            return False
        if now - self._last_decrease < HOLD_S:
            return True
        current = self.rate
        if current is None:
            # Unpaced so far: start from what the server granted while we pushed it (later on,
            # successes measure how much work is left as much as the server's capacity).
            granted = self._granted(now)
            if granted <= 0:
                return True  # nothing granted yet to measure: the jobs wait their Retry-After
            current = granted
        lowered = max(MIN_RATE, current * DECREASE)
        self._last_decrease = now
        self._limited.clear()
        self.decreases += 1
        if self._bucket is None:
            self._bucket = TokenBucket(lowered, 1.0, clock=self._clock)
        else:
            self._bucket.set_rate(lowered)
        return True


class ModelLimiter:
    """Everything that paces one model's calls: a concurrency slot, then `pace`, then the call.

    The concurrency slot is taken first and the rate buckets second, so a request never consumes
    a rate slot while it still queues for a connection. Request pacing uses a bucket of one
    request (smooth, no bursts): providers and proxies enforce limits over sliding windows that a
    burst would overrun; its rate adapts to 429s (`AdaptiveRate`); a burst of 429s holds
    every request not yet sent until the server's Retry-After (`on_rate_limited`), and so does
    an outage, for a growing time (`on_transient_failure`); holds end `max_hold_s` after the
    first one when no answer comes between (`_hold`). The token bucket holds ten seconds' worth
    of tokens.
    """

    def __init__(
        self,
        limits: RateLimits,
        *,
        concurrency: int | None = None,
        max_hold_s: float = 600.0,
        outage_base_s: float = 0.5,
        outage_cap_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.concurrency = concurrency or limits.max_concurrency
        self._slots = asyncio.Semaphore(self.concurrency)
        self._clock = clock
        #: No request starts before this moment (`clock`): a burst of 429s said when to
        #: return, or the server fails every request (an outage).
        self._hold_until = float("-inf")
        self.max_hold_s = max_hold_s
        self.outage_base_s = outage_base_s
        self.outage_cap_s = outage_cap_s
        self._failures_in_a_row = 0
        #: Holds of the outage so far (the next one is `outage_base_s * 2**level`), and when
        #: the latest ends.
        self._outage_level = 0
        self._outage_until = float("-inf")
        #: When the first hold since the latest answer began: holds (of 429 storms and
        #: outages alike) end `max_hold_s` after it, until an answer comes.
        self._held_since: float | None = None
        #: Outages met (each ended by an answer).
        self.outages = 0
        rpm = limits.requests_per_minute
        self.requests = AdaptiveRate(rpm / 60.0 if rpm else None)
        self.tokens = (
            TokenBucket(limits.tokens_per_minute / 60.0, limits.tokens_per_minute / 6.0)
            if limits.tokens_per_minute
            else None
        )

    @asynccontextmanager
    async def concurrency_slot(self) -> AsyncIterator[None]:
        async with self._slots:
            yield

    def on_rate_limited(self, retry_after_s: float | None) -> None:
        """A request answered 429, told to come back after `retry_after_s` (None: not told).
        A lone 429 makes only its own job wait; one of a burst lowers the rate and holds every
        request not yet sent until the moment the server named (at most `max_hold_s` on): a
        storm of 429s is not met with a request from every job waiting for a slot, each
        refused in turn (refused requests count against a provider's per-minute limit). The
        holds end `max_hold_s` after the first one when no answer comes between (`_hold`)."""
        if not self.requests.on_rate_limited() or retry_after_s is None or retry_after_s <= 0:
            return
        self._hold(self._clock() + min(retry_after_s, self.max_hold_s))

    def on_transient_failure(self) -> None:
        """A request failed in a way worth retrying (not a 429: a 5xx, a timeout, a dropped
        connection, a broken body). `OUTAGE_FAILURES` of them in a row with no success between
        make an outage: every request not yet sent is held, `outage_base_s` the first time and
        twice as long after each hold whose requests failed again (at most `outage_cap_s`, as
        a job's own backoff), so that the jobs waiting for a slot do not each spend their
        retries against a server that is down and end as error rows; the requests sent when a
        hold ends test whether it is back. Failures during a hold (of requests sent before it)
        do not lengthen it. The holds end `max_hold_s` after the first one when no answer
        comes between (`_hold`)."""
        self._failures_in_a_row += 1
        now = self._clock()
        if self._failures_in_a_row < OUTAGE_FAILURES or now < self._outage_until:
            return
        if self._outage_level == 0:
            self.outages += 1
        wait = min(self.outage_cap_s, self.outage_base_s * 2.0 ** min(self._outage_level, 30))
        self._outage_level += 1
        self._outage_until = self._hold(now + wait)

    def _hold(self, until: float) -> float:
        """Hold the requests not yet sent until `until`, but no later than `max_hold_s` after
        the first hold since the latest answer (as long as the longest Retry-After honoured).
        A server that never answers again (an outage that never ends, a 429 storm that never
        does) then fails the jobs' retries at their own pace, as without the holds; held on,
        each hold let a few requests through, and every job's retries were spent a handful
        at a time, a hold apart: hours for a study's jobs in an outage, days in a storm.
        Returns the end of this hold."""
        now = self._clock()
        if self._held_since is None:
            self._held_since = now
        until = min(until, self._held_since + self.max_hold_s)
        self._hold_until = max(self._hold_until, until)
        return until

    def on_success(self) -> None:
        """A request answered: no outage; the request rate may rise (`AdaptiveRate`)."""
        self._failures_in_a_row = 0
        self._outage_level = 0
        self._held_since = None
        self.requests.on_success()

    def held_s(self) -> float:
        """Seconds until requests may start again (0: no hold)."""
        return max(0.0, self._hold_until - self._clock())

    async def pace(self, estimated_tokens: int) -> None:
        """Wait out a hold (a burst of 429s, an outage), then for the rate buckets (call
        inside `concurrency_slot`)."""
        while (left := self.held_s()) > 0:
            await asyncio.sleep(left)
        await self.requests.acquire()
        if self.tokens is not None:
            await self.tokens.acquire(float(estimated_tokens))

    def correct_tokens(self, estimated: int, actual: int) -> None:
        if self.tokens is not None:
            self.tokens.adjust(float(actual - estimated))
