"""Phonetics: normalisation of poetic spellings, CMUdict lookup, offline fallbacks."""

from __future__ import annotations

import pytest

from poemetric.form.adapters import Rhyme, rhyme_kind
from poemetric.form.dictionary import cmu
from poemetric.form.letter_to_sound import guess_pronunciations
from poemetric.form.phonetics import (
    in_dictionary,
    is_function_word,
    normalize_word,
    pronunciations,
    rhyming_part,
    stress_pattern,
    syllable_count,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Love,", "love"),
        ("\u201cHello!\u201d", "hello"),
        ("O\u2019er", "o'er"),
        ("\u2019Tis", "'tis"),
        ("th'", "th'"),
        ("naïve", "naive"),
        ("Thermopylæ", "thermopylae"),
        ("belovèd", "belovèd"),
        ("sea-green;", "sea-green"),
        ("'quoted'", "quoted"),
    ],
)
def test_normalize_word(raw: str, expected: str) -> None:
    assert normalize_word(raw) == expected


def test_all_dictionary_pronunciations_are_returned() -> None:
    assert set(pronunciations("wind")) >= {"W AY1 N D", "W IH1 N D"}
    assert pronunciations("") == ()
    assert pronunciations("...") == ()


@pytest.mark.parametrize(
    ("word", "syllables"),
    [
        ("lov'd", 1),
        ("belovèd", 3),
        ("beloved", 2),  # CMUdict's first reading
        ("o'er", 1),
        ("e'er", 1),
        ("ne'er", 1),
        ("'tis", 1),
        ("'twas", 1),
        ("e'en", 1),
        ("th'", 0),
        ("thro'", 1),
        ("heav'n", 1),
        ("pow'r", 1),
        ("ev'ry", 2),
        ("sea-green", 2),
    ],
)
def test_poetic_forms_syllables(word: str, syllables: int) -> None:
    assert syllable_count(pronunciations(word)[0]) == syllables


def test_marked_endings_and_contractions_sound_right() -> None:
    assert pronunciations("lov'd")[0].endswith("AH1 V D")
    assert pronunciations("belovèd")[0].endswith("V AH0 D") or pronunciations("belovèd")[
        0
    ].endswith("V IH0 D")
    assert pronunciations("ne'er") == ("N EH1 R",)  # not the name "Neer"
    assert pronunciations("th'") == ("DH",)  # not the abbreviation "th"


def test_possessives_capitals_and_curly_apostrophes() -> None:
    assert pronunciations("Cupid\u2019s")[0] == "K Y UW1 P IH0 D Z"
    assert pronunciations("MOON") == pronunciations("moon")


def test_oov_morphology_uses_the_stem() -> None:
    assert not in_dictionary("loveth")
    assert pronunciations("loveth")[0] == "L AH1 V IH0 TH"
    assert pronunciations("singin'")[0].startswith("S IH1 NG")
    assert pronunciations("oppressd")[0].endswith("EH1 S T")


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("loveliness", "L AH1 V L IY0 N AH0 S"),  # -iness: the stem's -y vowel once
        ("wearier", "W IH1 R IY0 ER0"),
        ("loveliest", "L AH1 V L IY0 IH0 S T"),
        ("cheerily", "CH IH1 R AH0 L IY0"),  # -ily replaces it
        ("invisibly", "IH2 N V IH1 Z AH0 B L IY0"),  # a -le stem's L joins -ly
        ("dejection", "D IH0 JH EH1 K SH AH0 N"),  # not deject + ion
        ("dejections", "D IH0 JH EH1 K SH AH0 N Z"),
        ("drest", "D R EH1 S T"),  # not the abbreviation Dr. + -est
        ("whereof", "W EH2 R AH1 V"),  # where + of, not three syllables
        ("plumèd", "P L UW1 M IH0 D"),  # plume, with its -ed sounded
        ("persèver", "P ER0 S AH0 V IH1 R"),  # a stress mark, not a sounded -ed
        ("sloped", "S L OW1 P T"),  # slope + -ed, not slop
        ("quadrille", "K W AH0 D R IH1 L"),  # French -ille keeps its stress
        ("piteously", "P IH1 T IY0 AH0 S L IY0"),  # letter-to-sound on piteous, then -ly
    ],
)
def test_oov_words_built_on_a_stem_get_its_syllables_right(word: str, expected: str) -> None:
    assert not in_dictionary(word)
    assert pronunciations(word)[0] == expected


