"""An opener that ends in a full stop after a short exclamation on the same line ("What a
beautiful theme! Here's a sonnet that explores it.") and "Below, you'll find a sonnet ..." stayed
as the poem's first line (the handover rule needs a colon; the exclamation was not a known lead-in
such as "Yes!"). They are removed as preambles; an exclamation over verse stays.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import time

import pytest
from test_extract_chat_shapes import POEM

from poemetric.extraction import extract_poem


@pytest.mark.parametrize(
    "opening",
    [
        "What a beautiful theme! Here's a sonnet that explores it.",
        "Oh, what a lovely idea! Here is a ballad about the lantern-maker.",
        "Thank you for the lovely prompt!! Here's my poem.",
        "Below, you'll find a sonnet inspired by autumn.",
    ],
)
def test_an_opener_after_an_exclamation_is_removed(opening: str) -> None:
    result = extract_poem(f"{opening}\n\n{POEM}")
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed preamble") for note in result.notes)


@pytest.mark.parametrize(
    "opening",
    [
        "Hark! Here is the place where the lantern-maker stood.",
        "O lamps! Here is the street, and here the glass.",
        "What a night! The lamps are lit along the square.",
    ],
)
def test_an_exclamation_over_verse_stays(opening: str) -> None:
    answer = f"{opening}\n{POEM}"
    assert extract_poem(answer).poem == answer


@pytest.mark.parametrize(
    "loop",
    [
        "Yes! " * 3000 + "Here is a sonnet",
        "Wow! " * 3000 + "Here is a sonnet",
        "As an AI, " + "I don't have personal feelings, " * 500 + "and so on",
    ],
)
def test_a_line_repeated_in_a_loop_is_read_in_time(loop: str) -> None:
    """A model stuck in a loop repeats a lead-in thousands of times on one line: extraction
    raised RecursionError on "Yes! Yes! ..." (reading past one lead-in at a time), and a
    disclaimer repeated 500 times took over half a minute. The line is kept as it is."""
    answer = f"{loop}\n\n{POEM}"
    started = time.perf_counter()
    result = extract_poem(answer)
    assert time.perf_counter() - started < 5
    assert result.poem == answer
