"""The form checker's speed shortcuts give exactly what the full computations give."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from poemetric.form import lexicon, meter, meter_search
from poemetric.form.rhyme import RhymeKind, classify_rhyme, perfect_rhyme
from poemetric.form.rhyme_sounds import _may_resemble, key_features, rhyme_key, rime_category

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from form_corpus import load_corpus

RHYME_WORDS = [
    "day",
    "away",
    "today",
    "sea",
    "free",
    "melody",
    "eternity",
    "sky",
    "die",
    "fire",
    "higher",
    "flower",
    "power",
    "hour",
    "our",
    "love",
    "move",
    "prove",
    "above",
    "grove",
    "singing",
    "ring",
    "thing",
    "heaven",
    "given",
    "seven",
    "balances",
    "lances",
    "room",
    "storm",
    "tomb",
    "bliss",
    "paradise",
    "this",
    "cadences",
    "time",
    "rhyme",
    "thyme",
    "night",
    "knight",
    "delight",
    "sonnet",
    "upon",
    "on",
    "gone",
    "alone",
    "stone",
    "one",
    "sun",
    "done",
    "fair",
    "prayer",
    "there",
    "here",
    "dear",
    "were",
    "lov'd",
    "heav'n",
    "o'er",
    "pow'r",
    "economic",
    "either",
]


@pytest.fixture(scope="module")
def dictionary_keys() -> list[str]:
    """Rhyme keys of CMUdict words sorted by their ending, so neighbours end alike."""
    table = lexicon.table()
    words = sorted(table)[::40]
    keys = {rhyme_key(p) for w in words for p in table[w].split("|")}
    return sorted(keys, key=lambda key: key.split()[::-1])


def test_prefilter_never_hides_a_category(dictionary_keys: list[str]) -> None:
    checked = 0
    for i, key_a in enumerate(dictionary_keys):
        for key_b in dictionary_keys[i + 1 : i + 25]:
            if not _may_resemble(key_features(key_a), key_features(key_b)):
                assert rime_category(key_a, key_b) is None, (key_a, key_b)
                checked += 1
    assert checked > 1000  # the filter does rule pairs out


def test_perfect_rhyme_agrees_with_classify_rhyme() -> None:
    for a in RHYME_WORDS:
        for b in RHYME_WORDS:
            expected = classify_rhyme(a, b) is RhymeKind.PERFECT
            assert perfect_rhyme(a, b) == expected, (a, b)


@pytest.mark.parametrize(
    "line",
    [
        "Shall I compare thee to a summer's day?",
        "And all our stern orders.",
        "The curfew tolls the knell of parting day,",
        "Heav'n's wide-flung balances o'er the wandering sea",
        "",
    ],
)
def test_syllable_count_is_the_free_scan(line: str) -> None:
    assert meter.syllable_count(line) == meter.scan_line(line).syllables


def test_reading_length_is_the_length_of_the_rebuilt_reading() -> None:
    """Every (foot, feet) of every line of the public-domain corpus, also after the per-class-
    string costs were forgotten (then the reading is rebuilt)."""
    corpus = load_corpus()
    lines = list(
        dict.fromkeys(line.strip() for c in corpus for line in c.text.splitlines() if line.strip())
    )
    assert len(lines) > 1000
    checked = 0
    for analysis in meter.analyse(lines):
        for foot in meter_search.FOOT_TYPES:
            for feet in range(1, meter_search.MAX_FEET + 1):
                reading = analysis.reading(foot, feet)
                expected = None if reading is None else len(reading.labels)
                assert analysis.reading_length(foot, feet) == expected
                checked += expected is not None
    assert checked > 10_000
    analysis = meter.analyse([lines[0]])[0]
    meter_search._CLASS_COSTS.clear()
    reading = analysis.reading("iambic", 5)
    assert reading is not None and analysis.reading_length("iambic", 5) == len(reading.labels)