def test_letter_to_sound_reads_the_stem_before_an_unstressed_suffix() -> None:
    """The ending rules (-ous, -ish) apply to the stem: *sagaciously* was S AH0 G AH0 S IY0 AW1
    S L IY0; a consonant doubled across the join is said once (*smelly*)."""
    assert guess_pronunciations("sagaciously")[0] == "S AH0 G EY1 SH AH0 S L IY0"
    assert guess_pronunciations("smelly") == ("S M EH1 L IY0",)
    assert guess_pronunciations("plashless") == ("P L AE1 SH L AH0 S",)


def test_a_letter_by_letter_reading_is_never_a_stem() -> None:
    """CMUdict reads *clos* as C.L.O.S.; as the stem of *unclosed* it gave six syllables."""
    assert all(syllable_count(p) == 2 for p in pronunciations("unclosed"))


def test_a_final_vowel_digraph_is_not_a_stem_and_y() -> None:
    assert [syllable_count(p) for p in pronunciations("roundelay")] == [3, 3]
    assert all(p.endswith("EY0") for p in pronunciations("roundelay"))


def test_oov_older_spellings_are_modernised() -> None:
    assert rhyming_part(pronunciations("majestie")[0]) == rhyming_part(pronunciations("majesty")[0])
    assert pronunciations("publick") == pronunciations("public")
    assert pronunciations("vnto") == pronunciations("unto")


def test_a_magic_e_is_not_an_older_spellings_extra_e() -> None:
    """The rule that reads *olde* as *old* made *smite*, *clime*, *kine* (not in CMUdict) *smit*,
    *clim*, *kin*, and Scots *syne* and *hame* *sin* and *ham*; *dunce* was *dunc*, D AH1 NG K."""
    for word, vowel in (("smite", "AY1"), ("clime", "AY1"), ("kine", "AY1"), ("syne", "AY1")):
        assert not in_dictionary(word)
        assert pronunciations(word)[0].split()[-2] == vowel, word
    assert pronunciations("hame")[0] == "HH EY1 M"
    assert pronunciations("dunce") == ("D AH1 N S",)
    for old, new in (("olde", "old"), ("selfe", "self"), ("storme", "storm"), ("sunne", "sun")):
        assert pronunciations(old) == pronunciations(new), old


def test_older_and_scots_final_e_spellings_read_as_ee() -> None:
    """*se*, *kne*, *tre*, *fre* (see, knee, tree, free) gain the -ee word's reading, also when
    CMUdict knows the spelling as something else (*se* S EY1); function words keep theirs."""
    assert "S IY1" in pronunciations("se") and "S EY1" in pronunciations("se")
    assert "T R IY1" in pronunciations("tre") and "F R IY1" in pronunciations("fre")
    assert pronunciations("kne") == pronunciations("knee")
    assert pronunciations("the") == ("DH AH0", "DH AH1", "DH IY0")


def test_oov_compound_split_into_dictionary_words() -> None:
    (phones, *_) = pronunciations("moonbeamlight")
    assert syllable_count(phones) == 3
    assert phones.endswith("L AY2 T")


def test_letter_to_sound_fallback_is_plausible() -> None:
    assert not in_dictionary("blorple")
    (phones, *_) = pronunciations("blorple")
    assert syllable_count(phones) == 2  # -le syllable
    assert syllable_count(guess_pronunciations("snake")[0]) == 1  # silent final e
    assert guess_pronunciations("snake")[0] == "S N EY1 K"  # magic e lengthens the vowel
    assert guess_pronunciations("flimp")[0] == "F L IH1 M P"
    assert stress_pattern(guess_pronunciations("zorbication")[0]).index("1") == 2


