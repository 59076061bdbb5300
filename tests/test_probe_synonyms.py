"""The synonym task's candidates: no homograph of a pronoun or a modal verb, and no plural made
of a plural. WordNet lists neither pronouns nor modals, only words spelt like them: the Lear
limerick whose fifth line ends "snapped up he" was corrupted to "snapped up helium", and the
Scots "where the burnie rows" to "where the burnie wordses" (*row*, a quarrel, is *words*)."""

from __future__ import annotations

import pytest

from poemetric.probes.builders import SourcePoem, build_pairs

#: Written out here, not imported: the builder's own list is what is under test.
PRONOUNS_AND_MODALS = ("he", "she", "me", "thee", "thou", "am", "can", "may", "will", "might")


@pytest.fixture(autouse=True)
def _wordnet() -> None:
    from conftest import wordnet_or_skip

    wordnet_or_skip()


def test_a_line_end_pronoun_or_modal_gets_no_synonym() -> None:
    from poemetric.probes.thesaurus import load_wordnet, word_synonyms

    wordnet = load_wordnet()
    for word, previous in [("he", "up"), ("am", "I"), ("thou", "art"), ("may", "you"),
                           ("can", "he"), ("will", "you")]:  # fmt: skip
        assert word_synonyms(wordnet, word, previous)[1] == [], word
    # a noun after a determiner or possessive is still one
    assert "power" in word_synonyms(wordnet, "might", "his")[1]


def test_the_lear_limerick_ending_in_he_is_not_corrupted_to_helium() -> None:
    from poemetric.data import load_dataset

    poems = [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems
    ]
    pairs = build_pairs(poems, ["synonym"], seed=0, per_poem=5)
    assert len(pairs) > 30
    replaced = {pair.details["word"].lower() for pair in pairs}
    assert not replaced & set(PRONOUNS_AND_MODALS), replaced & set(PRONOUNS_AND_MODALS)
    assert not any("helium" in pair.corrupted for pair in pairs)


def test_a_plural_line_end_word_never_gets_a_plural_of_a_plural() -> None:
    from poemetric.probes.thesaurus import load_wordnet, singular, word_synonyms

    wordnet = load_wordnet()
    pos, options = word_synonyms(wordnet, "rows", "burnie")
    assert pos == "n" and options, options
    assert "wordses" not in options
    for option in options:  # each the regular plural of a WordNet noun
        stem = singular(option)
        assert stem is not None and stem in wordnet.index["n"], option
    poem = "Ca' them where the heather grows,\nCa' them where the burnie rows,\n"
    (pair,) = build_pairs([SourcePoem("burns", poem, "AA")], ["synonym"], seed=0)
    assert "wordses" not in pair.corrupted
