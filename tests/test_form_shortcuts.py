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


def test_best_scheme_explains_the_winner_as_scoring_every_candidate_fully_would() -> None:
    """`best_scheme` scores candidates without findings and only the winner with them: same name,
    score, note and findings as the full scoring of every candidate, for every corpus poem read
    against the sonnet schemes (octave/sestet parts) and against ballad stanza layouts."""
    from poemetric.form.forms import SONNET_SCHEMES
    from poemetric.form.parsing import parse_poem
    from poemetric.form.rhyme_scoring import (
        SchemeUnit,
        best_scheme,
        rhyme_words,
        score_scheme,
        stanzaic_units,
    )

    def full(words: tuple[str, ...], candidates: list, **options: object) -> tuple[str, object]:
        best_name, best, best_value = candidates[0][0], None, -1.0
        for name, units in candidates:
            result = score_scheme(words, units, pattern_name=name, **options)  # type: ignore[arg-type]
            value = -0.5 if result.score is None else result.score
            if value > best_value + 1e-9:
                best_name, best, best_value = name, result, value
        return best_name, best

    compared = 0
    for case in load_corpus():
        poem = parse_poem(case.text)
        words = rhyme_words(poem.lines)
        n = min(len(poem.lines), 14)
        sonnet = [
            (name, [SchemeUnit(tuple(range(n)), s[:n])]) for name, s in SONNET_SCHEMES.items()
        ]
        parts = (range(0, 8), range(8, max(len(poem.lines), 14)))
        ballad = [
            (s, layout) for s in ("ABCB", "ABAB", "AABB") for layout in stanzaic_units(poem, s)
        ]
        for candidates, options in (
            (sonnet, {"parts": parts, "lines": poem.lines}),
            (ballad, {"lines": poem.lines, "incidental_ok": True}),
        ):
            expected = full(words, candidates, **options)
            assert best_scheme(words, candidates, **options) == expected
            compared += 1
    assert compared > 200


def test_length_tables_match_their_stored_realisations() -> None:
    from poemetric.form.meter_templates import MAX_FEET, MAX_SYLLABLES, _realisations, length_table

    for syllables in range(1, MAX_SYLLABLES + 1):
        rows = _realisations(syllables)
        table = length_table(syllables)
        if not rows:
            assert table is None
            continue
        assert table is not None
        strong = [[float(ch == "s") for ch in row[2]] + [row[3]] for row in rows]
        assert table.strong.tolist() == strong
        assert table.patterns == tuple(row[2] for row in rows)
        for (foot_index, feet), (start, end) in table.group_rows.items():
            assert {(r[0], r[1]) for r in rows[start:end]} == {(foot_index, feet)}
        assert sum(end - start for start, end in table.group_rows.values()) == len(rows)
        cells = [rows[start][0] * (MAX_FEET + 1) + rows[start][1] for start in table.group_starts]
        assert table.group_cells.tolist() == cells
