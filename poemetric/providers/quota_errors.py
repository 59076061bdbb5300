"""A 429 that no wait ends: the account's credits or spending limit are used up.

OpenAI (and OpenAI-compatible services that copy its errors) answer a request of an account
without credits, or past its monthly spending or usage limit, with HTTP 429, the status of a
rate limit, but with the error type `insufficient_quota` (and a code saying which limit:
`credit_balance_exhausted`, `organization_spend_limit_exceeded`, ...). Only someone adding
credits or raising the limit ends it, so retrying it is waste: every other request of the
account is answered the same. `remote_errors.status_error` makes it a fatal error, which stops
the model with its jobs left for the next run. The same holds for a 402 Payment Required
(DeepSeek, OpenRouter) and Anthropic's 400 "credit balance is too low" (`used_up_credit`).

Gemini says which quota a 429 RESOURCE_EXHAUSTED is about in a `google.rpc.QuotaFailure`
detail (`violations[].quotaId`): a per-minute quota refills within the minute and is retried,
but a per-day one (`GenerateRequestsPerDayPerProjectPerModel-FreeTier`, a free tier's requests
per day) only at midnight Pacific time, and a quota of 0 (a tier without this model) never:
`used_up_gemini_quota` finds those, and `google_provider` makes them fatal too.
"""

from __future__ import annotations

import re
from typing import Any

#: Anthropic's answer to an account without credits: HTTP 400 `invalid_request_error`, "Your
#: credit balance is too low to access the Anthropic API" (the status of a malformed request).
_CREDIT_TOO_LOW = re.compile(r"credit balance is too low", re.IGNORECASE)


def used_up_credit(status: int, message: str, body: Any) -> bool:
    """Whether an error status says the account cannot pay, which no retry or wait ends:
    OpenAI's 429 `insufficient_quota` (`used_up_quota`), 402 Payment Required (DeepSeek's
    "Insufficient Balance", OpenRouter's credits) and Anthropic's 400 "credit balance is too
    low"."""
    if status == 402:
        return True
    if status == 429:
        return used_up_quota(body) is not None
    return status == 400 and _CREDIT_TOO_LOW.search(f"{message} {body}") is not None


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


#: The `@type` of the detail of a Google API error that names the exceeded quotas.
QUOTA_FAILURE_TYPE = "type.googleapis.com/google.rpc.QuotaFailure"


def used_up_gemini_quota(body: Any) -> str | None:
    """The hint for a Gemini 429 whose quota no short wait refills, or None.

    `body` is google-genai's error body (`{"error": {"details": [...]}}`, or its `error`
    object, or the list of details). A `QuotaFailure` violation whose `quotaId` names a per-day
    quota ("PerDay") is refilled only at midnight Pacific time; one whose `quotaValue` is "0"
    (the key's tier has no quota for the model) never. Other quotas (per minute) are None."""
    error = body.get("error", body) if isinstance(body, dict) else None
    details = error.get("details") if isinstance(error, dict) else body
    if not isinstance(details, list):
        return None
    violations = [
        violation
        for detail in details
        if isinstance(detail, dict) and detail.get("@type") == QUOTA_FAILURE_TYPE
        for violation in detail.get("violations") or []
        if isinstance(violation, dict)
    ]
    for violation in violations:
        quota_id = str(violation.get("quotaId") or "the quota")
        if str(violation.get("quotaValue", "")).strip() == "0":
            return (
                f" (quota {quota_id} is 0: the key's Google Cloud project has no quota for this "
                "model in its tier, which no wait ends: enable billing on the project or choose "
                "another model, then run the command again; this model's jobs are left for "
                "that run)"
            )
    for violation in violations:
        quota_id = str(violation.get("quotaId") or "")
        if "PerDay" in quota_id:
            return (
                f" (the daily quota {quota_id} is used up: it is reset at midnight Pacific "
                "time; run the command again after that, or enable billing on the key's Google "
                "Cloud project for a higher quota; this model's jobs are left for that run)"
            )
    return None
