"""Poem extraction of meta-poems of one stanza (poems about writing the poem), whose last lines
name the poem's mechanics as a closing remark does ("It scans in iambic pentameter all night.")
but rhyme on with the stanza above them: they are verse and kept. A remark glued under such a
poem that does not rhyme with it is still removed.

All verse here was written for these tests.
"""

from __future__ import annotations

import pytest

from poemetric.extraction import extract_poem

#: Twelve lines of a sonnet about writing a sonnet; each case below adds its last two.
OCTAVE_AND_QUATRAIN = """I sit to write a sonnet at my desk,
with fourteen lines to fill before the dawn;
the first eight lines should set the scene, grotesque
or tender, till the turning thought is drawn.
I count my feet as dancers count their steps,
five iambs marching slowly down the page,
and every stress is set where stress accepts
the weight I give it, measured to the gauge.
The volta comes, and now the mood must turn;
I swing the thought around to face the light.
The sestet answers what the octave yearns,
and here my fourteen lines approach the night."""

META_COUPLETS = [
    # both lines name the metre or the scheme and rhyme with the quatrain above
    "It scans in iambic pentameter all night.\nThe rhyme scheme ABAB holds it tight.",
    # the two lines read as one remark, as a model's two sentences about the poem would
    "My sonnet keeps its iambic meter right.\nThe rhyme scheme is ABAB, and it's tight.",
]

LIMERICK = """I was asked for a limerick today,
so I counted my feet on the way.
Two short lines in the middle
go skip like a fiddle.
The rhyme scheme is AABBA, hooray."""

LIMERICK_LAST = """My editor asked for a rhyme,
and I gave her a limerick in time;
with the feet in a row
and the beat nice and slow.
It scans as anapestic, AABBA, sublime."""


@pytest.mark.parametrize("couplet", META_COUPLETS)
def test_meta_sonnet_whose_last_couplet_names_its_mechanics_kept(couplet: str) -> None:
    poem = OCTAVE_AND_QUATRAIN + "\n" + couplet
    result = extract_poem("Here is a sonnet about writing a sonnet:\n\n" + poem)
    assert result.poem == poem, result.notes
    assert result.notes == ["removed preamble: 'Here is a sonnet about writing a sonnet:'"]
    assert result.reasoning is None


@pytest.mark.parametrize("poem", [LIMERICK, LIMERICK_LAST])
def test_meta_limerick_whose_last_line_names_its_scheme_kept(poem: str) -> None:
    result = extract_poem(poem)
    assert result.poem == poem, result.notes
    assert result.notes == []


@pytest.mark.parametrize(
    "remark",
    [
        # scheme letters end it: no rhyme word
        "The rhyme scheme is ABAB CDCD EFEF GG.\nEach line has ten syllables in iambic pentameter.",
        "This sonnet follows ABAB CDCD EFEF GG in iambic pentameter.",
        # rhymes with nothing above
        "Every line has ten syllables, in iambic pentameter.",
    ],
)
def test_remark_glued_under_a_meta_sonnet_still_removed(remark: str) -> None:
    poem = OCTAVE_AND_QUATRAIN + "\n" + META_COUPLETS[0]
    result = extract_poem(poem + "\n" + remark)
    assert result.poem == poem, result.notes
    assert result.notes == [
        f"removed closing remark: {line.strip()!r}" for line in remark.split("\n")
    ]


def test_meta_couplet_much_longer_than_the_verse_is_a_remark() -> None:
    """A rhyming line a fourth longer than any verse line is prose, as a remark is."""
    remark = "This limerick is written in anapestic trimeter with an AABBA scheme all the way."
    result = extract_poem(LIMERICK + "\n" + remark)
    assert result.poem == LIMERICK, result.notes
