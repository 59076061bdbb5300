"""Helpers shared by the remote API adapters: API keys, retry hints, status classification.

Kept out of `base.py` because only the SDK-backed adapters need them.
"""

from __future__ import annotations

import email.utils
import errno
import importlib
import importlib.util
import json
import os
import re
import threading
import time
from abc import abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar
from urllib.parse import urlsplit

from pydantic import ValidationError

from poemetric.providers.base import ModelSpec, Provider, ProviderError
from poemetric.providers.context_errors import length_hint
from poemetric.providers.quota_errors import QUOTA_HINT, used_up_credit
from poemetric.providers.rate_limit_reset import rate_limit_reset_seconds
from poemetric.redaction import (
    Redactor,
    remember_secret,
    remember_url_credentials,
    url_without_credentials,
)

ClientT = TypeVar("ClientT")

#: HTTP statuses worth retrying: timeouts, conflicts, rate limits, server errors, overload (529).
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
_RAW_ERROR_CHARS = 2000


#: The SDK's key for `api_key_env: false` (no key): without one it would not start, or would
#: send OPENAI_API_KEY from the environment to that server. Not a secret.
NO_KEY = "poemetric-no-key"


def key_variables(spec: ModelSpec) -> list[str]:
    """The environment variables a model's API key is read from, in order."""
    if spec.api_key_env is False:
        return []
    if spec.api_key_env:
        return [spec.api_key_env]
    from poemetric.providers.registry import provider_class

    return list(getattr(provider_class(spec.provider), "default_key_envs", ()))


def resolve_api_key(
    spec: ModelSpec, default_envs: Sequence[str], *, accepts_no_key: bool = False
) -> str:
    """The API key from the environment variable the spec names (or the provider's defaults).

    Raises a non-retryable `ProviderError` naming the variable(s) when none is set (or saying
    that one is set but empty), and for `api_key_env: false`, which a provider that accepts no
    key never asks about. The key itself never appears in any message.
    """
    needs = f"model {spec.name!r} (provider {spec.provider!r}) needs an API key"
    if spec.api_key_env is False:
        raise ProviderError(
            f"{needs}: its file says `api_key_env: false` (no key), which only a server that "
            "checks none takes (provider openai-compatible): name the variable holding the key",
            retryable=False,
        )
    names = [spec.api_key_env] if spec.api_key_env else list(default_envs)
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            remember_secret(value)  # kept out of everything this process stores or prints
            return value
    no_key = " (`api_key_env: false` for a server that checks no key)" if accepts_no_key else ""
    if not names:  # it said "set the environment variable (no variable configured: ...)"
        raise ProviderError(
            f"{needs}, and its file names no variable for it: add `api_key_env: VARIABLE` to "
            f"the model file and set that variable{no_key}",
            retryable=False,
        )
    empty, local = [name for name in names if name in os.environ], is_local(spec.base_url)
    if empty:  # it said "set the environment variable X" with X set (`export X=`)
        hint = no_key or " (any non-empty value, for a server on this machine that checks no key)"
        raise ProviderError(
            f"{needs}: the environment variable {' and '.join(empty)} "
            f"{'is' if len(empty) == 1 else 'are'} set but empty: put the key in "
            f"{' or '.join(names)}{hint if local else ''}",
            retryable=False,
        )
    raise ProviderError(
        f"{needs}: set the environment variable {' or '.join(names)}{no_key if local else ''}",
        retryable=False,
    )


def sdk_missing(spec: ModelSpec, module: str, package: str) -> ProviderError | None:
    """The error for a provider whose SDK `module` is not installed, or None; found without
    importing it (a dry run checks every model, and the SDKs take seconds to import)."""
    try:
        found = importlib.util.find_spec(module) is not None
    except ImportError:  # the parent package (`google` of `google.genai`) is missing
        found = False
    if found:
        return None
    return _sdk_error(spec, module, package, "is not installed")


