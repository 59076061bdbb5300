"""Chat around the poem in words that models use and the first vocabulary missed: openers such as
"I'd be happy to write a sonnet for you!", "Yes! Here's a ballad:", "Sure — here's ...", offers
after the poem ("Shall I write another?", "Want me to adjust the metre?") and "(The End)"; and
verse that opens or ends with the same words, which stays.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import POEM

from poemetric.extraction import extract_poem
from poemetric.form.checker import check_poem

OPENERS = [
    "I'd be happy to write a sonnet for you!",
    "I'd be glad to write a ballad for you.",
    "I'd love to write a limerick for you!",
    "I would be delighted to compose a sestina on this theme.",
    "I'm happy to write a villanelle about the sea:",
    "Sure thing! Here's a limerick:",
    "Sure — here's a sonnet:",
    "Okay - here is the poem:",
    "Yes! Here's a ballad:",
    "Hello! Here is a villanelle:",
    "No problem! Here's a sonnet:",
    "With pleasure! Here's a sonnet:",
    "Understood. Here is the poem.",
    "Got it! Here's a limerick:",
    "Challenge accepted! Here's a sestina:",
    "Sure, I can do that.",
    "Of course, I can help with that!",
    "Here goes:",
]


@pytest.mark.parametrize("opener", OPENERS)
def test_openers_removed(opener: str) -> None:
    result = extract_poem(opener + "\n\n" + POEM)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed preamble") for note in result.notes)


CLOSINGS = [
    "Shall I write another?",
    "Should I adjust the meter?",
    "Want me to try a different rhyme scheme?",
    "Do you want me to change anything?",
    "I can also write a version in tetrameter if you prefer.",
    "Happy to write more if you'd like.",
    "Please let me know your thoughts.",
    "(The End)",
    "The End",
    "— THE END —",
]


@pytest.mark.parametrize("closing", CLOSINGS)
def test_closing_offers_removed(closing: str) -> None:
    result = extract_poem(POEM + "\n\n" + closing)
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "first_line",
    [
        "Yes, to the very end.",
        "Yes, and the lamps were lit for you.",
        "Hello, the lamps; hello, the door.",
        "I'd love to walk the harbour in the rain.",
        "Sure — the tide will turn again.",
    ],
)
def test_verse_opening_like_chat_kept(first_line: str) -> None:
    poem = first_line + "\n\n" + POEM
    result = extract_poem(poem)
    assert result.poem == poem, result.notes


@pytest.mark.parametrize(
    "ending",
    [
        "\n\nShall I compare the lamps to stars?",
        "\n\nThe end.",
        "\n\nthe end",
        "\n\nShould I stay, or should I go?",
        "\n\nWant me to wait? I'll wait.",
    ],
)
def test_verse_ending_like_an_offer_kept(ending: str) -> None:
    poem = POEM + ending
    result = extract_poem(poem)
    assert result.poem == poem, result.notes


LIMERICK = """There once was a baker named Sue
Who baked a fine loaf in a shoe.
It rose in the heat,
Smelled of leather and feet,
And she sold it by quarter past two."""


def test_a_limerick_after_a_happy_opener_passes_the_form_check() -> None:
    """The opener left in made the limerick six lines long, and the form check failed it."""
    answer = "I'd be happy to write a limerick for you!\n\n" + LIMERICK
    poem = extract_poem(answer).poem
    assert poem == LIMERICK
    assert check_poem(poem, "limerick", rhyme="AABBA").passed
    assert not check_poem(answer, "limerick", rhyme="AABBA").passed
