"""The reading of a survey form over the body limit (`poemetric.survey.oversize`): split into
chunks anywhere (inside a field name, an escape, a UTF-8 sequence), the fields come out as sent,
each value cut at the limit to its whole characters, the cut ones named with their size."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import parse_qsl, urlencode

from hypothesis import given
from hypothesis import strategies as st

from poemetric.survey.guard import MAX_BODY_BYTES, Guard
from poemetric.survey.oversize import FORM_TYPE, HARD_FACTOR, FieldCutter

FIELDS = st.lists(
    st.tuples(st.sampled_from(["csrf", "form", "comment_overall_quality", "a b"]), st.text()),
    max_size=6,
    unique_by=lambda field: field[0],
)


@given(FIELDS, st.lists(st.integers(1, 50), min_size=1), st.integers(1, 120))
def test_chunks_anywhere_give_the_fields_sent_cut_to_whole_characters(
    fields: list[tuple[str, str]], sizes: list[int], keep: int
) -> None:
    body = urlencode(fields).encode()
    cutter = FieldCutter(keep, 10 * keep)
    start = 0
    for size in sizes * (len(body) // min(sizes) + 1):
        cutter.feed(body[start : start + size])
        start += size
    cutter.close()
    kept, cut = cutter.body()
    got = parse_qsl(kept.decode(), keep_blank_values=True, strict_parsing=False)
    assert [name for name, _ in got] == [name for name, _ in fields]
    for (name, value), (_, sent) in zip(got, fields, strict=True):
        encoded = len(urlencode({name: sent})) - len(urlencode({name: ""}))
        if encoded > keep:
            assert cut[name] == encoded and sent.startswith(value), (value, sent)
        else:
            assert name not in cut and value == sent


def test_a_form_of_empty_fields_is_read_through_at_once() -> None:
    """A form over the body limit is read through (up to 128 times it) instead of refused: a body
    of separators only ('&&&...', 32 MiB) was split field by field in Python, which held the
    server's one event loop (every rater's page) for some 20 seconds per such request. Past the
    fields a page can send, the rest is counted, not split. The real middleware, a whole body."""
    received: list[bytes] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        received.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    chunk, chunks = b"&" * 65536, (MAX_BODY_BYTES * HARD_FACTOR) // 65536 - 1  # within it
    messages = [{"type": "http.request", "body": b"csrf=x&", "more_body": True}]
    messages += [{"type": "http.request", "body": chunk, "more_body": True}] * chunks
    messages[-1] = {**messages[-1], "more_body": False}
    length = sum(len(m["body"]) for m in messages)
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/r/token/1",
        "headers": [
            (b"content-type", FORM_TYPE.encode()),
            (b"content-length", str(length).encode()),
        ],
    }
    feed = iter(messages)

    async def receive() -> dict[str, Any]:
        return next(feed)

    async def send(message: dict[str, Any]) -> None:
        pass

    started = time.monotonic()
    asyncio.run(Guard(app)(scope, receive, send))
    assert time.monotonic() - started < 3, "the body was split field by field"
    assert received == [b"csrf=x"]
