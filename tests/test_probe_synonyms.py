"""The synonym task's candidates: no homograph of a pronoun or a modal verb, and no plural made
of a plural. WordNet lists neither pronouns nor modals, only words spelt like them: the Lear
limerick whose fifth line ends "snapped up he" was corrupted to "snapped up helium", and the
Scots "where the burnie rows" to "where the burnie wordses" (*row*, a quarrel, is *words*)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from poemetric.probes.builders import SourcePoem, build_pairs

if TYPE_CHECKING:
    from poemetric.probes.thesaurus import WordNet

#: Written out here, not imported: the builder's own list is what is under test.
PRONOUNS_AND_MODALS = ("he", "she", "me", "thee", "thou", "am", "can", "may", "will", "might")


@pytest.fixture(autouse=True)
def _wordnet() -> None:
    from conftest import wordnet_or_skip

    wordnet_or_skip()


def word_synonyms(
    wordnet: WordNet, word: str, previous: str | None = None
) -> tuple[str | None, list[str]]:
    """(part of speech, every candidate word of `synonym_candidates`, whatever its verdict)."""
    from poemetric.probes.thesaurus import synonym_candidates

    pos, candidates = synonym_candidates(wordnet, word, previous)
    return pos, [candidate.word for candidate in candidates]


def test_a_line_end_pronoun_or_modal_gets_no_synonym() -> None:
    from poemetric.probes.thesaurus import load_wordnet

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


def test_a_line_end_pronoun_is_no_noun_to_swap() -> None:
    """rhyme_word_swap swaps two words of one part of speech: Lear's "snapped up he" read as the
    noun *he* (helium) and traded places with "a puppy"."""
    from poemetric.data import load_dataset
    from poemetric.probes.thesaurus import load_wordnet, word_pos

    assert word_pos(load_wordnet(), "he", "up") is None
    assert word_pos(load_wordnet(), "might", "his") == "n"
    assert word_pos(load_wordnet(), "May", "of") == "n"  # "the darling buds of May"
    assert word_pos(load_wordnet(), "me", "to") is None
    poems = [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems
    ]
    pairs = build_pairs(poems, ["rhyme_word_swap"], seed=0, per_poem=5)
    swapped = {word.lower() for pair in pairs for word in pair.details["words"]}
    assert "puppy" not in swapped and not swapped & set(PRONOUNS_AND_MODALS)


def test_a_plural_line_end_word_never_gets_a_plural_of_a_plural() -> None:
    from poemetric.probes.thesaurus import load_wordnet, singular

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


#: Synonyms the task used on the Lear limericks when it pooled every WordNet sense and took the
#: first candidate: rare words (zipf < 3) or senses SemCor never tags for the original word.
RARE_OR_FAR_FETCHED = {
    "frumps": "dogs", "guy": "cat", "malleus": "hammer", "swither": "stew", "mesa": "table",
    "nozzle": "nose", "tittup": "prance", "trefoil": "clover", "dishful": "dish",
    "sizing": "size", "belowground": "underground", "islets": "isles",
}  # fmt: skip


def _lear_synonym_pairs(per_poem: int) -> list:
    from poemetric.data import load_dataset

    poems = [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems
    ]
    return build_pairs(poems, ["synonym"], seed=0, per_poem=per_poem)


def test_a_synonym_is_a_common_word_in_a_sense_semcor_attests() -> None:
    """`dogs` became `frumps` (sense 2 of *dog*, untagged in SemCor), `prance` `tittup` (not in
    wordfreq's lists): the task measured word oddity, not rhyme."""
    from wordfreq import zipf_frequency

    from poemetric.probes.thesaurus import load_wordnet

    wordnet = load_wordnet()
    pairs = _lear_synonym_pairs(per_poem=5)
    assert len(pairs) >= 15
    for pair in pairs:
        chosen = pair.details["synonym"].lower()
        assert chosen not in RARE_OR_FAR_FETCHED, (pair.details["word"], chosen)
        assert zipf_frequency(chosen, "en") >= 3.0, chosen
        # the sense the two lemmas share is one WordNet ranks by SemCor frequency: among the
        # first `tagsense_cnt` offsets of the original's index line, read here from the file
        pos = {"noun": "n", "verb": "v", "adjective": "a", "adverb": "r"}[pair.details["pos"]]
        lemma_old, lemma_new = pair.details["lemmas"]
        name = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}[pos]
        line = next(
            entry.split()
            for entry in (wordnet.folder / f"index.{name}").read_text().splitlines()
            if entry.startswith(lemma_old + " ")
        )
        count = int(line[2])
        tagged = set(int(f) for f in line[-count:][: int(line[-count - 1])])
        assert tagged & set(wordnet.index[pos][lemma_new]), (lemma_old, lemma_new)
    words = {pair.details["word"].lower(): pair for pair in pairs}
    assert "dogs" not in words  # its one SemCor sense has no one-word synonym
    assert "prance" not in words  # "with one prance": a noun, which has no synonym


