"""Fault injection for the local wire-protocol servers: scripted or seeded-random failures.

A `FaultPlan` decides, for every generation request a server receives, whether to answer normally
or with a `Fault`. Scripted faults are consumed first, in order (`None` in the script means "answer
normally"); after the script, each entry of `random_faults` fires with its probability, drawn from a
`random.Random(seed)` so that a run is reproducible. Server-side rate limiting (requests per second
beyond which the server answers 429) is a separate `RateLimiter`.
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from poemetric.testing.exchange import retry_headers

FaultKind = Literal["status", "slow", "truncated", "invalid_json", "disconnect"]


@dataclass(frozen=True)
class Fault:
    """One injected failure.

    kinds:
      - ``status``: an HTTP error (`status`, with `Retry-After` / `retry-after-ms` when
        `retry_after_s` is set, and any extra `headers`) and the provider's JSON error body
        (its error type or code `code` when set: OpenAI's `insufficient_quota`; in Gemini's,
        a `google.rpc.QuotaFailure` naming `quota_id` when set);
      - ``slow``: wait `delay_s` before answering normally (beyond a client's timeout);
      - ``truncated``: a 200 whose JSON body is cut in half (framing intact, JSON invalid);
      - ``invalid_json``: a 200 whose body is not JSON at all;
      - ``disconnect``: announce the full Content-Length, send half the body, close the socket.
    """

    kind: FaultKind
    status: int = 500
    retry_after_s: float | None = None
    delay_s: float = 0.0
    message: str = "injected fault"
    #: Extra response headers of a ``status`` fault (a provider's rate-limit reset headers).
    headers: tuple[tuple[str, str], ...] = ()
    #: The error body's type or code of a ``status`` fault (None: the dialect's for the status).
    code: str | None = None
    #: The quota a Gemini ``status`` fault says is exceeded (its `QuotaFailure` violation), and
    #: that quota's limit.
    quota_id: str | None = None
    quota_value: str = "20"

    @classmethod
    def rate_limited(
        cls, retry_after_s: float | None = 1.0, headers: Mapping[str, str] | None = None
    ) -> Fault:
        return cls(
            "status",
            status=429,
            retry_after_s=retry_after_s,
            message="rate limit exceeded",
            headers=tuple((headers or {}).items()),
        )

    def status_headers(self) -> dict[str, str]:
        """The headers of a ``status`` fault's answer."""
        retry = {} if self.retry_after_s is None else retry_headers(self.retry_after_s)
        return {**retry, **dict(self.headers)}

    @classmethod
    def quota_exceeded(cls, code: str = "insufficient_quota") -> Fault:
        """OpenAI's 429 for an account whose credits or spending limit are used up: a rate
        limit's status, but waiting does not end it."""
        return cls(
            "status",
            status=429,
            message="You exceeded your current quota, please check your plan and billing details.",
            code=code,
        )

    @classmethod
    def quota_failure(
        cls, quota_id: str, quota_value: str = "20", retry_after_s: float | None = 30.0
    ) -> Fault:
        """Gemini's 429 RESOURCE_EXHAUSTED naming the exceeded quota (a `QuotaFailure`
        violation) and when to retry (`RetryInfo`): a per-minute quota
        (`GenerateRequestsPerMinutePerProjectPerModel-FreeTier`) refills within the minute, a
        per-day one (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`) at midnight Pacific
        time, whatever the retry delay says."""
        return cls(
            "status",
            status=429,
            retry_after_s=retry_after_s,
            message="You exceeded your current quota, please check your plan and billing details.",
            quota_id=quota_id,
            quota_value=quota_value,
        )

    @classmethod
    def server_error(cls, status: int = 500) -> Fault:
        return cls("status", status=status, message=f"injected server error {status}")

    @classmethod
    def overloaded(cls) -> Fault:
        """Anthropic's 529 "overloaded_error"."""
        return cls("status", status=529, message="overloaded")

    @classmethod
    def client_error(cls, status: int = 400, message: str = "invalid request") -> Fault:
        return cls("status", status=status, message=message)

    @classmethod
    def slow(cls, delay_s: float) -> Fault:
        return cls("slow", delay_s=delay_s)

    @classmethod
    def truncated(cls) -> Fault:
        return cls("truncated")

    @classmethod
    def invalid_json(cls) -> Fault:
        return cls("invalid_json")

    @classmethod
    def disconnect(cls) -> Fault:
        return cls("disconnect")


@dataclass
class FaultPlan:
    """Which generation requests fail, and how. Thread-safe."""

    script: Sequence[Fault | None] = ()
    random_faults: Sequence[tuple[Fault, float]] = ()
    seed: int = 0
    _position: int = field(default=0, init=False, repr=False)
    _rng: random.Random = field(init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        total = sum(probability for _, probability in self.random_faults)
        if any(p < 0 for _, p in self.random_faults) or total > 1.0:
            raise ValueError("random fault probabilities must be >= 0 and sum to at most 1")
        self._rng = random.Random(self.seed)

    @classmethod
    def transient(cls, share: float, seed: int = 0, retry_after_s: float = 0.5) -> FaultPlan:
        """`share` of the requests failing transiently, in equal parts: 500, 503, 429 with
        Retry-After, and a 200 with a truncated body (what the benchmarks inject)."""
        each = share / 4
        faults = (
            Fault.server_error(500),
            Fault.server_error(503),
            Fault.rate_limited(retry_after_s),
            Fault.truncated(),
        )
        return cls(random_faults=[(fault, each) for fault in faults], seed=seed)

    def next_fault(self) -> Fault | None:
        with self._lock:
            if self._position < len(self.script):
                fault = self.script[self._position]
                self._position += 1
                return fault
            if not self.random_faults:
                return None
            draw = self._rng.random()
            cumulative = 0.0
            for fault, probability in self.random_faults:
                cumulative += probability
                if draw < cumulative:
                    return fault
            return None


class FaultWindow(FaultPlan):
    """Every generation request from `start_s` to `start_s + duration_s` seconds after the first
    one gets `fault` (an outage: `Fault.server_error(503)`); before and after the window, `then`
    decides (None: answer normally). Counting the requests a client sends during the window
    shows whether it backs off or keeps sending."""

    def __init__(
        self,
        fault: Fault,
        duration_s: float,
        *,
        start_s: float = 0.0,
        then: FaultPlan | None = None,
    ) -> None:
        super().__init__()
        self.fault = fault
        self.start_s = start_s
        self.end_s = start_s + duration_s
        self.then = then
        self.first_at: float | None = None

    def next_fault(self) -> Fault | None:
        now = time.monotonic()
        with self._lock:
            if self.first_at is None:
                self.first_at = now
            elapsed = now - self.first_at
        if self.start_s <= elapsed < self.end_s:
            return self.fault_within(self.end_s - elapsed)
        return None if self.then is None else self.then.next_fault()

    def fault_within(self, left_s: float) -> Fault:
        """The fault of a request `left_s` seconds before the window ends."""
        return self.fault


class RateLimitStorm(FaultWindow):
    """A 429 storm: every request of the window is answered 429, told to come back when the
    storm ends (Retry-After, retry-after-ms and OpenAI's x-ratelimit-reset-requests)."""

    def __init__(
        self, duration_s: float, *, start_s: float = 0.0, then: FaultPlan | None = None
    ) -> None:
        super().__init__(Fault.rate_limited(None), duration_s, start_s=start_s, then=then)

    def fault_within(self, left_s: float) -> Fault:
        reset = {"x-ratelimit-reset-requests": f"{left_s * 1000:.0f}ms"}
        return Fault.rate_limited(None, headers={**retry_headers(left_s), **reset})


class RateLimiter:
    """Sliding one-second window: more than `requests_per_second` requests in it → 429."""

    def __init__(self, requests_per_second: float) -> None:
        if requests_per_second <= 0:
            raise ValueError("requests_per_second must be positive")
        self.requests_per_second = requests_per_second
        self._accepted: deque[float] = deque()
        self._lock = threading.Lock()

    def admit(self) -> float | None:
        """None when the request may proceed, else the seconds until a slot frees up."""
        now = time.monotonic()
        with self._lock:
            while self._accepted and now - self._accepted[0] >= 1.0:
                self._accepted.popleft()
            if len(self._accepted) < self.requests_per_second:
                self._accepted.append(now)
                return None
            return max(0.001, 1.0 - (now - self._accepted[0]))