def test_every_word_with_letters_gets_a_pronunciation() -> None:
    for word in ("xqzt", "brrr", "y", "qwghlm", "Æthelstan"):
        assert pronunciations(word), word


def test_stress_pattern_and_rhyming_part() -> None:
    assert stress_pattern("B IH0 L AH1 V AH0 D") == "010"
    assert rhyming_part("B IH0 L AH1 V AH0 D") == "AH1 V AH0 D"
    assert rhyming_part("DH") == "DH"


def test_function_words() -> None:
    assert is_function_word("The")
    assert is_function_word("thou")
    assert is_function_word("o'er")
    assert not is_function_word("heart")


def test_letter_to_sound_latin_stress_rule_for_long_words() -> None:
    # three or more syllables: penultimate when heavy, else antepenultimate (invented names)
    assert stress_pattern(guess_pronunciations("calomypae")[0]) == "0100"  # ca-LO-my-pae
    assert guess_pronunciations("calomypae")[0].endswith("IY0")  # Latin -ae
    assert stress_pattern(guess_pronunciations("varundesta")[0]) == "0010"  # heavy penult -des-
    # "-ian" and "-ia": the stress falls before the i, which is a syllable of its own
    (phones, *_) = guess_pronunciations("borlavian")
    assert stress_pattern(phones) == "0100"
    assert "IY0 AH0 N" in phones
    assert guess_pronunciations("tesmaria")[0].endswith("IY0 AH0")


def test_letter_to_sound_french_endings_take_final_stress() -> None:
    (phones, *_) = guess_pronunciations("brolliere")
    assert phones.endswith("EH1 R")  # -ière rhymes with "air"
    assert stress_pattern(phones).endswith("1")
    assert guess_pronunciations("palingue")[0].endswith("AE1 NG")
    assert guess_pronunciations("trombonette")[0].endswith("EH1 T")
    assert guess_pronunciations("gourdeur")[0].endswith("ER1")


def test_letter_to_sound_soft_consonants_and_r_before_vowels() -> None:
    assert guess_pronunciations("flirdge")[0].endswith("JH")  # not G
    assert guess_pronunciations("blonce")[0].endswith("N S")  # soft c before silent e
    assert guess_pronunciations("scintor")[0].startswith("S IH1")  # sc before i is /s/
    assert "R OW" in guess_pronunciations("zero")[0].replace("Z ", "")  # r opens "-ro"


def test_ence_nouns_come_from_their_ent_adjectives() -> None:
    assert pronunciations("quiescence") == ("K W AY0 EH1 S AH0 N S",)
    assert syllable_count(pronunciations("quiescency")[0]) == 4


def test_diphthong_er_words_have_a_one_syllable_form() -> None:
    for word in ("flower", "power", "tower", "bower", "higher"):
        counts = sorted(syllable_count(p) for p in pronunciations(word))
        assert counts[0] == 1 and counts[-1] == 2, word
    assert "F L AW1 R Z" in pronunciations("flowers")


def test_letter_to_sound_y_w_h_between_vowels() -> None:
    # y after a consonant is a vowel even before another vowel (hy-e-na: three syllables)
    assert syllable_count(guess_pronunciations("blyamor")[0]) == 3
    # w and h before a vowel open the next syllable instead of closing a digraph
    assert syllable_count(guess_pronunciations("tawaneka")[0]) == 4
    assert " W " in guess_pronunciations("tawaneka")[0]
    assert guess_pronunciations("shuhgah")[0].endswith("G AA0")  # final h is silent


def test_letter_to_sound_ous_and_re_endings() -> None:
    assert syllable_count(guess_pronunciations("florteous")[0]) == 3  # flor-te-ous
    assert guess_pronunciations("brascious")[0].endswith("SH AH0 S")  # -cious: one syllable
    assert guess_pronunciations("plorgeous")[0].endswith("JH AH0 S")
    assert guess_pronunciations("glimbre")[0].endswith("B ER0")  # British -re sounds -er
    assert pronunciations("sombre") == pronunciations("somber")  # spelled the American way


