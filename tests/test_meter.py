"""Meter scanner: well-known lines, variations, meter strings, poem scores, litlab regression."""

from __future__ import annotations

import csv
import zlib
from collections import defaultdict
from pathlib import Path

import pytest

import poemetric.form.meter as meter_module
from poemetric.form.meter import (
    FIT_CUTOFF,
    MeterSpec,
    MeterTemplate,
    beat_count,
    line_fit,
    meter_score,
    parse_meter,
    scan_line,
    scan_poem,
)
from poemetric.form.meter_words import tokenize, word_options
from poemetric.form.phonetics import pronunciations, stress_pattern

SHAKESPEARE_18 = [
    "Shall I compare thee to a summer's day?",
    "Thou art more lovely and more temperate:",
    "Rough winds do shake the darling buds of May,",
    "And summer's lease hath all too short a date:",
]
GRAY_ELEGY = [
    "The curfew tolls the knell of parting day,",
    "The lowing herd wind slowly o'er the lea,",
    "The plowman homeward plods his weary way,",
    "And leaves the world to darkness and to me.",
]
LEAR_LIMERICK = [
    "There was an Old Man in a tree,",
    "Who was horribly bored by a Bee;",
    'When they said, "Does it buzz?"',
    'He replied, "Yes, it does!',
    "It's a regular brute of a Bee!\"",
]
AMAZING_GRACE = [
    "Amazing grace! how sweet the sound",
    "That saved a wretch like me!",
    "I once was lost, but now am found,",
    "Was blind, but now I see.",
]


def test_tokenize_keeps_compounds_and_apostrophe_forms() -> None:
    assert tokenize("O'er the hill-top, 'tis lov'd — and heav'n!") == [
        "O'er",
        "the",
        "hill-top",
        "'tis",
        "lov'd",
        "and",
        "heav'n",
    ]


def test_shakespeare_and_gray_scan_as_regular_iambic_pentameter() -> None:
    for line in [SHAKESPEARE_18[0], GRAY_ELEGY[0], GRAY_ELEGY[2]]:
        scan = scan_line(line)
        assert scan.pattern == "wswswswsws", line
        assert scan.template == MeterTemplate("iambic", 5)
        assert scan.fit > 0.7
    assert scan_line(GRAY_ELEGY[0]).fit == pytest.approx(1.0)


def test_anapestic_tetrameter_lines() -> None:
    clement = "And the mouse in the house was as still as a stone,"  # written for this test
    scan = scan_line(clement, "anapestic")
    assert scan.template == MeterTemplate("anapestic", 4)
    assert scan.pattern == "wwswwswwswws"
    assert line_fit(clement, "anapestic", 4) >= FIT_CUTOFF
    assert line_fit(clement, "anapestic", 4) > line_fit(clement, "trochaic", 4)
    scott = "Through all the wide Border his steed was the best;"
    assert scan_line(scott, "anapestic", 4).pattern == "wswwswwswws"


def test_abbreviations_are_pronounced_and_monosyllables_keep_their_syllable() -> None:
    assert scan_line("St. Agnes' Eve", "iambic", 2).syllables == 4
    # synaloepha joins a weak final vowel or th' to a vowel, never a whole word like "my"
    assert scan_line("He walked to my own front door.").syllables == 7


def test_batch_analysis_matches_single_lines() -> None:
    lines = [*GRAY_ELEGY, *LEAR_LIMERICK]
    meter_module.clear_caches()
    together = [scan_line(line) for line in lines if meter_module.analyse(lines)]
    meter_module.clear_caches()
    alone = [scan_line(line) for line in lines]
    assert together == alone


def test_longfellow_trochaic_tetrameter() -> None:
    scan = scan_line("By the shining Big-Sea-Water,")
    assert scan.template == MeterTemplate("trochaic", 4)
    assert scan.pattern == "swswswsw"
    assert line_fit("By the shining Big-Sea-Water,", "trochaic", 4) > line_fit(
        "By the shining Big-Sea-Water,", "iambic", 5
    )


def test_limerick_line_has_three_beats_and_fits_anapestic_trimeter() -> None:
    assert beat_count(LEAR_LIMERICK[1]) == 3
    assert line_fit(LEAR_LIMERICK[0], "anapestic", 3) >= FIT_CUTOFF
    assert [beat_count(line, "anapestic") for line in LEAR_LIMERICK] == [3, 3, 2, 2, 3]


