"""Helpers shared by the remote API adapters: API keys, the SDK's import, and `SDKProvider`, the
base of the adapters backed by an official SDK. Their errors (retry hints, status
classification, transport errors, scrubbing) are `remote_errors`, imported from here as well
(third-party adapters import them from here).

Kept out of `base.py` because only the SDK-backed adapters need them.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import threading
import unicodedata
from abc import abstractmethod
from collections.abc import Sequence
from types import ModuleType
from typing import ClassVar, Generic, TypeVar
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from poemetric.providers.base import ModelSpec, Provider, ProviderError
from poemetric.providers.remote_errors import LOCAL_HOSTS as LOCAL_HOSTS
from poemetric.providers.remote_errors import RETRYABLE_STATUSES as RETRYABLE_STATUSES
from poemetric.providers.remote_errors import connection_refused as connection_refused
from poemetric.providers.remote_errors import is_local as is_local
from poemetric.providers.remote_errors import is_retryable_status as is_retryable_status
from poemetric.providers.remote_errors import malformed_error as malformed_error
from poemetric.providers.remote_errors import never_sent as never_sent
from poemetric.providers.remote_errors import retry_after_seconds as retry_after_seconds
from poemetric.providers.remote_errors import scrub as scrub
from poemetric.providers.remote_errors import scrub_raw as scrub_raw
from poemetric.providers.remote_errors import status_error as status_error
from poemetric.providers.remote_errors import translate_stainless_error as translate_stainless_error
from poemetric.providers.remote_errors import transport_error as transport_error
from poemetric.redaction import (
    remember_secret,
    remember_url_credentials,
    url_without_credentials,
)

ClientT = TypeVar("ClientT")


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
    where = f", {spec._key_asked_at}" if spec._key_asked_at else ""
    needs = f"model {spec.name!r} (provider {spec.provider!r}{where}) needs an API key"
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
            _check_sendable(needs, name, value)
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
        f"{needs}: set the environment variable {' or '.join(names)}{no_key if local else ''}"
        f"{_lookalike_hint(names)}",
        retryable=False,
    )


def _check_sendable(needs: str, name: str, key: str) -> None:
    """A non-retryable `ProviderError` when `key` holds a character an HTTP header cannot carry
    (a curly quote or a line break pasted with it): the SDK's failure read as a connection error
    retried by every run, or as a malformed response. Only the character is named."""
    for index, char in enumerate(key):
        if not " " <= char <= "~":
            what = f"{unicodedata.name(char, 'a control character')} U+{ord(char):04X}"
            raise ProviderError(
                f"{needs}: the environment variable {name} holds a character an HTTP header "
                f"cannot carry ({what}, character {index + 1} of {len(key)}), so no call "
                "could send it: set the variable again with the key alone, as plain text",
                retryable=False,
            )


def _lookalike_hint(names: Sequence[str]) -> str:
    """`; MY_ENDPOINT_KEY is set: ...` when a set variable's name is a near miss of `names` (a
    misspelt `api_key_env: MY_ENDPONT_KEY`, or one in lower case): "set the environment variable
    MY_ENDPONT_KEY" alone sent the user to export a second variable instead of fixing the file.
    Only the variable's name is shown, never its value."""
    candidates = {
        variable.casefold(): variable
        for variable, value in os.environ.items()
        if value.strip() and variable not in names
    }
    for name in names:
        close = difflib.get_close_matches(name.casefold(), list(candidates), n=1, cutoff=0.9)
        if close:
            found = candidates[close[0]]
            fix = f"write `api_key_env: {found}` in the model file"
            return f"; {found} is set: if it holds this key, {fix}"
    return ""


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


def split_base_url_query(base_url: str | None) -> tuple[str | None, dict[str, str] | None]:
    """`base_url` without its query, and the query as the Stainless SDKs' (openai, anthropic)
    `default_query` takes it (None where there is none). Left in `base_url`, the SDK would add its
    endpoint's path after the query (`/v1/?api-version=1chat/completions`): every call a 404."""
    if not base_url:
        return base_url, None
    parts = urlsplit(base_url)
    if not parts.query:
        return base_url, None
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit(parts._replace(query="")), query


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
