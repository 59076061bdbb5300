"""The errors of the remote API adapters, said the runner's way: retry hints (Retry-After, a
rate limit's reset), which HTTP statuses are worth retrying, a status, transport or malformed
answer as a `ProviderError` (a used-up quota fatal), whether a request was never sent, and
secrets scrubbed from messages and raw responses.
"""

from __future__ import annotations

import email.utils
import errno
import json
import re
import time
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from poemetric.providers.base import ProviderError
from poemetric.providers.context_errors import length_hint
from poemetric.providers.quota_errors import QUOTA_HINT, used_up_credit
from poemetric.providers.rate_limit_reset import rate_limit_reset_seconds
from poemetric.redaction import Redactor, url_without_credentials

#: HTTP statuses worth retrying: timeouts, conflicts, rate limits, server errors, overload (529).
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_RAW_ERROR_CHARS = 2000


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `Retry-After` (seconds or an HTTP date)."""
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    milliseconds = lowered.get("retry-after-ms")
    if milliseconds:
        try:
            return max(0.0, float(milliseconds) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # an HTTP date; a value that is neither (a proxy's "soon") is no hint, not a failure
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, parsed.timestamp() - time.time())


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUSES or status >= 500


def status_error(
    provider: str,
    status: int,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    body: Any = None,
    secret: str | None = None,
) -> ProviderError:
    """A `ProviderError` for an HTTP error status, with the retry hint when there is one
    (`Retry-After`; for a 429 without one, the provider's rate-limit reset headers).

    The SDKs' own "Error code: 401 - " prefix is dropped: the status is said once, as `HTTP 401`.
    """
    raw = None if body is None else scrub(_to_text(body), secret)[:_RAW_ERROR_CHARS]
    message = re.sub(rf"^\s*Error code: {status}\b(\s*-\s*)?", "", str(message)).strip()
    if status == 400:
        message += length_hint(f"{message} {raw or ''}")
    if used_up_credit(status, message, body):  # no wait ends it: stop the model
        return ProviderError(
            scrub(f"{provider}: HTTP {status}: {message}{QUOTA_HINT}", secret),
            retryable=False,
            status=status,
            raw=raw,
            fatal=True,
        )
    retry_after = retry_after_seconds(headers)
    if retry_after is None and status == 429:  # no usable Retry-After: when the limits refill
        retry_after = rate_limit_reset_seconds(headers)
    return ProviderError(
        scrub(f"{provider}: HTTP {status}" + (f": {message}" if message else ""), secret),
        retryable=is_retryable_status(status),
        status=status,
        retry_after_s=retry_after,
        raw=raw,
    )


LOCAL_HOSTS = frozenset({"localhost", "::1", "0.0.0.0"})


def is_local(url: str | None) -> bool:
    """True for an endpoint on this machine (127.x.x.x, localhost, ::1)."""
    host = urlsplit(url).hostname if url else None
    return bool(host) and (host in LOCAL_HOSTS or str(host).startswith("127."))


def _causes(error: BaseException) -> Iterator[BaseException]:
    """`error`, then the exception it was raised from (or during), and so on (no cycles)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def connection_refused(error: BaseException) -> bool:
    """True when the error (or one it was raised from) is a refused TCP connection."""
    return any(
        isinstance(cause, ConnectionRefusedError)
        or (isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED)
        or "connection refused" in str(cause).lower()
        for cause in _causes(error)
    )


def never_sent(error: BaseException) -> bool:
    """True when the request certainly did not reach the server: no connection was made
    (refused, unknown host, connect timeout, no free connection in the client's pool), as the
    error or one it was raised from says (httpx's, httpx2's or aiohttp's kinds of it). A
    timeout or a dropped connection after that may come after the server acted on the request."""
    import httpx

    kinds: tuple[type[BaseException], ...] = (
        ConnectionRefusedError,
        httpx.ConnectError,
        httpx.ConnectTimeout,
        httpx.PoolTimeout,
    )
    try:  # the SDKs' newer releases speak httpx2
        import httpx2

        kinds += (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout)
    except ImportError:  # pragma: no cover - depends on the installed SDKs
        pass
    try:  # google-genai speaks aiohttp where it is installed (`google_provider`)
        import aiohttp

        # No connection made: unknown host (`ClientConnectorDNSError`), refused, TLS handshake
        # failed (all `ClientConnectorError`), or the connect phase timed out.
        kinds += (aiohttp.ClientConnectorError,)
        if hasattr(aiohttp, "ConnectionTimeoutError"):  # aiohttp >= 3.10
            kinds += (aiohttp.ConnectionTimeoutError,)
    except ImportError:  # not installed: the SDKs speak httpx
        pass
    return any(isinstance(cause, kinds) for cause in _causes(error))


def transport_error(
    provider: str, error: BaseException, secret: str | None = None, endpoint: str | None = None
) -> ProviderError:
    """Timeouts and dropped connections, worth retrying; a refused connection to a local
    endpoint is not (nothing listens there: the server is not started), and stops the model.
    The endpoint is named without its user part (`url_without_credentials`)."""
    shown = url_without_credentials(endpoint) if endpoint else ""
    where = f" calling {shown}" if shown else ""
    if connection_refused(error) and is_local(endpoint):
        return ProviderError(
            scrub(
                f"{provider}: cannot connect to {shown} (connection refused): is the server "
                "running, and is base_url right?",
                secret,
            ),
            retryable=False,
            fatal=True,
        )
    kind = type(error).__name__
    return ProviderError(
        scrub(f"{provider}: {kind}: {error}{where} (timeout or connection failure)", secret),
        retryable=True,
    )


def malformed_error(
    provider: str, error: BaseException, secret: str | None = None
) -> ProviderError:
    """A 2xx answer whose body could not be parsed (truncated, not JSON, missing fields)."""
    return ProviderError(
        f"{provider}: malformed or truncated response body ({type(error).__name__}: "
        f"{scrub(str(error), secret)[:300]})",
        retryable=True,
    )


def translate_stainless_error(
    provider: str, error: BaseException, secret: str | None, sdk: Any, endpoint: str | None = None
) -> ProviderError:
    """SDK exception → `ProviderError` for the `openai` and `anthropic` SDKs.

    Both are generated by Stainless and share one exception hierarchy (`APIStatusError`,
    `APIConnectionError`, `APIResponseValidationError`); `sdk` is the imported SDK module.
    """
    if isinstance(error, ProviderError):
        return error
    if isinstance(error, sdk.APIStatusError):
        return status_error(
            provider,
            error.status_code,
            error.message,
            headers=error.response.headers,
            body=error.body,
            secret=secret,
        )
    if isinstance(error, sdk.APIConnectionError):
        return transport_error(provider, error, secret, endpoint)
    if isinstance(error, ValueError | ValidationError | sdk.APIResponseValidationError):
        return malformed_error(provider, error, secret)
    return ProviderError(f"{provider}: unexpected {type(error).__name__}", retryable=False)


def scrub(text: str, secret: str | None) -> str:
    """An error text without `secret` or any other known key (`poemetric.redaction`)."""
    return Redactor(values=[secret])(text)


def scrub_raw(raw: dict[str, Any], secret: str | None) -> dict[str, Any]:
    """A raw response without `secret` or any other known key; `raw` itself when it holds
    none (a belt-and-braces check: the runner redacts responses too)."""
    return Redactor(values=[secret]).response_data(raw)


def _to_text(body: Any) -> str:
    if isinstance(body, str | bytes):
        return body.decode(errors="replace") if isinstance(body, bytes) else body
    try:
        return json.dumps(body, default=str)
    except (TypeError, ValueError):
        return repr(body)