def test_variations_initial_inversion_feminine_ending_catalexis() -> None:
    inverted = scan_line("Look in thy glass and tell the face thou viewest")
    assert inverted.pattern == "swwswswswsw"
    assert "initial inversion" in inverted.variations
    assert "feminine ending" in inverted.variations
    fancy = scan_line("Tell me where is fancy bred,")
    assert fancy.template == MeterTemplate("trochaic", 4)
    assert fancy.pattern == "swswsws"
    assert "catalexis" in fancy.variations
    assert scan_line("Double, double toil and trouble;").pattern == "swswswsw"


def test_elision_is_chosen_when_the_meter_needs_it() -> None:
    # "glorious" slurred to two syllables keeps the trimeter
    slurred = scan_line("The glorious sun is up", "iambic", 3)
    assert slurred.syllables == 6
    assert "slur" in slurred.variations
    # "flower", like "fire", has a one-syllable dictionary form (no elision needed) and still
    # reads as two syllables when the line wants them
    assert scan_line("The flower that smiles today", "iambic", 3).variations == ()
    assert scan_line("A flower in the crannied wall", "iambic", 4).syllables == 8
    assert scan_line("And heav'n and earth are still", "iambic", 3).syllables == 6


@pytest.mark.parametrize(
    ("line", "foot", "feet", "pattern"),
    [
        # satyr: two syllables (it was read as satire, three, fitting only with a slur)
        ("A satyr danced upon the hill", "iambic", 4, "wswswsws"),
        # Scots naething: two syllables, no elision needed (it was na + -eth + -ing)
        ("An' naething, now, to big a new ane,", "iambic", 4, None),
        # Hood, The Bridge of Sighs, as the Literary Lab annotates it: con-TU-me-ly
        ("Spurr'd by contumely,", "dactylic", 2, "swwsww"),
    ],
)
def test_words_missing_from_cmudict_scan_with_their_own_syllables(
    line: str, foot: str, feet: int, pattern: str | None
) -> None:
    scan = scan_line(line, foot, feet)
    assert scan.fit >= FIT_CUTOFF
    assert not {"slur", "syncope"} & set(scan.variations)
    if pattern is not None:
        assert scan.pattern == pattern


def test_final_syllabic_sonorant_after_a_stop_or_voiceless_fricative_is_never_dropped() -> None:
    """*written*, *often*, *single* keep two syllables even when a metre would like one fewer
    (seen in real LLM lines); *heav'n*, *ev'n* and *list'ning* still elide."""
    for word in ("written", "often", "listen", "single", "people", "forgotten"):
        syllables = {len(option.classes) for option in word_options(word)}
        assert min(syllables) == len(stress_pattern(pronunciations(word)[0])), word
    assert {len(o.classes) for o in word_options("heaven")} == {1, 2}
    assert {len(o.classes) for o in word_options("listening")} >= {2, 3}
    assert scan_line("Often was love", "trochaic", 2).syllables == 4


def test_no_syncope_before_a_stem_final_s_or_t() -> None:
    """*moment*, *silence*, *talent* keep two syllables (after a sonorant, S and T belong to the
    stem); before a voiced inflection the schwa may still go (*heav'ns*)."""
    for word in ("moment", "silence", "talent", "patience"):
        assert {len(option.classes) for option in word_options(word)} == {2}, word
    assert {len(o.classes) for o in word_options("heavens")} == {1, 2}


def test_llm_lines_counted_by_hand_are_well_formed() -> None:
    """bench/data/llm_meter_lines.tsv: one w/s letter per hand-counted syllable, ids unique."""
    path = Path(__file__).resolve().parent.parent / "bench" / "data" / "llm_meter_lines.tsv"
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert len(rows) >= 100 and len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert set(row["stresses"]) <= {"w", "s"} and "s" in row["stresses"], row["id"]
        assert len(row["stresses"]) == int(row["syllables"]), row["id"]
        assert row["line"] == row["line"].strip() and row["form"], row["id"]


def test_line_fit_prefers_the_true_meter() -> None:
    line = GRAY_ELEGY[3]
    assert line_fit(line, "iambic", 5) > 0.7
    assert line_fit(line, "iambic", 5) > line_fit(line, "iambic", 3)
    assert line_fit(line, "iambic", 5) > line_fit(line, "dactylic", 4)
    assert line_fit("", "iambic", 5) == 0.0


def test_scan_line_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="unknown foot"):
        scan_line("The curfew tolls", "spondaic")
    with pytest.raises(ValueError, match="number of feet"):
        scan_line("The curfew tolls", "iambic", 12)


