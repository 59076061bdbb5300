"""What a model file's `base_url` must be for the SDKs to call it: an `http://` or `https://`
URL with a host, a port they can connect to, a login whose end can be told, a query key given
once. Each problem is refused when the file is read, with its file and line; a login in the URL
is never quoted."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import yaml

from poemetric.data.yaml_fields import line_of
from poemetric.redaction import has_unreadable_login, url_to_copy, url_without_credentials
from poemetric.roster.base import RosterFileError

_SCHEMES = ("http", "https")


def check_base_url(path: Path, base_url: str, node: yaml.Node | None) -> None:
    """A `RosterFileError` for a `base_url` the SDKs cannot call (module docstring)."""
    where = f"{path}:{line_of(node, ('base_url',))}: base_url"
    if has_unreadable_login(base_url):
        # Where the login ends cannot be told, so it would be shown (and sent) as part of the
        # host and path. Neither it nor the URL is quoted.
        raise RosterFileError(
            f"{where}: the login before '@' holds a '/', '?' or '#', which would end the host "
            "there; percent-encode them in the user name and password ('/' as %2F, '?' as %3F, "
            "'#' as %23: pa/ss as pa%2Fss)",
            "base_url: '/', '?' or '#' in the login (percent-encode: %2F, %3F, %23)",
        )
    parts = urlsplit(base_url)
    if "://" not in base_url:
        # `localhost:8000/v1`: the SDKs fail every call as a connection error, and without a
        # scheme a login in it could not be told from a host, so it could not be masked.
        to_copy, login_note = url_to_copy(f"http://{base_url.lstrip('/')}")
        raise RosterFileError(
            f"{where}: no http:// or https:// before the host; write base_url: {to_copy} "
            "(https:// for a server that takes TLS)" + (f"; {login_note}" if login_note else ""),
            "base_url: no http:// or https:// before the host",
        )
    if parts.scheme.lower() not in _SCHEMES:
        raise RosterFileError(
            f"{where}: {parts.scheme}:// is not a scheme the SDKs call: write http:// or https://",
            f"base_url: {parts.scheme}:// (write http:// or https://)",
        )
    port = _port_text(parts.netloc)
    if port and not (port.isdigit() and 1 <= int(port) <= 65535):
        raise RosterFileError(
            f"{where}: port {port!r} is not a port: it must be a number from 1 to 65535 "
            f"({url_without_credentials(base_url)})",
            f"base_url: port {port!r} (a number from 1 to 65535)",
        )
    if not parts.hostname:
        raise RosterFileError(
            f"{where}: no host after {parts.scheme}:// ({url_without_credentials(base_url)})",
            "base_url: no host",
        )
    keys = [key for key, _ in parse_qsl(parts.query, keep_blank_values=True)]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:  # the openai and anthropic SDKs take the query as a mapping: one value a key
        raise RosterFileError(
            f"{where}: the query gives {', '.join(repeated)} more than once; give each key once",
            f"base_url: query key {repeated[0]} given more than once",
        )


def _port_text(netloc: str) -> str:
    """What follows the host's ':' (`urlsplit().port` refuses a bad one with a message that
    quotes no line), "" where there is none; an IPv6 host's own ':' are inside its brackets."""
    host = netloc.rpartition("@")[2]
    return host.rpartition("]")[2].partition(":")[2]