def test_letter_by_letter_readings_are_dropped_when_the_word_has_another() -> None:
    # CMUdict also lists *us* as U.S., *am* as A.M., *id* as I.D.
    assert pronunciations("us") == ("AH1 S",)
    assert pronunciations("am") == ("AE1 M",)
    assert pronunciations("Id") == ("IH1 D",)
    assert syllable_count(pronunciations("us")[0]) == 1
    # spellings without a vowel keep the letter-by-letter reading (TV); other words keep all
    assert pronunciations("the") == ("DH AH0", "DH AH1", "DH IY0")
    assert "T IY1 V IY1" in pronunciations("tv")
    assert len(pronunciations("every")) == 2


def test_a_pair_of_spelling_rules_never_rewrites_one_letter_twice() -> None:
    """*satyr* (not in CMUdict) was read as *satire* by two older-spelling rules, y -> i and then
    a magic e on that same i (three syllables, rhyming with *fire*); *yews* and *yester* were
    *Jews* and *jester* (y -> i -> j). Pairs of separate older spellings still modernise."""
    assert not in_dictionary("satyr")
    assert {syllable_count(p) for p in pronunciations("satyr")} == {2}
    assert {stress_pattern(p) for p in pronunciations("satyr")} == {"10"}
    assert all(rhyming_part(p).endswith("T ER0") for p in pronunciations("satyr"))
    assert pronunciations("yews")[0] == "Y UW1 Z"
    assert pronunciations("yester")[0] == "Y EH1 S T ER0"
    assert pronunciations("vnseene") == pronunciations("unseen")  # final e dropped, then v -> u
    assert pronunciations("trayne") == pronunciations("train")  # no e, then y -> i
    assert pronunciations("reuyld") == ("R IY0 V AY1 L D",)  # y -> i, then u -> v: reviled


def test_no_suffix_follows_an_inflection_that_ends_a_word() -> None:
    """Scots *naething* (nae + thing, "nothing") was read as *na* + -eth + -ing, three
    syllables; an -eth or -est form takes no further suffix."""
    readings = pronunciations("naething")
    assert {syllable_count(p) for p in readings} == {2}
    assert {stress_pattern(p) for p in readings} == {"10"}
    assert "N EY1 TH IH0 NG" in readings
    assert pronunciations("loveth")[0] == "L AH1 V IH0 TH"  # -eth itself still goes


def test_words_no_rule_reads_right_come_from_a_short_table() -> None:
    """*contumely* (Latin contumelia, -y for -ia) is no adverb in -ly: letter-to-sound made it
    con-TUME-ly, three syllables, a reading no dictionary gives."""
    readings = pronunciations("contumely")
    assert readings[0] == "K AH0 N T UW1 M AH0 L IY0"  # kən-ˈtü-mə-lē, four syllables
    assert {stress_pattern(p) for p in readings} == {"0100", "1020", "100"}
    assert rhyming_part(readings[0]) == "UW1 M AH0 L IY0"
    assert pronunciations("contumelies")[0] == "K AH0 N T UW1 M AH0 L IY0 Z"
    assert in_dictionary("contumely")


def test_long_s_is_read_only_where_a_print_could_have_set_it() -> None:
    """A word missing from CMUdict was read as a long-s spelling whenever an f -> s respelling
    was a word: *faints* "saints", *griefs* "griess", *sifter* "sister", *wifely* "wisely",
    *pelf* "pels". A print never set a long s at the end of a word nor a round s inside one,
    and a word built on a dictionary word is that word."""
    for word, phones in (
        ("faints", "F EY1 N T S"),  # faint + -s
        ("griefs", "G R IY1 F S"),
        ("wifely", "W AY1 F L IY0"),  # wife + -ly
        ("falser", "F AO1 L S ER0"),  # false + -er, its stem not the long-s *fals* "sals"
        ("unlifted", "AH0 N L IH1 F T IH0 D"),
        ("sifter", "S IH1 F T ER0"),  # a round s: not a print with long s
        ("pelf", "P EH1 L F"),  # a final f: no long s
        ("miff", "M IH1 F"),
    ):
        assert not in_dictionary(word), word
        assert pronunciations(word) == (phones,), word
    for old, new in (("faid", "said"), ("fo", "so"), ("praife", "praise"), ("thefe", "these")):
        assert pronunciations(old) == pronunciations(new), old
    assert pronunciations("ftriue") == pronunciations("strive")  # long s, then u -> v
    assert pronunciations("moft")[0] == "M OW1 S T"
    assert pronunciations("felf") == pronunciations("self")  # the final f stays an f
    assert pronunciations("ftaff") == pronunciations("staff")


