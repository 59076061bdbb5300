"""Metres written as numbers: hymnals' syllables per line and beats per line."""

from __future__ import annotations

import pytest

from poemetric.form.checker import check_poem
from poemetric.form.meter_spec import parse_meter

# Our own common-measure quatrains (8.6.8.6), and the same words as one long-measure stanza fails.
COMMON = """The kettle sings upon the hob,
The cat is on the chair,
The clock goes on about its job
Of counting out the air.

The lamp is lit, the door is barred,
The wind is at the pane,
And somewhere out beyond the yard
The night comes on again.
"""


@pytest.mark.parametrize(
    ("written", "name", "beats", "feet"),
    [
        ("8.6.8.6", "common meter", (4, 3), None),
        ("8-6-8-6", "common meter", (4, 3), None),
        ("86 86", "common meter", (4, 3), None),
        ("C.M.", "common meter", (4, 3), None),
        ("iambic 8.6.8.6", "common meter", (4, 3), None),
        ("8.8.8.8", "long meter", (4,), 4),
        ("L.M.", "long meter", (4,), 4),
        ("6.6.8.6", "short meter", (3, 3, 4, 3), None),
        ("10.10.10.10", "iambic pentameter", None, 5),
        ("4-3-4-3", "4-3 beats", (4, 3), None),
        ("3-3-2-2-3", "limerick meter", (3, 3, 2, 2, 3), None),
        ("8.6.8.6.D", "common meter", (4, 3), None),  # D: the stanza doubled, same lines
        ("8.8.8.8 D", "long meter", (4,), 4),
        ("iambic 8.6.8.6 D", "common meter", (4, 3), None),
        ("trochaic 4-4-4-4", "trochaic tetrameter", None, 4),  # beats take any foot
    ],
)
def test_numbers_are_read(
    written: str, name: str, beats: tuple[int, ...] | None, feet: int | None
) -> None:
    spec = parse_meter(written)
    assert spec is not None
    assert (spec.name, spec.beat_pattern, spec.feet) == (name, beats, feet)


@pytest.mark.parametrize(
    "written", ["7.7.7.7", "8.7.8.7", "0-3", "trochaic 7.7.7.7", "dactylic 6", "trochaic 8.8"]
)
def test_numbers_it_cannot_read_are_an_error_not_no_metre(written: str) -> None:
    with pytest.raises(ValueError, match="unrecognised meter"):
        parse_meter(written)


def test_a_poem_is_scanned_against_a_metre_written_as_numbers() -> None:
    # The numbers were taken as no metre: the poem had no metre score whatever its lines.
    common = check_poem(COMMON, "ballad", "8.6.8.6", "ABAB")
    assert common.meter_score is not None and common.meter_score >= 0.9
    assert common.passed
    long_lines = check_poem(COMMON, "ballad", "10.10.10.10", "ABAB")
    assert long_lines.meter_score is not None and long_lines.meter_score < 0.5
    assert not long_lines.passed
    # Numbers it cannot read leave the metre unscored (form-2.10), saying what to write instead;
    # rhyme and form are checked.
    unreadable = check_poem(COMMON, "ballad", "7.7.7.7", "ABAB")
    assert unreadable.error is None and unreadable.meter_score is None
    assert "trochaic tetrameter" in unreadable.facts["meter request"]
    assert unreadable.rhyme_score is not None and unreadable.form_score is not None
