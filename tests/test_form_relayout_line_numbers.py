"""Every line number a user sees names the poem as given, also where the checker re-laid it out.

A ballad printed in long lines is read split at the caesura; its findings' texts and the
summary named the half-lines ("line 16" of an 8-line poem). Line numbers count the poem's verse
lines: a title, a section number or an LLM answer's wrapper around the poem is not counted.
"""

from __future__ import annotations

import re

from poemetric.form.checker import check_poem
from poemetric.form.relayout import LineOrigins

# Written for these tests: a ballad in long lines, each two ballad lines printed as one.
LONG_LINE_BALLAD = """The miller walked along the lane, beneath the morning sky,
He whistled to his yellow dog, and watched the stream run by;
The water turned the wooden wheel, that ground the corn all day,
And all the village came to buy, and carried flour away.

When winter came the snow lay deep, upon the roof and hill,
The wheel stood silent in the cold, and every stone was lead;
He sat beside his little fire, and counted every coin,
And waited for the spring to come, and set the stream to run."""
LONG_LAST_HALF = LONG_LINE_BALLAD.replace(
    "set the stream to run.", "set the great grey stream to running fast once more."
)
POEM_LINES = 8


def _numbers(text: str) -> list[int]:
    """Every line number `text` names ("line 3", "lines 2 and 4")."""
    pairs = re.findall(r"\blines? (\d+)(?: and (\d+))?", text)
    return [int(number) for pair in pairs for number in pair if number]


def test_a_long_line_ballads_findings_name_its_own_lines() -> None:
    result = check_poem(LONG_LINE_BALLAD, "ballad", "iambic tetrameter", "ABCB")
    assert "layout" in result.facts  # read split at the caesura
    found = [(issue.lines, issue.detail) for issue in result.explanation]
    assert (
        [5, 6],
        "the second half of line 5 and the second half of line 6 should rhyme (B) but "
        "'hill' / 'lead' do not",
    ) in found
    first_metre = next(detail for lines, detail in found if lines == [1])
    assert first_metre.startswith("the second half of line 1 does not scan as iambic tetrameter")
    for text in (result.summary, *(detail for _, detail in found)):
        assert all(n <= POEM_LINES for n in _numbers(text)), text


def test_the_summarys_lead_names_the_poems_line() -> None:
    result = check_poem(LONG_LAST_HALF, "ballad", "long meter", "ABCB", threshold=0.8)
    assert result.meter_score is not None and result.meter_score < 0.8
    # The worst line is the last half-line (about 6 beats for 4), the summary's lead.
    assert "meter: the second half of line 8 does not read with 4 beats (about 6)" in (
        result.summary
    )
    assert "line 16" not in result.summary


def test_a_ballad_read_as_written_keeps_its_numbers() -> None:
    short_lines = "\n".join(
        half.strip()
        for line in LONG_LINE_BALLAD.splitlines()
        for half in (line.split(", ", 1) if line else [""])
    )
    result = check_poem(short_lines, "ballad", "iambic tetrameter", "ABCB")
    assert "layout" not in result.facts
    assert any(
        issue.lines == [10, 12] and issue.detail.startswith("lines 10 and 12 should rhyme")
        for issue in result.explanation
    )


def test_line_origins_name_whole_lines_halves_and_pairs() -> None:
    origins = LineOrigins((1, 1, 2, 3, 3))
    assert origins.detail("line 3 does not scan") == "line 2 does not scan"
    assert origins.detail("line 5 is short") == "the second half of line 3 is short"
    assert origins.detail("lines 1 and 2 should rhyme") == "the two halves of line 1 should rhyme"
    assert origins.detail("lines 2 and 4 should rhyme") == (
        "the second half of line 1 and the first half of line 3 should rhyme"
    )
    assert origins.detail("line 4 (C) rhymes with line 3 (A)") == (
        "the first half of line 3 (C) rhymes with line 2 (A)"
    )
    assert origins.detail("line 9 is past the text") == "line 9 is past the text"
    assert LineOrigins((1, 1, 1)).name(2) == "part 2 of line 1"
    assert LineOrigins((1, 2, 3)).detail("lines 1 and 3 should rhyme") == (
        "lines 1 and 3 should rhyme"
    )


UNRHYMED_LIMERICK = """A baker who lived by the quay
Baked loaves that were heavy as tea;
He kneaded the dough,
He was terribly slow,
And the gulls grew fat on the shore."""


def test_line_numbers_count_verse_lines_not_a_title_or_section_number() -> None:
    plain = check_poem(UNRHYMED_LIMERICK, "limerick")
    dressed = check_poem("The Baker\n\nI.\n" + UNRHYMED_LIMERICK, "limerick")
    wanted = "lines 2 and 5 should rhyme (A) but 'tea' / 'shore' do not"
    for result in (plain, dressed):
        assert any(i.lines == [2, 5] and i.detail == wanted for i in result.explanation)
    assert "ignored 1 section-number line" in [i.detail for i in dressed.explanation]
