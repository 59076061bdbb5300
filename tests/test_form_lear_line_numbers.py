"""Findings on a limerick in Lear's layout name the poem's own lines, not the split poem's."""

from __future__ import annotations

import re

from poemetric.form.checker import check_poem
from poemetric.form.special_forms import lear_detail

# Written for these tests: Lear's layout, the two short lines printed as line 3.
FIRST_LINES = """There once was a cook from the coast,
Who burned every morsel of toast;
"""
SHORT_LINES = "When they said it was black, she would send it right back,\n"
LONG_SHORT_LINES = (
    "When they said it was very much too black to be eaten, she would send it right back,\n"
)
LONG_LAST_LINE = (
    "And she served them, with a great deal of pride and a smile on her face, the roast."
)
UNRHYMED_LAST_LINE = "And then served them a badly burnt pie."


def _texts(text: str, form: str = "limerick") -> tuple[list[tuple[list[int], str]], str]:
    result = check_poem(text, form)
    assert result.error is None
    return [(issue.lines, issue.detail) for issue in result.explanation], result.summary


def test_a_metre_finding_on_the_last_line_names_line_4() -> None:
    found, summary = _texts(FIRST_LINES + LONG_SHORT_LINES + LONG_LAST_LINE)
    last = [detail for lines, detail in found if lines == [4]]
    assert len(last) == 1
    assert last[0].startswith("line 4 does not read with 3 beats")
    assert "meter: line 4 does not read" in summary
    for text in (*(detail for _, detail in found), summary):
        assert "line 5" not in text


def test_the_short_lines_are_named_as_the_halves_of_line_3() -> None:
    found, _summary = _texts(FIRST_LINES + LONG_SHORT_LINES + LONG_LAST_LINE)
    halves = [detail for lines, detail in found if lines == [3]]
    assert [re.sub(r" does not .*", "", detail) for detail in halves] == [
        "the first half of line 3",
        "the second half of line 3",
    ]


def test_a_rhyme_finding_names_the_poems_lines() -> None:
    found, summary = _texts(FIRST_LINES + SHORT_LINES + UNRHYMED_LAST_LINE)
    assert ([2, 4], "lines 2 and 4 should rhyme (A) but 'toast' / 'pie' do not") in found
    assert "rhyme: lines 2 and 4 should rhyme" in summary


def test_a_five_line_limerick_keeps_its_numbers() -> None:
    short_lines = "When they said it was black,\nshe would send it right back,\n"
    found, _summary = _texts(FIRST_LINES + short_lines + LONG_LAST_LINE)
    assert any(lines == [5] and detail.startswith("line 5 ") for lines, detail in found)


def test_every_kind_of_reference_is_renamed() -> None:
    assert (
        lear_detail("lines 3 and 4 should rhyme (B)") == "the two halves of line 3 should rhyme (B)"
    )
    assert (
        lear_detail("lines 1 and 3 should rhyme")
        == "line 1 and the first half of line 3 should rhyme"
    )
    assert lear_detail("line 4 (B) rhymes with line 2 (A)") == (
        "the second half of line 3 (B) rhymes with line 2 (A)"
    )
    assert lear_detail("lines 1 and 5 should rhyme") == "lines 1 and 4 should rhyme"
    # "(lines 3-4 shorter)" is no "line N" reference: left as written (Lear metre names no longer
    # carry it; see tests/test_form_template_line_numbers.py).
    shorter = "line 5 does not scan as iambic trimeter (lines 3-4 shorter) (fit 0.50)"
    assert (
        lear_detail(shorter)
        == "line 4 does not scan as iambic trimeter (lines 3-4 shorter) (fit 0.50)"
    )
