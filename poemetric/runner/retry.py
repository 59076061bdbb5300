"""Retry policy: exponential backoff with full jitter that honours the server's Retry-After."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` retries after the first attempt; delays from `delay`."""

    max_retries: int
    base_s: float = 1.0
    cap_s: float = 60.0
    #: Longest Retry-After the runner will honour; longer ones are capped to this.
    max_retry_after_s: float = 600.0

    def delay(self, retry: int, retry_after_s: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number `retry` (1 for the first retry).

        Full jitter (uniform between 0 and base * 2^(retry-1), capped) spreads retries of many
        concurrent requests. When the server sent Retry-After the wait is at least that long,
        plus a little jitter so that requests told the same moment do not all return at once.
        """
        ceiling = min(self.cap_s, self.base_s * 2 ** max(0, retry - 1))
        backoff = rng.uniform(0.0, ceiling)
        if retry_after_s is None or retry_after_s < 0:
            return backoff
        honoured = min(retry_after_s, self.max_retry_after_s)
        return honoured + rng.uniform(0.0, min(1.0, 0.1 * honoured + 0.05))
