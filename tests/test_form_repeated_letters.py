"""A ballad pattern written as the same stanza scheme again and again (`ABCB ABCB ABCB`)."""

from __future__ import annotations

from poemetric.form.checker import check_poem
from poemetric.form.forms import fresh_letters
from poemetric.form.parsing import repeated_group

BALLAD = """The miller walked the river road
When autumn leaves were brown,
He carried grain upon his back
To sell it in the town.

He met a girl with yellow hair
Beside the stony mill,
She sang a song of summer days
That lingered on the hill.

They married when the winter came
And snow lay on the ground,
And all the village came to dance
To hear the fiddle sound.
"""


def test_repeated_group() -> None:
    assert repeated_group("ABCBABCBABCB") == "ABCB"
    assert repeated_group("ABCBDEFEGHIH") is None  # fresh letters: minimal_period's case
    assert repeated_group("ABABAB") is None  # shorter than a stanza
    assert repeated_group("AABBAABBAABB") == "AABB"


def test_same_letters_in_every_stanza_ask_for_the_same_rhymes_and_say_how_to_ask_otherwise() -> (
    None
):
    literal = check_poem(BALLAD, "ballad", None, "ABCB ABCB ABCB")
    assert not literal.passed  # a letter is one rhyme wherever it stands: the verdict stays
    assert literal.rhyme_score == 0.5
    first = literal.explanation[0].detail
    assert first.startswith("the pattern repeats ABCB with the same letters")
    assert first.endswith(
        "with new rhymes in each stanza it scores 1.00: to ask for that, write ABCB (one "
        "stanza's pattern) or ABCB DEFE GHIH"
    )  # was "write ABCB" alone, which read as the pattern just refused
    assert first in literal.summary
    for fresh in ("ABCB", "ABCB DEFE GHIH"):
        check = check_poem(BALLAD, "ballad", None, fresh)
        assert check.passed
        assert not any("repeats" in issue.detail for issue in check.explanation)


def test_fresh_letters_spell_out_new_rhymes_in_each_stanza() -> None:
    assert fresh_letters("ABCB", 3) == "ABCB DEFE GHIH"
    assert fresh_letters("ABCB", 5) == "ABCB DEFE GHIH ..."
    assert fresh_letters("AABB", 2) == "AABB CCDD"


def test_no_note_when_new_rhymes_would_not_score_better() -> None:
    unrhymed = (
        "The kettle hums beside the open door\nAnd light comes slanting through the kitchen glass\n"
        "A neighbour calls a question from the yard\nThe cat considers nothing very long\n\n"
        "By noon the washing dries along the wall\nThe baker counts his coins and shuts the till\n"
        "A train goes north with no one on it yet\nThe river keeps its own slow business up\n"
    )
    check = check_poem(unrhymed, "ballad", None, "ABCB ABCB")
    assert not check.passed
    assert not any("repeats" in issue.detail for issue in check.explanation)