def test_every_candidate_keeps_its_verdict_sense_and_frequency() -> None:
    from poemetric.probes.thesaurus import load_wordnet, synonym_candidates

    wordnet = load_wordnet()
    pos, candidates = synonym_candidates(wordnet, "dogs", "spotty")
    assert pos == "n"
    verdicts = {c.word: c.verdict for c in candidates}
    assert verdicts["frumps"] == "rare sense: sense 2; SemCor tags sense 1 only"
    _, candidates = synonym_candidates(wordnet, "prance", "to")
    first = candidates[0]
    assert (first.word, first.sense, first.verdict) == ("tittup", 1, "rare: zipf 0.0")
    (pair,) = [p for p in _lear_synonym_pairs(per_poem=1) if p.details["word"] == "glue"]
    assert pair.details["candidates"] == [
        {"word": "gum", "verdict": "ok", "sense": 1, "zipf": 3.94},
        {"word": "mucilage", "verdict": "rare: zipf 1.8", "sense": 1, "zipf": 1.77},
    ]


def test_without_wordfreq_the_synonym_task_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from poemetric.probes.thesaurus import ThesaurusUnavailable

    monkeypatch.setitem(sys.modules, "wordfreq", None)  # import wordfreq -> ImportError
    poem = "There was an Old Man with a beard,\nWho said, 'It is just as I feared!'\n"
    with pytest.raises(ThesaurusUnavailable, match=r"pip install 'poemetric\[probes\]'"):
        build_pairs([SourcePoem("beard", poem, "AA")], ["synonym"], seed=0)


def test_a_sense_wordnet_marks_obscene_slang_or_colloquial_gives_no_synonym() -> None:
    """With the frequency floor alone, the demo limerick's "chased by a virulent bull" became
    "a virulent shit" (*bruiser* is rare): sense 3 of *bull* (nonsense) is SemCor-attested and
    *shit* is common, but WordNet marks the synset as obscenity (a `;u` usage-domain
    pointer)."""
    from poemetric.data import load_dataset
    from poemetric.probes.thesaurus import load_wordnet, synonym_candidates

    _, candidates = synonym_candidates(load_wordnet(), "bull", "virulent")
    verdicts = {c.word: c.verdict for c in candidates}
    assert verdicts["shit"] == "register: obscenity"
    assert verdicts["bruiser"] == "rare: zipf 2.6"
    _, candidates = synonym_candidates(load_wordnet(), "somewhere", "go")
    assert {c.word: c.verdict for c in candidates}["someplace"] == "register: colloquialism"
    poems = [SourcePoem(p.poem_id, p.content, p.rhyme_pattern) for p in load_dataset("demo").poems]
    pairs = build_pairs(poems, ["synonym"], seed=0, per_poem=5)
    assert pairs
    assert not [p for p in pairs if p.details["synonym"].lower() in {"shit", "horseshit"}]