def test_a_closed_syllable_without_e_keeps_its_short_vowel() -> None:
    """*cud*, *grot*, *tun* (not in CMUdict) were read as *cude* (K Y UW1 D), *grote*, *tune* by
    the rule that restores an older spelling's missing final *e*, and *cud* as *cue* + *-d*;
    *stropped*, *tunned* then lost their stems and took a syllable too many."""
    for word, phones in (
        ("cud", "K AH1 D"),
        ("grot", "G R AA1 T"),
        ("tun", "T AH1 N"),
        ("chid", "CH IH1 D"),
        ("cuds", "K AH1 D Z"),
        ("tunned", "T AH1 N D"),  # the doubled consonant: tun + -ed
        ("stropped", "S T R AA1 P T"),
        ("muss", "M AH1 S"),  # a final -ss is no plural
    ):
        assert not in_dictionary(word), word
        assert pronunciations(word) == (phones,), word
    # a silent e that a suffix dropped, or an older spelling of a longer word, is still read
    for word, phones in (
        ("prizd", "P R AY1 Z D"),
        ("resized", "R IY0 S AY1 Z D"),
        ("undazed", "AH0 N D EY1 Z D"),
        ("burdensom", "B ER1 D AH0 N S AH0 M"),
        ("subdud", "S AH0 B D UW1 D"),  # Spenser's subdued
    ):
        assert not in_dictionary(word), word
        assert pronunciations(word) == (phones,), word


def test_plain_f_words_and_a_word_with_both_a_real_f_and_a_long_s() -> None:
    """*weft*, *diffident*, *ruffian*, *fettle*, *fere* (not in CMUdict) took the long-s reading
    and became *west*, *dissident*, *Russian*, *settle*, *sere*; *firft* (first) had no long-s
    reading at all, since every *f* was read as *s* (*sirst*). Words printed with long s keep it."""
    for word, phones in (
        ("weft", "W EH1 F T"),
        ("diffident", "D IH1 F AH0 D AH0 N T"),
        ("ruffian", "R AH1 F IY0 AH0 N"),
        ("fettle", "F EH1 T AH0 L"),
        ("fere", "F IH1 R"),
        ("ruffians", "R AH1 F IY0 AH0 N Z"),  # an inflection keeps the stem's f
        ("wefts", "W EH1 F T S"),
    ):
        assert not cmu(word), word
        assert pronunciations(word)[0] == phones, word
    assert rhyme_kind("weft", "left") is Rhyme.PERFECT  # an eye rhyme while weft was 'west'
    for old, new in (("firft", "first"), ("fhift", "shift"), ("fayreft", "fairest")):
        assert not cmu(old), old
        assert pronunciations(old) == pronunciations(new), old
    assert rhyme_kind("firft", "burst") is Rhyme.PERFECT
    for old, new in (("faid", "said"), ("fo", "so"), ("moft", "most"), ("ftriue", "strive")):
        assert pronunciations(old)[0] == pronunciations(new)[0], old


def test_spelling_rules_skipped_where_they_do_not_match_give_what_sub_gives() -> None:
    """`_apply` runs a rule only where it matches (a replacement with a group reference, ``\\1``,
    is parsed on each `sub` call, a third of the older-spelling search): same result as `sub`."""
    from poemetric.form import phonetics
    from poemetric.form.phonetic_tables import LONG_S_RULE, SPELLING_RULES

    words = ("vnto", "haue", "ioy", "untill", "olde", "majestie", "sombre", "moft", "ston", "love")
    for rule, replacement in (*SPELLING_RULES, LONG_S_RULE):
        for word in words:
            assert phonetics._apply(rule, replacement, word) == rule.sub(replacement, word)
