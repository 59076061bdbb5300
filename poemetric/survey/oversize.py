"""A form sent larger than the body limit (`guard.MAX_BODY_BYTES`), read in bounded memory.

A page's "Save and next" without JavaScript (or with it: the button sends the form) carries
every comment typed: three comments within the 10,000-character limit can pass 256 KiB when
percent-encoded (a CJK character is 9 bytes, an emoji 12), and a comment pasted far over the
limit does too. Refused outright with a bare 413, the page was replaced and everything typed
on it lost. Such a form (urlencoded, up to `HARD_LIMIT`) is read through: each value is kept
up to the body limit (a comment cut so is far over the 10,000 characters, refused whole by the
page, which draws it again with its beginning and says what was too large; `CUT_SCOPE_KEY`
names it), the rest of the value dropped as it arrives. The app gets the fields kept as the
body, so the other answers are saved as usual. A form over even that (32 MiB) is refused unread;
sent by a browser, it gets a page saying so (`too_large_page`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, MutableMapping
from typing import Any
from urllib.parse import quote_plus, unquote_plus, unquote_to_bytes

from starlette.requests import Request
from starlette.responses import HTMLResponse

from poemetric.survey.instrument import Instrument
from poemetric.survey.render import render
from poemetric.survey.tasks import MAX_TEXT_CHARS

#: The scope key naming the fields cut: {field name: its size as sent, in bytes}.
CUT_SCOPE_KEY = "poemetric.cut_fields"
#: Largest form read through (larger: refused, 413): 128 x 256 KiB = 32 MiB.
HARD_FACTOR = 128
#: Fields kept at most (a page sends some 40; more and the app refuses the form, as it would).
MAX_FIELDS = 1000
FORM_TYPE = "application/x-www-form-urlencoded"


class FieldCutter:
    """An urlencoded body fed in chunks: each field's value kept up to `keep` bytes (as sent),
    at most `total` bytes in all, and the size of each cut value."""

    def __init__(self, keep: int, total: int) -> None:
        self.keep, self.room = keep, total
        self.fields: list[tuple[bytes, bytes, int]] = []  # (name, value kept, value's size)
        self._name, self._value, self._size, self._in_value = bytearray(), bytearray(), 0, False
        #: Fields ended so far, empty ones included: past MAX_FIELDS the rest of the body is
        #: dropped unread (split field by field, 32 MiB of '&' held the event loop for seconds).
        self._ended = 0

    def feed(self, chunk: bytes) -> None:
        start = 0
        while start <= len(chunk) and self._ended < MAX_FIELDS:
            amp = chunk.find(b"&", start)
            self._take(chunk[start : len(chunk) if amp < 0 else amp])
            if amp < 0:
                return
            self._finish()
            start = amp + 1

    def close(self) -> None:
        self._finish()

    def _take(self, piece: bytes) -> None:
        if not self._in_value:
            equals = piece.find(b"=")
            name = piece if equals < 0 else piece[:equals]
            self._name += name[: max(0, 1024 - len(self._name))]
            if equals < 0:
                return
            self._in_value, piece = True, piece[equals + 1 :]
        self._size += len(piece)
        room = max(0, min(self.keep - len(self._value), self.room))
        self._value += piece[:room]
        self.room -= min(room, len(piece))

    def _finish(self) -> None:
        self._ended += 1
        if (self._name or self._size) and len(self.fields) < MAX_FIELDS:
            self.fields.append((bytes(self._name), bytes(self._value), self._size))
        self._name, self._value, self._size, self._in_value = bytearray(), bytearray(), 0, False

    def body(self) -> tuple[bytes, dict[str, int]]:
        """The fields kept as an urlencoded body, and the cut ones by name with their size."""
        parts, cut = [], {}
        for name, value, size in self.fields:
            if size > len(value):
                cut[unquote_plus(name.decode("latin-1"))] = size
                value = _whole_characters(value)
            parts.append(name + b"=" + value)
        return b"&".join(parts), cut


def _whole_characters(value: bytes) -> bytes:
    """A value cut anywhere, re-encoded up to its last whole character (no half escape, no
    half UTF-8 sequence)."""
    end = value.rfind(b"%", max(0, len(value) - 2))
    raw = unquote_to_bytes((value if end < 0 else value[:end]).replace(b"+", b" "))
    text = raw.decode("utf-8", errors="ignore")
    return quote_plus(text).encode("ascii")


async def read_cut(
    scope: MutableMapping[str, Any], receive: Any, keep: int
) -> tuple[MutableMapping[str, Any], Any]:
    """The scope and `receive` of a form read through with its values cut to `keep` bytes."""
    cutter = FieldCutter(keep, 4 * keep)
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        cutter.feed(message.get("body", b""))
        if not message.get("more_body", False):
            break
    cutter.close()
    body, cut = cutter.body()
    headers: Iterable[tuple[bytes, bytes]] = scope["headers"]
    scope = {
        **scope,
        "headers": [
            *((k, v) for k, v in headers if k.lower() != b"content-length"),
            (b"content-length", str(len(body)).encode()),
        ],
        CUT_SCOPE_KEY: cut,
    }
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return await receive()  # after the body: a disconnect, as the server reports it
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return scope, replay


def cut_message(label: str, text: str, sent: int) -> str:
    """The error beside a comment too large to be sent whole (`sent` bytes): what the page
    keeps of it (`text`), and that it is far over the limit."""
    return (
        f"Question {label}: not saved, far over the limit of {MAX_TEXT_CHARS:,} characters "
        f"(it was {sent / 1024:,.0f} KB, too large to be sent whole): the box keeps its first "
        f"{len(text):,} characters, the rest is lost; shorten it and save again"
    )


def too_large_page(
    instrument: Instrument, scope: MutableMapping[str, Any], sent: int, limit: int
) -> HTMLResponse:
    """The page (413) for a form refused unread as over `limit` bytes (`guard.Guard`): nothing
    of it is stored, and what was saved before (other poems, and this poem's answers saved as
    given or by an earlier button) is untouched. Links back to the poem when it was a page's."""
    from poemetric.survey.web import root

    request = Request(scope)
    page = re.search(r"/r/[^/]+/([0-9]{1,9})$", request.url.path)  # a poem's number, as routed
    html = render(
        "too_large.html",
        instrument=instrument,
        root=root(request),
        sent=f"{math.ceil(sent / 2**20 * 10) / 10:,.1f} MB",  # over the limit, never 32.0
        limit=f"{limit / 2**20:,.0f} MB",
        max_text=f"{MAX_TEXT_CHARS:,}",
        position=int(page.group(1)) if page else None,
    )
    return HTMLResponse(html, status_code=413)