@pytest.mark.parametrize(
    ("previous", "word", "pos", "synonym"),
    [
        ("one", "prance", "n", None),  # a numeral: not the verb (*swagger*)
        ("twenty", "clogs", "n", None),  # a numeral before a plural: clog is a verb in SemCor
        ("strong", "glue", "n", "gum"),  # an adjective: not the verb *glue*
        ("by", "mistake", "n", "error"),  # a preposition (mistake: noun 21, verb 11 in SemCor)
        ("the", "crows", "n", None),  # a plural after a determiner (crow: noun 3, verb 5)
        ("with", "smiles", "n", None),  # ... after a preposition (smile: noun 29, verb 79)
        ("it", "does", None, None),  # after a subject pronoun: a verb's -s, not plural *doe*
    ],
)
def test_the_word_before_a_line_end_word_tells_its_part_of_speech(
    previous: str, word: str, pos: str | None, synonym: str | None
) -> None:
    """Lear's limericks: a numeral, a preposition or an adjective before a line-end word makes
    it a noun, not WordNet's dominant verb ("with one prance" had become "with one swagger",
    from the verb; "very strong glue" was read as the verb *glue*, "by mistake" and "the
    crows" as ambiguous). A plural after a determiner or preposition is a noun's."""
    from poemetric.probes.thesaurus import load_wordnet, synonym_candidates

    found, candidates = synonym_candidates(load_wordnet(), word, previous)
    assert found == pos
    ok = [c.word for c in candidates if c.verdict == "ok"]
    assert (ok[0] if ok else None) == synonym, ok


def test_a_cue_that_is_no_cue() -> None:
    """A past form WordNet lists only as an adjective (*said*) is no adjective; a pronoun after
    a preposition is no noun (*of me* would give *Maine*)."""
    from poemetric.probes.thesaurus import load_wordnet, word_pos

    wordnet = load_wordnet()
    assert word_pos(wordnet, "hum", "said") == "v"
    assert word_synonyms(wordnet, "me", "of") == (None, [])
    assert word_synonyms(wordnet, "thee", "with") == (None, [])


def test_the_lear_pairs_take_the_part_of_speech_of_the_line() -> None:
    pairs = {p.details["word"]: p for p in _lear_synonym_pairs(per_poem=1)}
    assert "prance" not in pairs
    assert (pairs["glue"].details["synonym"], pairs["glue"].details["pos"]) == ("gum", "noun")
    assert "With some very strong gum," in pairs["glue"].corrupted
    assert pairs["mistake"].details["synonym"] == "error"


def test_a_synonym_never_needs_the_other_article() -> None:
    """After *a* or *an* a synonym must take the same article as the word it replaces: "a change"
    had become "a alteration" and "a fall" "a autumn" (4 of the 458 synonym pairs of the
    authors' dataset, seed 0, three per poem), a grammatical slip besides the missed rhyme."""
    poem = (
        "The weather was due for a change,\n"
        "And the clouds were beginning to range;\n"
        "The wind took a turn,\n"
        "The leaves did not burn,\n"
        "And the sky was unusually strange.\n"
    )
    pairs = build_pairs([SourcePoem("weather", poem, "AABBA")], ["synonym"], seed=0, per_poem=5)
    (pair,) = [pair for pair in pairs if pair.details["word"] == "change"]
    verdicts = {c["word"]: c["verdict"] for c in pair.details["candidates"]}
    assert verdicts["alteration"] == "article: a alteration"
    assert pair.details["synonym"] == "modification"
    assert pair.corrupted.split("\n")[0] == "The weather was due for a modification,"


def test_the_article_a_word_takes_is_heard_not_spelt() -> None:
    from poemetric.probes.poem import takes_an

    assert [takes_an(w) for w in ("hour", "honest", "apple", "X")] == [True] * 4
    assert [takes_an(w) for w in ("unicorn", "one", "change", "Europe")] == [False] * 4


def test_an_abbreviation_is_no_synonym() -> None:
    """*hour* had the synonym *hr*, common only as an abbreviation: "there was an hr"."""
    from poemetric.probes.thesaurus import load_wordnet, synonym_candidates

    _, candidates = synonym_candidates(load_wordnet(), "hour", "an")
    verdicts = {candidate.word: candidate.verdict for candidate in candidates}
    assert verdicts["hr"] == "abbreviation"


def test_two_rhyme_words_trade_places_only_where_each_fits_the_others_article() -> None:
    """`rhyme_word_swap` could leave a word after the other article: in the authors' dataset
    "And some without a eye", "as I have loved a end" (seed 0, 3 per poem)."""
    poem = (
        "He looked at the moon with an eye\n"
        "That saw nothing else but a sky,\n"
        "He ran to the wood,\n"
        "As fast as he could,\n"
        "And sat down to eat up a pie.\n"
    )
    pairs = build_pairs(
        [SourcePoem("moon", poem, "AABBA")], ["rhyme_word_swap"], seed=0, per_poem=5
    )
    assert [sorted(pair.details["words"]) for pair in pairs] == [["pie", "sky"]]