def import_sdk(spec: ModelSpec, module: str, package: str) -> ModuleType:
    """The SDK `module`, imported when a client is built (never when the roster is loaded: the
    adapter modules import no SDK at module level); a non-retryable `ProviderError` naming the
    package to install when it cannot be imported."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise _sdk_error(spec, module, package, f"cannot be imported ({error})") from error


#: Held while a worker thread imports an SDK (`SDKProvider.warm_up`): two SDKs imported at
#: once in two threads could meet their shared dependencies (httpx, pydantic) half-imported.
_importing = threading.Lock()


def _import_alone(spec: ModelSpec, module: str, package: str) -> None:
    with _importing:
        import_sdk(spec, module, package)


def _sdk_error(spec: ModelSpec, module: str, package: str, what: str) -> ProviderError:
    return ProviderError(
        f"model {spec.name!r} uses provider {spec.provider!r}, but its SDK (Python module "
        f"{module!r}) {what}: pip install '{package}' (a dependency of poemetric: reinstalling "
        "poemetric installs it)",
        retryable=False,
    )


class SDKProvider(Provider, Generic[ClientT]):
    """Base of the adapters backed by an official SDK client.

    The client is created by `warm_up` (before the runner's first timed call) or on first use,
    from the key in the environment, so a missing key surfaces as a `ProviderError` from a call
    rather than when the roster is loaded; the key is kept only to scrub it from error messages
    and raw responses. The SDK (`sdk_module`) is imported then too, not with the adapter's
    module: listing models, showing one and a dry run import none (they read only the class
    attributes).
    """

    default_key_envs: ClassVar[tuple[str, ...]] = ()
    #: The API's address when the model file sets no `base_url` (named in connection errors).
    default_base_url: ClassVar[str] = ""
    #: The SDK's module, and the package (with the version range) that installs it.
    sdk_module: ClassVar[str] = ""
    sdk_package: ClassVar[str] = ""

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        remember_url_credentials(spec.base_url)  # an SDK's error may quote the URL it called
        self._client: ClientT | None = None
        self._key: str | None = None

    @abstractmethod
    def create_client(self, api_key: str) -> ClientT:
        """A client with the SDK's own retries off (the batch runner retries)."""

    @abstractmethod
    async def close_client(self, client: ClientT) -> None:
        """Close the client's connections."""

    @property
    def client(self) -> ClientT:
        if self._client is None:
            if self.sdk_module:  # a missing SDK is said as such, not as a bare ImportError
                import_sdk(self.spec, self.sdk_module, self.sdk_package)
            return self._build_client()
        return self._client

    def _build_client(self) -> ClientT:
        self._key = self.api_key()
        self._client = client = self.create_client(self._key or NO_KEY)
        return client

    async def warm_up(self) -> None:
        """Import the SDK and build the client before the first timed call: on a loaded machine
        the import alone takes seconds, which timed out the first calls (`limits.timeout_s`).
        The import runs in a worker thread, one SDK at a time, so that the event loop goes on
        serving the other models' calls (whose timeouts it would otherwise run out)."""
        if self._client is not None:
            return
        if self.sdk_module:
            import asyncio  # not at module level: listing models imports no asyncio

            await asyncio.to_thread(_import_alone, self.spec, self.sdk_module, self.sdk_package)
        if self._client is None:
            self._build_client()  # on the event loop's thread, as a call would

    def api_key(self) -> str | None:
        """The model's key; None for `api_key_env: false` where the provider accepts no key."""
        if self.spec.api_key_env is False and self.accepts_no_key:
            return None
        return resolve_api_key(self.spec, self.default_key_envs, accepts_no_key=self.accepts_no_key)

    @property
    def endpoint(self) -> str:
        """Where requests go: the model file's `base_url` or the API's default address."""
        return self.spec.base_url or self.default_base_url

    def preflight(self) -> None:
        if self.sdk_module:
            missing = sdk_missing(self.spec, self.sdk_module, self.sdk_package)
            if missing is not None:
                raise missing
        self.api_key()

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await self.close_client(client)

    def __repr__(self) -> str:
        url = self.spec.base_url
        shown = url_without_credentials(url) if url else url
        return f"{type(self).__name__}(model={self.spec.model!r}, base_url={shown!r})"


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
