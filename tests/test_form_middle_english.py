"""Poems in Middle English spelling: recognised, and their rhymes heard by its spelling rules."""

from __future__ import annotations

import pytest

from poemetric.form import adapters
from poemetric.form.adapters import Rhyme, middle_english_reading, rhyme_kind
from poemetric.form.checker import MIDDLE_ENGLISH_NOTE, check_poem
from poemetric.form.middle_english import is_middle_english, middle_english_phones

# Written for this test in the manner of a 15th-century lyric (ABCB quatrains). The even lines
# end in pairs that rhyme by Middle English spelling (ston/bon, which modern spelling rules read
# with a short o: a rhyme there too) or are assonant there (kinde/longinge: /ɪnd/ against a
# rhyme on the stressed suffix, /ɪŋ/).
MIDDLE_ENGLISH_BALLAD = """\
Ich hadde a lemman fer awey
Biyonde the brode se,
And whan the wynter nyght was long
Sche sente a word to me.

Sche sente me an appel rede
Withouten ony ston,
And sche me sente a litel brid
Withouten ony bon.

Sche sente me a rose of May
That was so fair and kinde,
And bad me love hir withoute
Ony sorwe or longinge.

How shuld ony appel be
Withouten ony ston?
And how shuld ony litel brid
Be leved withouten bon?
"""

# The same poem with its Middle English function words and spellings modernised, but the same
# end words: no longer recognised, so its rhymes are heard only with modern pronunciations.
MODERNISED = (
    MIDDLE_ENGLISH_BALLAD.replace("Ich hadde", "I had")
    .replace("Biyonde", "Beyond")
    .replace("whan", "when")
    .replace("nyght", "night")
    .replace("Sche", "She")
    .replace("sche", "she")
    .replace("Withouten", "Without")
    .replace("withouten", "without")
    .replace("withoute", "without")
    .replace("ony", "any")
    .replace("Ony", "Any")
    .replace("hadde", "had")
    .replace("shuld", "should")
    .replace("hir", "her")
    .replace("lemman", "lover")
)


def test_middle_english_spelling_is_recognised_and_modern_english_is_not() -> None:
    assert is_middle_english(MIDDLE_ENGLISH_BALLAD.split())
    assert not is_middle_english(MODERNISED.split())
    # Early Modern archaisms are read with modern pronunciations, as before.
    early_modern = (
        "Thou hast the beauty that doth make thee fair, and thine eye hath seen what the "
        "summer giveth; wherefore dost thou weep, and whither goest thou now"
    )
    assert not is_middle_english(early_modern.split())


# Well-known openings, tokenised as the checker does (its metre analysis's word tokens).
CHAUCER = """Whan that Aprill with his shoures soote
The droghte of March hath perced to the roote,
And bathed every veyne in swich licour
Of which vertu engendred is the flour;
Whan Zephirus eek with his sweete breeth
Inspired hath in every holt and heeth
The tendre croppes, and the yonge sonne
Hath in the Ram his half cours yronne"""
SPENSER = """A Gentle Knight was pricking on the plaine,
Ycladd in mightie armes and silver shielde,
Wherein old dints of deepe wounds did remaine,
The cruell markes of many a bloudy fielde;
Yet armes till that time did he never wield:
His angry steede did chide his foming bitt,
As much disdayning to the curbe to yield:
Full jolly knight he seemd, and faire did sitt,
As one for knightly giusts and fierce encounters fitt."""
BURNS = """Wee, sleekit, cow'rin, tim'rous beastie,
O, what a panic's in thy breastie!
Thou need na start awa sae hasty,
Wi' bickering brattle!
I wad be laith to rin an' chase thee,
Wi' murd'ring pattle!"""


@pytest.mark.parametrize(("text", "expected"), [(CHAUCER, True), (SPENSER, False), (BURNS, False)])
def test_chaucer_is_middle_english_and_spenser_and_burns_are_not(text: str, expected: bool) -> None:
    tokens = [word for line in text.splitlines() for word in adapters.line_words(line)]
    assert is_middle_english(tokens) is expected


@pytest.mark.parametrize(
    ("word", "phones"),
    [
        ("se", "S EY1"),  # open e, long
        ("ston", "S T AO1 N"),  # closed o, short
        ("rinde", "R IH1 N D"),  # final -e unstressed, silent
        ("longing", "L OW0 NG IH1 NG"),  # the rhyme falls on the stressed suffix
        ("nyght", "N IH1 HH T"),  # y for i, gh for the velar fricative
        ("suster", "S UH1 S T AH0 R"),  # the weak ending -er
    ],
)
def test_words_are_read_by_middle_english_spelling_rules(word: str, phones: str) -> None:
    assert middle_english_phones(word) == phones


def test_rhymes_are_heard_in_middle_english_only_within_the_reading() -> None:
    assert rhyme_kind("rinde", "longing") is Rhyme.NONE
    with middle_english_reading():
        assert rhyme_kind("rinde", "longing") is Rhyme.NEAR
        assert rhyme_kind("ston", "bon") is Rhyme.PERFECT  # S T AA1 N, a modern rhyme too
        assert rhyme_kind("se", "me") is Rhyme.PERFECT  # a modern rhyme keeps its class
        assert rhyme_kind("ston", "appel") is Rhyme.NONE
    assert rhyme_kind("rinde", "longing") is Rhyme.NONE  # the cache holds the modern reading
    assert adapters.middle_english_kind("ston", "bon") is Rhyme.HISTORICAL


def test_a_middle_english_ballad_passes_with_its_rhymes_heard_in_middle_english() -> None:
    result = check_poem(MIDDLE_ENGLISH_BALLAD, "ballad", None, "ABCB")
    assert result.passed, result.summary
    assert result.facts["reading"] == MIDDLE_ENGLISH_NOTE
    modern = check_poem(MODERNISED, "ballad", None, "ABCB")
    assert "reading" not in modern.facts
    assert modern.rhyme_score is not None and result.rhyme_score is not None
    assert modern.rhyme_score < result.rhyme_score


def test_a_middle_english_ballad_whose_rhymes_are_broken_still_fails() -> None:
    broken = (
        MIDDLE_ENGLISH_BALLAD.replace("Withouten ony ston,", "Withouten ony lef,")
        .replace("Withouten ony bon.", "Withouten ony thorn.")
        .replace("Ony sorwe or longinge.", "Ony sorwe or care.")
        .replace("Sche sente a word to me.", "Sche sente a word of gold.")
    )
    result = check_poem(broken, "ballad", None, "ABCB")
    assert result.facts.get("reading") == MIDDLE_ENGLISH_NOTE
    assert not result.passed, result.summary
