"""Poem extraction of answers whose every verse line is numbered ("1. ", "2) ", "(3) "), and of
verse that only has a numbered line or a few (list poems, countdowns).

All verse here was written for these tests; the human-poem corpus checks live in
test_extract_chat_shapes.py.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import LIMERICK, POEM, prefixed_lines

from poemetric.extraction import extract_poem


@pytest.mark.parametrize("style", ["{}. ", "{}) ", "({}) ", "**{}.** ", "{}.\t"])
@pytest.mark.parametrize("restart", [False, True])
def test_numbered_lines_lose_their_numbers(style: str, restart: bool) -> None:
    result = extract_poem(prefixed_lines(POEM, style, restart))
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed line numbers from 8 lines") for note in result.notes)


def test_numbered_lines_inside_chat_and_under_a_title() -> None:
    answer = (
        "Here is a sonnet about a lantern-maker:\n\n**The Lantern-Maker**\n\n"
        + prefixed_lines(POEM, "{}. ")
        + "\n\nI hope you enjoy it!"
    )
    result = extract_poem(answer)
    assert (result.poem, result.title) == (POEM, "The Lantern-Maker"), result.notes


def test_numbered_limerick_keeps_its_form_scores() -> None:
    from poemetric.form.checker import check_poem

    result = extract_poem(prefixed_lines(LIMERICK, "{}) "))
    assert result.poem == LIMERICK, result.notes
    clean = check_poem(LIMERICK, "limerick", None, "AABBA")
    extracted = check_poem(result.poem, "limerick", None, "AABBA")
    assert (extracted.meter_score, extracted.rhyme_score) == (clean.meter_score, clean.rhyme_score)


LIST_POEMS = [
    # a list poem of three items under an opening line
    "Three things I carried out of the flood:\n1. the kettle, still warm,\n"
    "2. a photograph of no one I know,\n3. the dog, who forgave the river.",
    # three numbered lines and nothing else
    "1. Salt the step.\n2. Feed the heron.\n3. Leave the gate unlatched for June.",
    # items that run over two lines each
    "1. Forgive the weather\nits long grey sermons;\n2. forgive the gulls\ntheir manners;\n"
    "3. forgive yourself\nthe open window.",
    # one numbered line in a poem
    POEM.replace("By dusk", "1. By dusk"),
    # a countdown: numbered, but not upwards from 1
    "10. the kettle sings,\n9. the kettle stops,\n8. the door,\n7. the stair,\n6. the dark.",
    # numbers out of order, or starting again inside a stanza
    "1. the moth\n3. the lamp\n2. the moth again\n4. the morning",
    "1. the moth\n2. the lamp\n1. the moth again\n2. the morning",
    # two styles of numbering
    "1. the moth\n2) the lamp\n3. the moth again\n4. the morning",
]


@pytest.mark.parametrize("poem", LIST_POEMS)
def test_verse_with_a_few_numbered_lines_kept(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem
    assert result.notes == []
