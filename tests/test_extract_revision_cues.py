"""Answers that revise the poem in the open with cues the rules did not know kept the draft and
the revision as one poem, or only the draft: "I've revised it to improve the meter:", "Let me
refine this further:", "Here's a fix:" (both versions, a limerick of ten lines and a remark),
"Actually, let me fix line 4 to scan better:" (the revision moved to the reasoning, the draft
kept), "Here is a tighter version:" (taken for a second poem: the draft kept) and "**Final
Answer:**" over the last version (both kept). The revised version is now the poem; verse that
only reads like such a cue stays.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest

from poemetric.extraction import extract_poem

DRAFT = """There once was a baker from Bray
Who kneaded his dough night and day.
He said with a grin,
"It's the yeast I put in!"
Then he rose and just floated away."""

REVISED = """There once was a baker from Bray
Who kneaded his dough all the day.
He said with a grin,
"It's the yeast that I put in!"
Then he rose and just floated away."""

CUES = [
    "I've revised it to improve the meter:",
    "Let me refine this further:",
    "Actually, let me fix line 4 to scan better:",
    "Here is a tighter version:",
    "On reflection, the meter in line 4 is off. Here's a fix:",
    "**Final Answer:**",
    "Hmm, line 2 is clunky. Let me polish it:",
]
ANSWERS = [f"Here's a limerick:\n\n{DRAFT}\n\n{cue}\n\n{REVISED}" for cue in CUES]


@pytest.mark.parametrize("answer", ANSWERS)
def test_the_revised_version_is_the_poem(answer: str) -> None:
    result = extract_poem(answer)
    assert result.poem == REVISED, result.notes
    assert any("removed the earlier" in note for note in result.notes), result.notes


def test_a_darker_version_is_still_a_second_poem() -> None:
    """ "Here is a darker version:" offers another poem (the first is kept), as before."""
    result = extract_poem(f"{DRAFT}\n\nHere is a darker version:\n\n{REVISED}")
    assert result.poem == DRAFT, result.notes


VERSE = [
    # a stanza line that names a fix of something other than the poem
    f"{DRAFT}\n\nI have polished the silver:\nthe spoons, the tray, the candlestick;\n"
    "I have swept the floor for you,\nand you will come home quick.",
    # a closing remark after the only version, with no version after it
    f"{DRAFT}\n\nI've tightened the meter in line 4.",
]


@pytest.mark.parametrize("answer", VERSE)
def test_verse_or_a_remark_that_reads_like_a_cue_stays(answer: str) -> None:
    result = extract_poem(answer)
    assert DRAFT in result.poem, result.notes
    assert not any("removed the earlier" in note for note in result.notes), result.notes
