"""When a provider's rate limits refill, from its reset headers: the wait for a 429 that sent
no usable Retry-After (`remote_errors.status_error`; the runner caps it as it caps Retry-After).

Only a 429 reads them: they describe the quota, and any other status (Anthropic's 529
"overloaded" included) was not refused by the quota, so it keeps its exponential backoff.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime

#: OpenAI's (and OpenAI-compatible servers': vLLM, Together, Groq) as durations ("1s", "6m0s",
#: "20ms"), Anthropic's as RFC 3339 timestamps.
RATE_LIMIT_RESET_HEADERS = (
    "x-ratelimit-reset-requests",
    "x-ratelimit-reset-tokens",
    "x-ratelimit-reset-tokens_usage_based",
    "anthropic-ratelimit-requests-reset",
    "anthropic-ratelimit-tokens-reset",
    "anthropic-ratelimit-input-tokens-reset",
    "anthropic-ratelimit-output-tokens-reset",
)
#: Anthropic's unified limits (usage windows of hours or days): when the window that limits
#: the account reopens, as epoch seconds or an RFC 3339 timestamp. Not read while the unified
#: status says the window still allows requests: the 429 is then some other limit's.
UNIFIED_RESET = "anthropic-ratelimit-unified-reset"
UNIFIED_STATUS = "anthropic-ratelimit-unified-status"
_UNIFIED_ALLOWED = ("allowed", "allowed_warning")

_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
_NUMBER = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_UNIT = r"(?:ns|us|µs|μs|ms|s|m|h)"  # "ms" before "m"; µ (micro sign) and μ (Greek mu)
_DURATION = re.compile(rf"(?:{_NUMBER}{_UNIT})+")
_DURATION_PART = re.compile(rf"({_NUMBER})({_UNIT})")


def parse_duration(text: str) -> float | None:
    """Seconds in a Go-style duration ("1s", "6m0s", "20ms", "1m30.5s") or a bare number of
    seconds; None for anything else (empty, negative, unknown unit, not finite)."""
    value = text.strip()
    if re.fullmatch(_NUMBER, value):
        seconds = float(value)
    elif _DURATION.fullmatch(value):
        parts = _DURATION_PART.findall(value)
        seconds = sum(float(n) * _UNIT_SECONDS[u.replace("μ", "µ")] for n, u in parts)
    else:
        return None
    return seconds if math.isfinite(seconds) else None


def rate_limit_reset_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds until the provider's rate limits refill: the longest of its reset headers, as
    the 429 may be any one limit's. None when no header holds a readable moment still to come."""
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    waits = [_reset_in(lowered[name]) for name in RATE_LIMIT_RESET_HEADERS if name in lowered]
    unified = lowered.get(UNIFIED_RESET)
    if (
        unified is not None
        and lowered.get(UNIFIED_STATUS, "").strip().lower() not in _UNIFIED_ALLOWED
    ):
        waits.append(_moment_in(unified))
    return max((wait for wait in waits if wait is not None and wait > 0), default=None)


def _reset_in(value: str) -> float | None:
    """Seconds until a reset header's moment: a duration, or an RFC 3339 timestamp."""
    seconds = parse_duration(value)
    return seconds if seconds is not None else _timestamp_in(value)


def _moment_in(value: str) -> float | None:
    """Seconds until a moment given as epoch seconds or an RFC 3339 timestamp."""
    text = value.strip()
    if re.fullmatch(_NUMBER, text):
        epoch = float(text)
        return epoch - time.time() if math.isfinite(epoch) else None
    return _timestamp_in(text)


def _timestamp_in(value: str) -> float | None:
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    if moment.tzinfo is None:  # RFC 3339 always has an offset; read a bare one as UTC
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp() - time.time()
