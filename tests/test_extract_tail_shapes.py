"""What chat models put under the poem that extraction kept as verse: a second poem offered as
"Here's another one:" or "And here's another limerick for good measure:" (both checked and
judged as one poem of eleven lines), and a line of emoji alone ("🥖😄", counted as a line of the
poem and shown to the judge). The first poem is kept; the emoji line is removed as a closing
remark, and so is a note on the poem glued under its last line ("Note: The poem uses iambic
pentameter."). Verse that merely says "another one" or opens "Note: the swallows ...", and a
dinkus between stanzas, stay.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import LIMERICK, POEM

from poemetric.extraction import extract_poem

SECOND = """A sailor who hailed from the Tyne
Would drink nothing stronger than brine.
He said, "It's the salt
That keeps me exalt,"
And his crewmates agreed he was fine."""


@pytest.mark.parametrize(
    "offer",
    [
        "Here's another one:",
        "And here's another limerick for good measure:",
        "And here is another one:",
        "Also, here's a second one:",
    ],
)
def test_a_second_poem_offered_after_the_first_is_removed(offer: str) -> None:
    result = extract_poem(f"{LIMERICK}\n\n{offer}\n\n{SECOND}")
    assert result.poem == LIMERICK, result.notes
    assert any("alternative offered after the poem" in note for note in result.notes)


def test_another_one_inside_a_stanza_stays() -> None:
    stanza = (
        "The gulls come back, and here's another one:\nit settles on the mast and eyes the sun."
    )
    answer = f"{POEM}\n\n{stanza}"
    assert extract_poem(answer).poem == answer


@pytest.mark.parametrize(
    "tail",
    ["\n\n🥖😄", "\n🥖😄", "\n\n✨🌊✨\n\nEnjoy!", "\n\nI hope you like it!\n\n😊"],
)
def test_a_line_of_emoji_under_the_poem_is_removed(tail: str) -> None:
    result = extract_poem(LIMERICK + tail)
    assert result.poem == LIMERICK, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


def test_a_dinkus_between_stanzas_and_an_emoji_in_a_line_stay() -> None:
    first, second = POEM.split("\n\n")
    answer = f"{first}\n\n❦\n\n{second}\nand one small ☀ above the floor."
    assert extract_poem(answer).poem == answer


@pytest.mark.parametrize(
    "note",
    [
        "Note: The poem uses iambic pentameter.",
        "Note: I took a liberty with the rhyme in the last couplet.",
        "(Note: each stanza ends on the refrain.)",
    ],
)
def test_a_note_on_the_poem_glued_under_it_is_removed(note: str) -> None:
    result = extract_poem(f"{POEM}\n{note}")
    assert result.poem == POEM, result.notes
    assert any(n.startswith("removed closing remark") for n in result.notes)


@pytest.mark.parametrize(
    "last", ["Note: the swallows wheel above the burn.", "Note the swallows, how they turn."]
)
def test_a_last_verse_line_opening_with_note_stays(last: str) -> None:
    answer = f"{POEM}\n{last}"
    assert extract_poem(answer).poem == answer
