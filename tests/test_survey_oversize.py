"""The reading of a survey form over the body limit (`poemetric.survey.oversize`): split into
chunks anywhere (inside a field name, an escape, a UTF-8 sequence), the fields come out as sent,
each value cut at the limit to its whole characters, the cut ones named with their size."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from hypothesis import given
from hypothesis import strategies as st

from poemetric.survey.oversize import FieldCutter

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
