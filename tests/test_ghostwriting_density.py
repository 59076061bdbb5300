"""Rhyme density, both variants, against values computed by hand and against the original
Raplyzer program (its values on the demo poems are in tests/data/raplyzer_demo_reference.json)."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import shutil
from pathlib import Path

import pytest

from poemetric.ghostwriting.raplyzer import (
    average_rhyme_length,
    clean_espeak_output,
    cmu_vowel_words,
    espeak_transcription,
    espeak_vowel_words,
    raplyzer_density,
    raplyzer_lines,
    rhyme_lengths,
)
from poemetric.ghostwriting.rhyme_density import entropy_weight, rhyme_density
from poemetric.ghostwriting.syllables import split_syllables

DATA = Path(__file__).parent / "data"
DEMO = Path(__file__).parent.parent / "datasets" / "demo" / "poems.csv"

COUPLET = "My heart is full of wonder\nas skies roll on in thunder"
NO_RHYME = "A small boat drifts\nunder grey clouds"
LINE = "the fine wine"


def test_couplet_rhyming_on_two_syllables() -> None:
    measured = rhyme_density(COUPLET)
    # 7 + 7 syllables (wonder and thunder have two each); the only rhyme is wonder / thunder,
    # AH1 (coda N) + ER0 on both sides: 4 rhymed syllables. 12 distinct tokens: weight 1.
    assert measured.rhymes == (("wonder", "thunder"),)
    assert (measured.syllables, measured.rhymed_syllables) == (14, 4)
    assert measured.entropy_weight == 1.0
    assert measured.density == pytest.approx(4 / 14)
    # Raplyzer, vowels: my a-i, heart A, is i, full U, of V, wonder V-3, as a, skies a-i,
    # roll o-U, on o, in i, thunder V-3. Rhyme lengths of words 2..12: skies/my 2 (a-i),
    # thunder/wonder 2 (V-3), every other word 0 (in/is are the same word up to their vowel;
    # one-vowel matches count 0): 4 / 11.
    words = cmu_vowel_words(COUPLET)
    assert ["".join(w.vowels) for w in words] == [
        "ai", "A", "i", "U", "V", "V3", "a", "ai", "oU", "o", "i", "V3",
    ]  # fmt: skip
    assert rhyme_lengths(words) == [0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2]
    assert raplyzer_density(COUPLET) == pytest.approx(4 / 11)


def test_a_line_repeated_ten_times_does_not_raise_either_density() -> None:
    repeated = "\n".join([LINE] * 10)
    once, ten = rhyme_density(LINE), rhyme_density(repeated)
    # Once: fine / wine rhyme, 'the' does not: 2 of 3 syllables, three distinct tokens.
    assert once.density == pytest.approx(2 / 3)
    # Ten times: the nine repetitions add 27 syllables and no rhyme (identical words never
    # rhyme, repeated lines take no part in matching): 2 of 30; weight H / log2 N =
    # log2(3) / log2(30) = 0.32301; density 0.02153.
    assert (ten.syllables, ten.rhymed_syllables) == (30, 2)
    assert ten.entropy_weight == pytest.approx(math.log2(3) / math.log2(30))
    assert ten.density == pytest.approx(2 / 30 * math.log2(3) / math.log2(30))
    assert ten.density < once.density
    # Raplyzer drops repeated lines: 'the' has only a schwa, wine / fine match on a-i: 2.
    assert raplyzer_density(LINE) == raplyzer_density(repeated) == 2.0


def test_raplyzer_drops_exact_repeats_only_and_never_bracketed_lines() -> None:
    """docs/ghostwriting.md said repetition never changes the Raplyzer score and that lines
    wholly in brackets are dropped. Neither was true (nor is it in the original program, which
    this must keep matching): only exact repeats are dropped, and brackets become spaces before
    the bracket rule could apply. The docs now state what happens, with these numbers."""
    # Exact repeats (after cleaning: a comma is cleaned away) are dropped ...
    assert raplyzer_lines("the fine wine\nthe fine wine,\n the fine wine ") == ["the fine wine"]
    assert raplyzer_density("the fine wine\nthe fine wine,") == 2.0
    # ... a repeat in other case or with a '!' is not, and raises the score: 6 words a-i,
    # rhyme lengths 2, 2, 2, 4, 6.
    shouted = "The fine wine\nthe fine wine\nTHE FINE WINE!"
    assert len(raplyzer_lines(shouted)) == 3
    assert rhyme_lengths(cmu_vowel_words(shouted)) == [2, 2, 2, 4, 6]
    assert raplyzer_density(shouted) == pytest.approx(3.2)
    # A bracketed line is kept as its words: Chorus (o) is a 13th word, no rhyme: 4 / 12.
    for label in ("[Chorus]", "(Chorus)"):
        lines = COUPLET.split("\n")
        text = f"{lines[0]}\n{label}\n{lines[1]}"
        assert raplyzer_lines(text)[1] == "Chorus"
        assert raplyzer_density(text) == pytest.approx(4 / 12)
    doc = " ".join((Path(__file__).parent.parent / "docs" / "ghostwriting.md").read_text().split())
    for said in (
        "*The fine wine / the fine wine / THE FINE WINE!* scores **3.2**, the line once **2.0**",
        "`[Chorus]` between its lines scores **0.333** instead of 0.364",
    ):
        assert said in doc, said
    assert "repetition never changes" not in doc and "wholly in brackets too" not in doc


def test_repeating_a_poems_last_line_never_raises_the_density() -> None:
    """Every demo poem with its last line repeated nine more times. Sonnets 18 and 116 end on a
    line that rhymes inside itself (lives / gives, never / ever): with the entropy weight alone
    their score would rise."""
    with DEMO.open(encoding="utf-8") as handle:
        poems = [row["content"] for row in csv.DictReader(handle)]
    for poem in poems:
        padded = poem + ("\n" + poem.splitlines()[-1]) * 9
        assert rhyme_density(padded).density < rhyme_density(poem).density
        assert raplyzer_density(padded) == raplyzer_density(poem)


def test_a_text_without_rhyme_scores_zero() -> None:
    measured = rhyme_density(NO_RHYME)
    assert (measured.syllables, measured.rhymed_syllables, measured.density) == (8, 0, 0.0)
    # Vowels: a a, small o, boat o-U, drifts i, under V-3, grey e-i, clouds a-U; the only
    # matches (grey/drifts on i, clouds/boat on U) are one vowel long and count 0.
    assert raplyzer_density(NO_RHYME) == 0.0


def test_both_measures_are_undefined_where_they_have_nothing_to_measure() -> None:
    """The Raplyzer factor of a text of under two words was 0 (a poem without rhyme) where the
    paper's density of a text without syllables is NaN: a one-word or empty poem pulled its
    author's mean Raplyzer score down. With no word after the first there is no rhyme length to
    average: NaN, as the density is without syllables."""
    for text in ("", "  \n", "!!!"):
        assert math.isnan(rhyme_density(text).density), repr(text)
        assert math.isnan(raplyzer_density(text)), repr(text)
    # One word, or one line repeated (repeated lines are dropped first): no second word.
    for text in ("Silence", "Silence\nSilence"):
        assert math.isnan(raplyzer_density(text)), repr(text)
        assert math.isnan(average_rhyme_length(cmu_vowel_words(text))), repr(text)
    assert raplyzer_density("Silence falls") == 0.0  # two words: defined, no rhyme


def test_entropy_weight_and_syllables() -> None:
    assert entropy_weight(["a", "b", "c", "d"]) == 1.0
    assert entropy_weight(["a", "a", "a", "a"]) == 0.0
    assert entropy_weight(["a"]) == 1.0
    # Word-internal syllables leave one consonant to the next syllable; the last keeps all.
    assert split_syllables(("M", "AA1", "R", "K", "AH0", "T")) == (
        ("AA", 1, ("R",)),
        ("AH", 0, ("T",)),
    )


def test_a_text_of_one_repeated_word_weighs_zero_not_minus_zero() -> None:
    """The weight of "I I I" was -0.0 (and so its density): `ghostwriting score` printed
    "-0.000" in both columns, and the CSVs held -0.0."""
    assert math.copysign(1.0, entropy_weight(["i", "i", "i"])) == 1.0
    measured = rhyme_density("I I I\nI I I I\n")
    assert math.copysign(1.0, measured.entropy_weight) == 1.0
    assert math.copysign(1.0, measured.density) == 1.0


def test_rhymes_run_from_a_stressed_vowel_to_a_word_end() -> None:
    found = rhyme_density("New York City gritty committee pity the fool").rhymes
    assert ("city gritty", "committee pity") in found  # a four-syllable mosaic rhyme
    assert rhyme_density("heaven every").rhymed_syllables == 0  # EH1 matches, the endings not
    assert rhyme_density("the cat\na dog").rhymed_syllables == 0  # unstressed the / a


def _reference() -> dict[str, object]:
    return dict(json.loads((DATA / "raplyzer_demo_reference.json").read_text(encoding="utf-8")))


def test_espeak_front_end_reproduces_the_original_raplyzer_on_the_demo_poems() -> None:
    poems = _reference()["poems"]
    assert isinstance(poems, list) and len(poems) == 16
    for poem in poems:
        words = espeak_vowel_words(clean_espeak_output(poem["transcription"]))
        assert len(words) == poem["words"], poem["title"]
        assert average_rhyme_length(words) == pytest.approx(poem["raplyzer"], abs=1e-9)


def test_cmu_front_end_stays_close_to_the_original() -> None:
    """CMUdict vowels instead of eSpeak's: same ordering of poems, small absolute differences
    (values recorded in docs/ghostwriting.md)."""
    reference = {p["title"]: p["raplyzer"] for p in _reference()["poems"]}  # type: ignore[union-attr]
    with DEMO.open(encoding="utf-8") as handle:
        texts = {row["title"]: row["content"] for row in csv.DictReader(handle)}
    differences = [abs(raplyzer_density(texts[t]) - value) for t, value in reference.items()]
    assert sum(differences) / len(differences) < 0.1
    assert max(differences) < 0.3


def test_the_cmu_values_in_the_docs_are_the_ones_the_code_gives() -> None:
    """docs/ghostwriting.md's table of the demo poems (original, `espeak`, `cmu`) and its
    summary line are what POEMetric computes now: the `cmu` column had gone stale for three
    poems (0.781, 0.851, 1.232 where the code gives 0.772, 0.841, 1.265)."""
    from scipy import stats

    doc = (Path(__file__).parent.parent / "docs" / "ghostwriting.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| ([^|]+?) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) \|$", doc, re.M)
    poems = _reference()["poems"]
    assert isinstance(poems, list) and len(rows) == len(poems) == 16
    with DEMO.open(encoding="utf-8") as handle:
        texts = {row["title"]: row["content"] for row in csv.DictReader(handle)}
    cmu = []
    for (title, original, espeak, documented), poem in zip(rows, poems, strict=True):
        assert poem["title"].startswith(title.split(" (")[0]), (title, poem["title"])
        assert float(original) == float(espeak) == round(poem["raplyzer"], 3), title
        cmu.append(raplyzer_density(texts[poem["title"]]))
        assert f"{cmu[-1]:.3f}" == documented, (title, cmu[-1])
    originals = [p["raplyzer"] for p in poems]
    differences = [abs(a - b) for a, b in zip(cmu, originals, strict=True)]
    said = (
        f"mean |difference| {sum(differences) / 16:.3f} (max {max(differences):.3f}), "
        f"Pearson {stats.pearsonr(cmu, originals)[0]:.3f}, "
        f"Spearman {stats.spearmanr(cmu, originals)[0]:.3f} on these 16"
    )
    assert said in " ".join(doc.split()), said


def _espeak_or_skip() -> None:
    if shutil.which("espeak-ng") is None:
        message = "espeak-ng is not installed (apt-get install espeak-ng; .ci/run does it)"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(message + "; under CI it must be present")
        pytest.skip(message)


def test_live_espeak_transcription_matches_the_recorded_one() -> None:
    _espeak_or_skip()
    poems = _reference()["poems"]
    with DEMO.open(encoding="utf-8") as handle:
        texts = {row["title"]: row["content"] for row in csv.DictReader(handle)}
    for poem in poems[:3]:  # type: ignore[index]
        live = espeak_transcription(texts[poem["title"]])
        assert live == clean_espeak_output(poem["transcription"])
        assert raplyzer_density(texts[poem["title"]], phonetics="espeak") == pytest.approx(
            poem["raplyzer"], abs=1e-9
        )


def test_rhyme_lengths_are_the_best_pairwise_rhyme_within_the_lookback() -> None:
    """`rhyme_lengths` skips the pairs whose last vowels differ (or whose words are the same)
    without measuring them; every length is still the longest pairwise rhyme in the window."""
    from poemetric.ghostwriting.raplyzer import _rhyme_length, _stream

    with DEMO.open(encoding="utf-8") as handle:
        texts = [row["content"] for row in csv.DictReader(handle)]
    poems = _reference()["poems"]
    assert isinstance(poems, list)
    streams = [cmu_vowel_words(text) for text in texts]
    streams += [espeak_vowel_words(clean_espeak_output(p["transcription"])) for p in poems]
    for words in streams:
        stream = _stream(words)
        for lookback in (1, 2, 15, 40):
            expected = [
                max((_rhyme_length(stream, e, later) for e in range(max(0, later - lookback), later)),
                    default=0)
                for later in range(1, len(words))
            ]  # fmt: skip
            assert rhyme_lengths(words, lookback) == expected


#: (syllables, rhymed syllables, entropy weight) of each demo poem in dataset order, computed by
#: an independent O(n^2) script written from docs/ghostwriting.md section 1 alone (raw CMUdict's
#: first pronunciation, which equals the project's for every word of these poems; every syllable
#: pair within 3 lines; runs trimmed to stressed-start / word-end; H / log2 N) on 2026-11-27.
DEMO_DENSITY_PARTS = [
    (140, 18, 0.909328),
    (144, 22, 0.896022),
    (143, 17, 0.881030),
    (145, 18, 0.903068),
    (143, 20, 0.883140),
    (149, 30, 0.924089),
    (140, 21, 0.915161),
    (38, 4, 0.903884),
    (39, 4, 0.869918),
    (38, 2, 0.926940),
    (39, 4, 0.914822),
    (39, 5, 0.884376),
    (86, 10, 0.896665),
    (56, 8, 0.949605),
    (114, 10, 0.858539),
    (143, 10, 0.835616),
]


def test_demo_densities_equal_an_independent_recomputation() -> None:
    with DEMO.open(encoding="utf-8") as handle:
        texts = [row["content"] for row in csv.DictReader(handle)]
    measured = [rhyme_density(text) for text in texts]
    parts = [(m.syllables, m.rhymed_syllables, round(m.entropy_weight, 6)) for m in measured]
    assert parts == DEMO_DENSITY_PARTS
    # Edge cases from the same script: one line (*night / bright*), a line of unknown words
    # (letter-to-sound), punctuation only and Chinese (no syllables: undefined, weight 1).
    edge = {
        "the night is bright": (4, 2, 1.0),
        "zorblax flimbrate quenzo\nglorptic shimbrate benzo": (12, 6, 1.0),
        "...\n!!!\n---": (0, 0, 1.0),
        "床前明月光\n疑是地上霜": (0, 0, 1.0),
    }
    for text, expected in edge.items():
        found = rhyme_density(text)
        assert (found.syllables, found.rhymed_syllables, found.entropy_weight) == expected
        assert math.isnan(found.density) == (expected[0] == 0)
