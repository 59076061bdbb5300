"""The survey app's guard (ASGI middleware): security headers on every response, and POST
bodies refused when too large, without a declared length, or sent from another site. A page's
form over the limit is read through with its long values cut (`oversize.py`): what the rater
typed is not lost with a bare 413. A form over even that, sent by a browser, gets a page
(`too_large`: `oversize.too_large_page`) saying nothing of it was saved, what was before is kept."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.responses import JSONResponse, Response

from poemetric.survey.oversize import FORM_TYPE, HARD_FACTOR, read_cut

#: Largest request body taken as it is (a page's three comments at the length limit fit, but
#: percent-encoded non-ASCII text may not: a larger form is read with long values cut).
MAX_BODY_BYTES = 256 * 1024
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
}

ASGIApp = Callable[[MutableMapping[str, Any], Any, Any], Awaitable[None]]
#: The page for a browser's form refused as too large: (scope, bytes sent, the limit).
TooLarge = Callable[[MutableMapping[str, Any], int, int], Response]


class Guard:
    """ASGI middleware: security headers on every response; POST bodies must declare a length
    within the limit and, when the browser sends an Origin, come from this site."""

    def __init__(
        self, app: ASGIApp, max_body: int = MAX_BODY_BYTES, too_large: TooLarge | None = None
    ) -> None:
        self.app, self.max_body, self.too_large = app, max_body, too_large

    async def __call__(self, scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(scope["method"], headers)

        async def send_with_headers(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                extra = [(k.encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        if refusal is not None:
            response: Response = JSONResponse({"error": refusal[1]}, status_code=refusal[0])
            if refusal[0] == 413 and self.too_large is not None and _browser_form(headers):
                # A page's form sent without the page's script (which keeps such a form from
                # being sent): the rater sees a page, not the bare JSON error.
                limit = self.max_body * HARD_FACTOR
                response = self.too_large(scope, int(headers["content-length"]), limit)
            await response(scope, receive, send_with_headers)
            return
        if int(headers.get("content-length") or 0) > self.max_body:  # a form: `_refusal`
            scope, receive = await read_cut(scope, receive, self.max_body)
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, method: str, headers: dict[str, str]) -> tuple[int, str] | None:
        if method not in ("GET", "HEAD", "POST"):
            return 405, "method not allowed"
        if method != "POST":
            return None
        length = headers.get("content-length")
        if length is None or not length.isdigit():
            return 411, "a request body needs a Content-Length"
        form = headers.get("content-type", "").split(";")[0].strip().lower() == FORM_TYPE
        limit = self.max_body * (HARD_FACTOR if form else 1)
        if int(length) > limit:
            return 413, f"request too large ({length} bytes, at most {limit})"
        origin = headers.get("origin")
        if origin not in (None, "null") and urlsplit(origin).netloc != headers.get("host"):
            return 403, "cross-site request refused"
        if headers.get("sec-fetch-site") == "cross-site":
            return 403, "cross-site request refused"
        return None


def _browser_form(headers: dict[str, str]) -> bool:
    """A form a browser sent by navigating (it accepts HTML; the page's script asks for JSON)."""
    form = headers.get("content-type", "").split(";")[0].strip().lower() == FORM_TYPE
    return form and "text/html" in headers.get("accept", "")
