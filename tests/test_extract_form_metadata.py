"""Metadata a model writes about a ghazal, a sestina or its tone ("Radif: tonight", "Qafia: -ight",
"End words: tree, sea, ...", "Tone: melancholic"), a remark in square brackets ("[Rhyme scheme:
AABB CC]") and a bracketed remark naming the metre and scheme ("(Iambic pentameter, AABB CC)")
stayed in the poem as lines of verse, before or after it. They are removed as metadata and
closing remarks; a bracketed verse line about the craft stays. So is a title between dashes or
tildes ("— The Lantern-Maker —"), which stayed as the poem's first line.

All verse and chatter here was written for these tests.
"""

from __future__ import annotations

import pytest
from test_extract_chat_shapes import POEM

from poemetric.extraction import extract_poem

HEADS = [
    "**Radif:** tonight\n**Qafia:** -ight",
    'Radif: "tonight"',
    "End words: glass, row, tune, glow, square, door",
    "**End words:** glass, row, tune",
    "Tone: wistful",
]


@pytest.mark.parametrize("head", HEADS)
def test_metadata_over_the_poem_is_removed(head: str) -> None:
    result = extract_poem(f"{head}\n\n{POEM}")
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed preamble") for note in result.notes)


TAILS = [
    "**Radif:** tonight",
    "Radif: tonight | Qafia: -ight",
    "End words: glass, row, tune, glow, square, door",
    "Mood: wistful",
    "(Iambic pentameter, ABAB CDCD)",
    "[Rhyme scheme: ABAB CDCD]",
    "[ABAB CDCD, iambic pentameter]",
]


@pytest.mark.parametrize("tail", TAILS)
@pytest.mark.parametrize("gap", ["\n\n", "\n"])
def test_metadata_under_the_poem_is_removed(tail: str, gap: str) -> None:
    result = extract_poem(f"{POEM}{gap}{tail}")
    assert result.poem == POEM, result.notes
    assert any(note.startswith("removed closing remark") for note in result.notes)


@pytest.mark.parametrize(
    "last",
    [
        "(my iambic heart, my pentameter of rain.)",
        "[and every pane is waiting for the glow.]",
        "(and so the river turns, and so do I.)",
    ],
)
def test_a_bracketed_verse_line_stays(last: str) -> None:
    for answer in (f"{POEM}\n{last}", f"{POEM}\n\n{last}"):
        assert extract_poem(answer).poem == answer


# --- a title between dashes or tildes ------------------------------------------------------------


@pytest.mark.parametrize(
    "head", ["— The Lantern-Maker —", "~ The Lantern-Maker ~", "– The Lantern-Maker –"]
)
def test_a_title_between_dashes_or_tildes_is_removed(head: str) -> None:
    """It stayed as the poem's first line: a sonnet of fifteen lines, a limerick of six."""
    result = extract_poem(f"{head}\n\n{POEM}")
    assert result.poem == POEM, result.notes
    assert result.title == "The Lantern-Maker"


@pytest.mark.parametrize("head", ["— and so it goes —", "~ The Lantern-Maker —"])
def test_verse_between_dashes_stays(head: str) -> None:
    answer = f"{head}\n\n{POEM}"
    assert extract_poem(answer).poem == answer
