"""Leftovers of chat at the head of an answer that stayed in the poem: a first line that only
names the form ("(Sonnet)", "*A Shakespearean sonnet*", "(A limerick about a baker)"), an opener
that hopes the reader enjoys the poem or labels it ("I hope you enjoy this sonnet:", "The
poem:"), and two poems numbered "1." and "2." under "Here are two limericks:", read as stanza
numbers so that both were checked and judged as one poem. Verse that opens so stays.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest

from poemetric.extraction import extract_poem

LIMERICK = (
    "There once was a baker named Lou\n"
    "Who baked the most marvelous stew;\n"
    "He stirred it with care,\n"
    "With a flick and a flair,\n"
    "And served it to all of his crew."
)
SECOND = (
    "A cat with a hat in Peru\n"
    "Would dance in a bright yellow shoe;\n"
    "She twirled on the floor\n"
    "Then danced out the door,\n"
    "And nobody knew what to do."
)
QUATRAINS = (
    "The harbour lamps are lit along the quay,\n"
    "The gulls have gone to roost upon the stone;\n"
    "A fisherman is mending nets alone\n"
    "And humming something older than the sea.\n"
    "\n"
    "The tide comes in as quiet as a thought,\n"
    "It lifts the hulls and sets them down again;\n"
    "The boats remember every hand and rain,\n"
    "And every catch the darkened water brought."
)

FORM_NAMES = [
    "(Sonnet)\n\n",
    "(Sonnet)\n",
    "*A Shakespearean sonnet*\n\n",
    "_a limerick_\n\n",
    "(A limerick about a baker)\n\n",
    "(A limerick about a baker)\n",
    "[A sonnet on the harbour at night]\n\n",
    "A Petrarchan sonnet\n\n",
]


@pytest.mark.parametrize("head", FORM_NAMES)
@pytest.mark.parametrize("poem", [LIMERICK, QUATRAINS])
def test_a_first_line_that_only_names_the_form_is_removed(head: str, poem: str) -> None:
    result = extract_poem(head + poem)
    assert result.poem == poem, result.notes
    assert any(note.startswith("removed form name") for note in result.notes)


OPENERS = [
    "I hope you enjoy this sonnet:",
    "I hope you like this limerick!",
    "Hope you enjoy the poem:",
    "The poem:",
    "**The Poem:**",
    "My sonnet:",
    "Limerick:",
]


@pytest.mark.parametrize("opener", OPENERS)
def test_an_opener_that_hopes_or_labels_is_removed(opener: str) -> None:
    result = extract_poem(f"{opener}\n\n{LIMERICK}")
    assert result.poem == LIMERICK, result.notes
    assert any(note.startswith("removed preamble") for note in result.notes)


@pytest.mark.parametrize(
    "intro",
    [
        "Here are two limericks:",
        "Sure! Here are two limericks about food:",
        "Here are a couple of limericks for you:",
        "Here are three sonnets:",
    ],
)
@pytest.mark.parametrize("number", ["{n}.", "**{n}.**", "### {n}", "{n})"])
def test_the_first_of_poems_numbered_under_an_intro_that_announces_several_is_kept(
    intro: str, number: str
) -> None:
    answer = f"{intro}\n\n{number.format(n=1)}\n{LIMERICK}\n\n{number.format(n=2)}\n{SECOND}"
    result = extract_poem(answer)
    assert result.poem == LIMERICK, result.notes
    assert any("alternative poem" in note for note in result.notes)


VERSE = [
    # numbered stanzas of one poem: kept whole
    f"Here is a limerick in two parts:\n\n1.\n{LIMERICK}\n\n2.\n{SECOND}",
    f"1.\n{LIMERICK}\n\n2.\n{SECOND}",
    # verse whose first line speaks of a form or hopes
    "A sonnet is a little room of sound\n" + QUATRAINS.split("\n", 1)[1],
    "*Sonnets were the songs my mother sang,*\n" + QUATRAINS.split("\n", 1)[1],
    "I hope you like the rhyme I make of you,\n" + QUATRAINS.split("\n", 1)[1],
    "The poem: a harbour, and a lamp, a quay,\n" + QUATRAINS.split("\n", 1)[1],
]


@pytest.mark.parametrize("answer", VERSE)
def test_verse_and_numbered_stanzas_keep_every_line(answer: str) -> None:
    result = extract_poem(answer)
    kept = [line for line in result.poem.split("\n") if line.strip()]
    verse = [
        line.strip("*")
        for line in answer.split("\n")
        if line.strip() and line.strip() not in {"1.", "2."} and not line.endswith("parts:")
    ]
    assert kept == verse, result.notes
