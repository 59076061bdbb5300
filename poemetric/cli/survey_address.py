"""The address in the links `survey serve` and `survey links` print.

`serve` prints links for the address it serves on (or --base-url) and remembers it in the run,
per survey; `links` prints the same links again unless told another address (--base-url,
--port). It printed http://127.0.0.1:8765 whatever `serve` had used, so links reprinted after
`serve --port 8799` pointed at nothing. A wildcard host (0.0.0.0, ::) is no address a rater can
open: the links use this machine's own address instead, and the warning says to pass
--base-url when raters reach it by another.
"""

from __future__ import annotations

import errno
import socket

from poemetric.cli.options import error_exit
from poemetric.store import RunStore

DEFAULT_PORT = 8765
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
#: Hosts that bind every interface: not an address to give anyone.
WILDCARDS = ("0.0.0.0", "::", "")
SERVE_WARNING = (
    "[yellow]warning:[/yellow] --host {host} makes the survey reachable from other machines "
    "over plain HTTP. Prefer an SSH tunnel or a TLS reverse proxy in front of 127.0.0.1 "
    "(docs/survey.md, 'Remote raters')."
)
GUESSED = (
    " The links below use {address}, this machine's address as far as it can tell: if raters "
    "reach it by another name or address, serve again with --base-url http://THAT-ADDRESS:{port} "
    "(or the proxy's https:// address)."
)
NAMED = (
    " The links below use {base}: if raters reach this machine by another name or address, "
    "serve again with --base-url giving it."
)


def in_url(host: str) -> str:
    """A host as a URL writes it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host


def machine_address(ipv6: bool) -> str:
    """This machine's address on its network: the source address of a route out (a UDP
    "connect" sends nothing), else its host name."""
    family, probe = (socket.AF_INET6, "2001:db8::1") if ipv6 else (socket.AF_INET, "192.0.2.1")
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.connect((probe, 9))
            address = str(sock.getsockname()[0])
    except OSError:  # no route out
        address = ""
    if not address or address in WILDCARDS or address in LOCAL_HOSTS:
        return socket.gethostname()
    return address


def served_base(host: str, port: int) -> tuple[str, str]:
    """The base URL of links to a survey served on host:port, and what the warning about a
    non-local host adds ("" for a local host)."""
    if host in WILDCARDS:
        address = in_url(machine_address(ipv6=host == "::"))
        return f"http://{address}:{port}", GUESSED.format(address=address, port=port)
    base = f"http://{in_url(host)}:{port}"
    return base, "" if host in LOCAL_HOSTS else NAMED.format(base=base)


def _key(survey: str) -> str:
    return f"survey_served_at:{survey}"


def remember(store: RunStore, survey: str, base: str) -> None:
    """Keep the address `serve` printed links for, for `links`."""
    store.set_meta(_key(survey), base)


def recalled(store: RunStore, survey: str) -> str | None:
    """The address `serve` last printed links for (None: never served)."""
    value = store.get_meta(_key(survey))
    return value if isinstance(value, str) else None


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound before any link is printed: a port in use printed every
    rater's link, then uvicorn's "ERROR: [Errno 98] ... address already in use" (exit 3).
    Bound as uvicorn binds it (IPv6 for a host with ':', SO_REUSEADDR)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        hint = " (another `survey serve` or program uses it: choose another --port)"
        reason = f"{exc.strerror or exc}{hint if exc.errno == errno.EADDRINUSE else ''}"
        raise error_exit(f"cannot serve on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock
