"""Poem extraction of answers that rewrite the poem after a cue that says how the rewrite will
differ ("Let me try again with a lighter tone:", "Here is another version, this time in
trimeter:"), and of rewrites laid out in other stanzas than the first version ("Let me revise it
into two tercets:"): the last version is the poem. And of verse that only reads like such a cue.

All verse here was written for these tests.
"""

from __future__ import annotations

import pytest

from poemetric.extraction import extract_poem

CAT = """A cat with a taste for the cream
would plot and would tirelessly scheme;
she would leap on the shelf,
help herself to the delf,
and purr like a small steam machine."""

CAT_AGAIN = """A cat who was fond of the cream
would nap in a warm sunny beam;
she would wake for a lick,
then doze again quick,
and dream an ice-creamy dream."""

TIDE = """The tide comes in with silver light,
it folds the sand and leaves it bright;
the gulls are calling, wheeling high
against the wide and empty sky."""

TIDE_TRIMETER = """The tide rolls in with light,
it leaves the sand so bright;
the gulls wheel calling high
against the empty sky."""


def _answers(
    cases: list[tuple[str, str, str]], preamble: str = ""
) -> list[tuple[str, str, str, str]]:
    """(answer, first version, cue, final version) for each case: whole answers, so that
    `bench/extraction_unchanged.py` reads them too."""
    return [
        (f"{preamble}{first}\n\n{cue}\n\n{final}", first, cue, final) for first, cue, final in cases
    ]


@pytest.mark.parametrize(
    ("answer", "first", "cue", "final"),
    _answers(
        [
            (CAT, "Hmm, that last rhyme is weak. Let me try again with a lighter tone:", CAT_AGAIN),
            (CAT, "Let me try once more, keeping the rhymes cleaner:", CAT_AGAIN),
            (CAT, "Let me give it another try:", CAT_AGAIN),
            (CAT, "I'll rewrite it so the last line lands:", CAT_AGAIN),
            (TIDE, "Here is another version, this time in trimeter:", TIDE_TRIMETER),
            (TIDE, "Here's a new version with shorter lines:", TIDE_TRIMETER),
            (TIDE, "The lines feel long. Let me rewrite the poem in trimeter:", TIDE_TRIMETER),
        ],
        "Here is a short poem for you:\n\n",
    ),
)
def test_rewrite_after_a_cue_with_more_words_is_the_poem(
    answer: str, first: str, cue: str, final: str
) -> None:
    result = extract_poem(answer)
    assert result.poem == final, result.notes
    assert result.notes[1:] == [
        f"removed the earlier version before the rewrite ({first.count(chr(10)) + 1} lines "
        f"from {first.split(chr(10))[0]!r})",
        f"removed the line introducing the rewrite: {cue!r}",
    ]


HARBOUR = """The boats lie still upon the bay,
the ropes are wet with early spray,
a gull cries once and drifts away.
The nets are mended, coiled and grey,
the men go down to meet the day,
and no one has a word to say."""

HARBOUR_TERCETS = """The boats lie still upon the bay,
the ropes are wet with early spray,
a gull cries once and drifts away.

The nets are mended, coiled and grey,
the men go down to meet the day,
and no one has a word to say."""

QUATRAINS = """I kept my mother's kettle on the stove
long after she had gone and left the town;
I boiled the water only out of love,
and let the window steam and run with brown.

The garden that she tended went to seed,
the roses fell to briar and to thorn;
I let it go, there was no longer need,
and wrote this on the morning I was born."""

#: The quatrains set out as one stanza, two words changed.
ONE_STANZA = """I kept my mother's kettle on the stove
long after she had gone and left the town;
I boiled the water only out of love,
and watched the window steam and run with brown.
The garden that she tended went to seed,
the roses fell to briar and to thorn;
I let it go, there was no longer need,
and wrote this on the evening I was born."""


@pytest.mark.parametrize(
    ("answer", "first", "cue", "final"),
    _answers(
        [
            (HARBOUR, "Let me revise it into two tercets:", HARBOUR_TERCETS),
            (HARBOUR, "Let me fix it:", HARBOUR_TERCETS),
            (QUATRAINS, "Wait, the stanza break breaks the thought. Let me fix it:", ONE_STANZA),
            (ONE_STANZA, "Let me rewrite it in two quatrains:", QUATRAINS),
        ]
    ),
)
def test_rewrite_laid_out_in_other_stanzas_is_the_poem(
    answer: str, first: str, cue: str, final: str
) -> None:
    result = extract_poem(answer)
    assert result.poem == final, result.notes
    assert result.notes[-1] == f"removed the line introducing the rewrite: {cue!r}"


#: Eight lines of other words than QUATRAINS, in one stanza.
OTHER_EIGHT = """The ferry leaves at six without a sound,
the harbour lights go out along the quay;
a gull complains above the fishing ground,
and night comes in like water from the sea.
I stood there once beside my father's coat,
too young to know the names of what we passed;
he pointed out each lantern, every boat,
and told me which of them would be the last."""

KEPT = [
    # laid out anew, but with other words, after a cue that does not announce a new version
    QUATRAINS + "\n\nSo let me fix it:\n\n" + OTHER_EIGHT,
    # a cue's words with more after them, ending a sentence rather than introducing a version
    TIDE + "\n\nLet me try again with all the light I have.\n\n" + TIDE_TRIMETER,
    # "another" with no word for a version
    TIDE + "\n\nHere is another morning, this time in the rain:\n\n" + TIDE_TRIMETER,
    # the cue with more words closes a stanza shaped like the others
    TIDE
    + "\n\nThe kettle cracked, the window let in rain,\nthe letters that I never sent lie there;\n"
    "I fold them into boats, and then again\nlet me try again with open hands:\n\n" + TIDE,
]


@pytest.mark.parametrize("text", KEPT)
def test_verse_reading_like_a_cue_with_more_words_kept(text: str) -> None:
    result = extract_poem(text)
    assert result.poem == text, result.notes
    assert result.notes == []


def test_another_poem_offered_is_not_a_rewrite() -> None:
    """Another poem offered after the first is not a version of it: the first is the poem (the
    alternatives rule), not the last."""
    text = TIDE + "\n\nHere is another poem, this time about the dunes:\n\n" + TIDE_TRIMETER
    result = extract_poem(text)
    assert result.poem == TIDE, result.notes
    assert not any("rewrite" in note for note in result.notes)