def test_scan_poem_finds_dominant_meter() -> None:
    poem = scan_poem([*GRAY_ELEGY, "", *SHAKESPEARE_18])
    assert (poem.foot, poem.feet) == ("iambic", 5)
    assert poem.template == MeterTemplate("iambic", 5)
    assert len(poem.fits) == 8 and min(poem.fits) > 0.4
    assert scan_poem([]).foot is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Iambic pentameter", MeterSpec("iambic pentameter", "iambic", 5)),
        ("Iambic tetrameter", MeterSpec("iambic tetrameter", "iambic", 4)),
        ("Anapestic trimeter", MeterSpec("anapestic trimeter", "anapestic", 3)),
        ("Trochaic", MeterSpec("trochaic", "trochaic", None)),
        ("iambic", MeterSpec("iambic", "iambic", None)),
        ("  IAMBIC   PENTAMETER ", MeterSpec("iambic pentameter", "iambic", 5)),
    ],
)
def test_parse_meter_foot_and_length(text: str, expected: MeterSpec) -> None:
    assert parse_meter(text) == expected


def test_parse_meter_stanza_meters_and_empty() -> None:
    common = parse_meter("Common meter")
    assert common is not None and common.beat_pattern == (4, 3) and common.foot == "iambic"
    ballad = parse_meter("Ballad meter")
    assert (
        ballad is not None and ballad.beat_pattern == (4, 3) and ballad.fallback_pattern == (4, 4)
    )
    limerick = parse_meter("limerick")
    assert limerick is not None and limerick.beat_pattern == (3, 3, 2, 2, 3)
    for empty in (None, "", "  ", "nan", "free verse"):
        assert parse_meter(empty) is None


@pytest.mark.parametrize(
    "text", ["sprung rhythm", "iambic trochaic", "pentameter hexameter", "xyz"]
)
def test_parse_meter_unknown_raises(text: str) -> None:
    with pytest.raises(ValueError, match="unrecognised meter"):
        parse_meter(text)


def test_meter_score_requested_meters() -> None:
    score, verdicts = meter_score(GRAY_ELEGY + SHAKESPEARE_18, "Iambic pentameter")
    assert score == 1.0 and all(v.fits for v in verdicts)
    wrong, _ = meter_score(GRAY_ELEGY, "anapestic dimeter")
    assert wrong == 0.0
    assert meter_score(GRAY_ELEGY, None) == (1.0, [])


def test_meter_score_common_meter_and_limerick() -> None:
    assert meter_score(AMAZING_GRACE, "Common meter")[0] == 1.0
    assert meter_score(AMAZING_GRACE, "Ballad meter")[0] == 1.0
    assert meter_score(AMAZING_GRACE, "Iambic pentameter")[0] == 0.0
    # 4-4-4-4 (long meter) lines are accepted for a ballad only at half weight
    long_meter, _ = meter_score([AMAZING_GRACE[0], AMAZING_GRACE[2]] * 2, "Ballad meter")
    assert 0.0 < long_meter <= 0.5
    limerick, verdicts = meter_score(LEAR_LIMERICK, "limerick")
    assert limerick >= 0.8
    assert [v.expected.split()[0] for v in verdicts] == ["3", "3", "2", "2", "3"]


def _litlab_subset(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Poems with odd PoemID hash (one fixed half), as (line, gold parse) pairs."""
    poems: dict[str, list[tuple[str, str]]] = defaultdict(list)
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if row.get("line") and row.get("parse") and zlib.crc32(row["PoemID"].encode()) % 2 == 0:
                poems[row["PoemID"]].append((row["line"], row["parse"]))
    return poems


@pytest.mark.shared_data
def test_litlab_accuracy_regression_floor(litlab_meter_sample: Path) -> None:
    poems = _litlab_subset(litlab_meter_sample)
    lines_ok = syllables_ok = syllables = total = 0
    for pairs in poems.values():
        result = scan_poem([line for line, _ in pairs])
        for scan, (_, gold) in zip(result.line_scans, pairs, strict=True):
            total += 1
            syllables += len(gold)
            lines_ok += scan.pattern == gold
            if len(scan.pattern) == len(gold):
                syllables_ok += sum(a == b for a, b in zip(scan.pattern, gold, strict=True))
    assert total > 400
    # floors well below the measured numbers in docs/meter.md (a regression guard)
    assert lines_ok / total >= 0.68
    assert syllables_ok / syllables >= 0.80
