"""A 429 that no wait ends: the account's credits or spending limit are used up.

OpenAI (and OpenAI-compatible services that copy its errors) answer a request of an account
without credits, or past its monthly spending or usage limit, with HTTP 429, the status of a
rate limit, but with the error type `insufficient_quota` (and a code saying which limit:
`credit_balance_exhausted`, `organization_spend_limit_exceeded`, ...). Only someone adding
credits or raising the limit ends it, so retrying it is waste: every other request of the
account is answered the same. `remote_common.status_error` makes it a fatal error, which stops
the model with its jobs left for the next run.
"""

from __future__ import annotations

from typing import Any

#: The error types and codes of a used-up quota (OpenAI's error codes guide).
QUOTA_CODES = frozenset(
    {
        "insufficient_quota",
        "credit_balance_exhausted",
        "organization_spend_limit_exceeded",
        "project_spend_limit_exceeded",
        "organization_usage_limit_exceeded",
    }
)
QUOTA_HINT = (
    " (the account's credits or spending limit are used up, which no wait ends: add credits "
    "or raise the limit in the provider's billing settings, then run the command again; this "
    "model's jobs are left for that run)"
)


def used_up_quota(body: Any) -> str | None:
    """The type or code that says a 429's error body is a used-up quota, or None.

    `body` is the SDK's error body: OpenAI's `error` object (`{"type": ..., "code": ...}`),
    or the whole answer (`{"error": {...}}`)."""
    error = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    for field in ("code", "type"):
        value = error.get(field)
        if isinstance(value, str) and value in QUOTA_CODES:
            return value
    return None
