"""An answer that opens with a few sentences of chat the rules do not know and then hands the
poem over ("What a delightful prompt! Here is my attempt:") kept all of it as the poem's first
lines, which cost it the form check. The chat up to that sentence is removed; verse that ends a
line the same way stays.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest

from poemetric.extraction import extract_poem

POEM = """The river bends beneath the hill,
And all the evening air is still;
The swallows skim the silver stream,
And twilight settles like a dream."""

OPENINGS = [
    "What a delightful prompt! Here is my attempt:",
    "What a delightful prompt!\n\nHere is my attempt:",
    "Crafting a ballad about the river is a joy.\nHere is a ballad:",
    "Absolutely! Writing a ballad with an ABCB scheme is a fun challenge.\n\nHere it is:",
    "Rivers are a wonderful subject. They carry so much.\n\nHere's my ballad in common meter:",
    "What a lovely request, thank you so much.\nLimericks are among my favourite things.\n\n"
    "Here is a limerick:",
]


@pytest.mark.parametrize("opening", OPENINGS)
def test_chat_up_to_the_handover_is_removed(opening: str) -> None:
    result = extract_poem(f"{opening}\n\n{POEM}")
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed preamble") for note in result.notes)


VERSE = [
    # a stanza whose last line ends in a colon, but hands over no poem
    "The night is long. The stars are cold.\nHere is my heart:",
    # more lines before it than chat has
    "I sing. You hear.\nThe wind is near.\nThe sea is clear.\nThe day is here.\nHere is my poem:",
    # lines that run on as verse
    "I wrote this for you at the kitchen table\nand here is the poem:",
    "There was an old man of the coast,\nwho said: here is a limerick:",
]


@pytest.mark.parametrize("opening", VERSE)
def test_verse_ending_in_a_colon_stays(opening: str) -> None:
    answer = f"{opening}\n\n{POEM}"
    assert extract_poem(answer).poem == answer
