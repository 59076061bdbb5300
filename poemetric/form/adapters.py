"""The single place where form checking calls the phonetics, rhyme and meter modules.

Form rules only use the small functions below (end-word rhyme class, per-line metre fit, beats,
syllables and scansion of a line). Each one is cached per word pair or per line, which is what makes
checking thousands of poems per second possible: poems share words, and repeated runs share lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from poemetric.form import meter, meter_words, rhyme
from poemetric.form.historical_rhymes import historical_rhyme
from poemetric.form.meter_reading import MeterReading
from poemetric.form.meter_reading import read_meter as read_meter_annotation
from poemetric.form.middle_english import middle_english_phones
from poemetric.form.phonetics import pronunciations
from poemetric.form.rhyme import RhymeKind, classify_rhyme
from poemetric.form.rhyme_sounds import SoundRelation, compare_pronunciations


class Rhyme(StrEnum):
    """How two end words rhyme, strongest first."""

    IDENTICAL = "identical"
    PERFECT = "perfect"
    SLANT = "slant"
    EYE = "eye"
    NEAR = "near"  # assonance or consonance only (folk-ballad rhyme), found by `near_rhyme`
    HISTORICAL = "historical"  # rhymed in older English (tea/obey), `historical_rhymes` table
    LOOSE = "loose"  # Dickinson's slant rhyme (room/storm, day/eternity), found by `loose_rhyme`
    NONE = "none"


#: Credit a rhyme class earns towards a required rhyme.
RHYME_CREDIT: dict[Rhyme, float] = {
    Rhyme.PERFECT: 1.0,
    Rhyme.IDENTICAL: 0.6,
    Rhyme.SLANT: 0.75,
    Rhyme.EYE: 0.5,
    Rhyme.NEAR: 0.55,
    Rhyme.HISTORICAL: 0.75,
    Rhyme.LOOSE: 0.0,
    Rhyme.NONE: 0.0,
}


#: Set (by `middle_english_reading`) while a poem in Middle English spelling is checked.
_MIDDLE_ENGLISH: ContextVar[bool] = ContextVar("middle_english", default=False)


@contextmanager
def middle_english_reading(active: bool = True) -> Iterator[None]:
    """Within the block, `rhyme_kind` also hears end words by Middle English spelling rules
    (`poemetric.form.middle_english`) and keeps the better of the two readings."""
    token = _MIDDLE_ENGLISH.set(active)
    try:
        yield
    finally:
        _MIDDLE_ENGLISH.reset(token)


def rhyme_kind(word_a: str, word_b: str) -> Rhyme:
    """Rhyme class of two end words (order does not matter), from `poemetric.form.rhyme`.

    An end word may be a mosaic unit such as ``"hush her"`` (see `rhyme_unit`): then the last
    words alone and the units read as one word are both tried, and the better rhyme counts.
    Within `middle_english_reading`, a pair that rhymes by Middle English spelling rules counts
    as a historical rhyme, and one that is assonant there as a near rhyme, when that is better.
    """
    kind = _modern_kind(word_a, word_b)
    if _MIDDLE_ENGLISH.get() and RHYME_CREDIT[kind] < RHYME_CREDIT[Rhyme.HISTORICAL]:
        older = middle_english_kind(word_a, word_b)
        if RHYME_CREDIT[older] > RHYME_CREDIT[kind]:
            return older
    return kind


@lru_cache(maxsize=1 << 15)
def middle_english_kind(word_a: str, word_b: str) -> Rhyme:
    """How the last words of two end words rhyme by Middle English spelling rules: HISTORICAL
    for a perfect or slant rhyme there, NEAR for assonance or consonance, else NONE."""
    phones_a = middle_english_phones(word_a.rpartition(" ")[2])
    phones_b = middle_english_phones(word_b.rpartition(" ")[2])
    if not phones_a or not phones_b or word_a == word_b:
        return Rhyme.NONE
    if compare_pronunciations(phones_a, phones_b) is not SoundRelation.NONE:
        return Rhyme.HISTORICAL
    return Rhyme.NEAR if _near_phones(phones_a, phones_b) else Rhyme.NONE


@lru_cache(maxsize=1 << 15)
def _modern_kind(word_a: str, word_b: str) -> Rhyme:
    if word_a == word_b and word_a:
        return Rhyme.IDENTICAL
    if " " in word_a or " " in word_b:
        return _mosaic_kind(word_a, word_b)
    kind = _KIND_TO_RHYME[classify_rhyme(word_a, word_b).name]
    if kind in (Rhyme.NONE, Rhyme.EYE) and historical_rhyme(word_a, word_b):
        return Rhyme.HISTORICAL
    if kind is Rhyme.NONE and near_rhyme(word_a, word_b):
        return Rhyme.NEAR
    if kind is Rhyme.NONE and loose_rhyme(word_a, word_b):
        return Rhyme.LOOSE
    return kind


_KIND_TO_RHYME = {kind.name: Rhyme[kind.name] for kind in RhymeKind}


@lru_cache(maxsize=1 << 16)
def perfect_rhyme(word_a: str, word_b: str) -> bool:
    """Whether `rhyme_kind(word_a, word_b)` is PERFECT, without the looser classes' work
    (historical, near and loose rhymes are only looked for when the sounds do not rhyme).
    Cached: scheme searches ask it of the same end-word pairs once per candidate scheme."""
    if word_a == word_b and word_a:
        return False
    if " " in word_a or " " in word_b:
        return rhyme_kind(word_a, word_b) is Rhyme.PERFECT
    return rhyme.perfect_rhyme(word_a, word_b)


#: Unstressed words that can close a *mosaic* rhyme (Russia / hush her, pity / admit it), with
#: their weak forms in connected speech (h dropped, vowel reduced; "her" also r-less).
CLITIC_WEAK_FORMS: dict[str, tuple[str, ...]] = {
    "her": ("ER0", "AH0"),
    "him": ("IH0 M",),
    "it": ("IH0 T",),
    "me": ("M IY0",),
    "us": ("AH0 S",),
    "them": ("DH AH0 M", "AH0 M"),
    "you": ("Y UW0", "Y AH0"),
    "thee": ("DH IY0",),
    "ye": ("Y IY0",),
}
_SOUND_TO_RHYME = {SoundRelation.PERFECT: Rhyme.PERFECT, SoundRelation.SLANT: Rhyme.SLANT}


@lru_cache(maxsize=1 << 16)
def _unit_pronunciations(unit: str) -> tuple[str, ...]:
    """Pronunciations of a rhyme unit: one word, or 'word clitic' read as one word."""
    head, _, clitic = unit.rpartition(" ")
    if not head:
        return pronunciations(unit)
    return tuple(f"{p} {weak}" for p in pronunciations(head) for weak in CLITIC_WEAK_FORMS[clitic])


def _mosaic_kind(unit_a: str, unit_b: str) -> Rhyme:
    """Best of the last words alone and the two-word units read as one word."""
    best = rhyme_kind(unit_a.rpartition(" ")[2], unit_b.rpartition(" ")[2])
    for phones_a in _unit_pronunciations(unit_a):
        for phones_b in _unit_pronunciations(unit_b):
            kind = _SOUND_TO_RHYME.get(compare_pronunciations(phones_a, phones_b), Rhyme.NONE)
            if RHYME_CREDIT[kind] > RHYME_CREDIT[best]:
                best = kind
    if best is Rhyme.NONE and near_rhyme(unit_a, unit_b):
        return Rhyme.NEAR
    if best is Rhyme.NONE and loose_rhyme(unit_a, unit_b):
        return Rhyme.LOOSE
    return best


_REDUCED = {"AH": "@", "IH": "@", "UH": "@", "ER": "@R"}


@lru_cache(maxsize=1 << 16)
def _last_syllables(phones: str) -> tuple[str, str, str, tuple[str, ...]]:
    """(last stressed vowel, its coda, last vowel reduced if unstressed, final coda)."""
    parts = phones.split()
    vowel_positions = [i for i, p in enumerate(parts) if p[-1].isdigit()]
    if not vowel_positions:
        return "", "", "", ()
    stressed = [i for i in vowel_positions if parts[i][-1] in "12"] or vowel_positions
    s = stressed[-1]
    last = vowel_positions[-1]
    last_vowel = parts[last][:-1]
    if parts[last][-1] == "0":
        last_vowel = _REDUCED.get(last_vowel, last_vowel)
    coda = tuple(parts[last + 1 :])
    stressed_coda = " ".join(p for p in parts[s + 1 :] if not p[-1].isdigit())
    return parts[s][:-1], stressed_coda, last_vowel, coda


@lru_cache(maxsize=1 << 14)
def near_rhyme(word_a: str, word_b: str) -> bool:
    """Assonance (same last stressed vowel: keep/speak) or consonance of the final syllable
    (apple/shovel, mind/attend): the looser rhymes of folk ballads and ghazal qafias."""
    if not word_a or not word_b:
        return False
    return any(
        _near_phones(pa, pb)
        for pa in _unit_pronunciations(word_a)
        for pb in _unit_pronunciations(word_b)
    )


def _near_phones(phones_a: str, phones_b: str) -> bool:
    """`near_rhyme` of two pronunciations."""
    va, ca, la, fa = _last_syllables(phones_a)
    vb, cb, lb, fb = _last_syllables(phones_b)
    if not va or not vb:
        return False
    if va == vb and len(ca.split()) <= 2 and len(cb.split()) <= 2:
        return True
    return bool(fa) and fa == fb and (la == lb or len(fa) >= 2)


_OPEN_STRESSED = frozenset({"IY", "EY", "AY"})


@lru_cache(maxsize=1 << 16)
def _final_syllable(phones: str) -> tuple[str, str, tuple[str, ...]]:
    """(last vowel without stress, its stress digit, the consonants after it)."""
    parts = phones.split()
    for index in range(len(parts) - 1, -1, -1):
        if parts[index][-1].isdigit():
            return parts[index][:-1], parts[index][-1], tuple(parts[index + 1 :])
    return "", "", ()


@lru_cache(maxsize=1 << 14)
def loose_rhyme(word_a: str, word_b: str) -> bool:
    """Dickinson's slant rhymes, looser than `near_rhyme`: two stressed final syllables ending
    in the same consonant with different vowels (room/storm, chill/tulle, abroad/head), or an
    unstressed final -y against a stressed open IY/EY/AY (day/eternity, away/civility)."""
    if not word_a or not word_b:
        return False
    for pa in _unit_pronunciations(word_a):
        for pb in _unit_pronunciations(word_b):
            va, sa, ca = _final_syllable(pa)
            vb, sb, cb = _final_syllable(pb)
            if not va or not vb:
                continue
            if ca and cb and ca[-1] == cb[-1] and va != vb and sa in "12" and sb in "12":
                return True
            if not ca and not cb:
                weak, strong = ((va, sa), (vb, sb)) if sa == "0" else ((vb, sb), (va, sa))
                if weak == ("IY", "0") and strong[1] in "12" and strong[0] in _OPEN_STRESSED:
                    return True
    return False


# -- metre ----------------------------------------------------------------------------------------

FOOT_PATTERNS = meter.FOOT_TYPES
#: Named beat patterns used by the form rules (stresses per line, cycled over a stanza).
BEAT_METERS: dict[str, tuple[int, ...]] = {"limerick meter": (3, 3, 2, 2, 3)}


@dataclass(frozen=True)
class MeterSpec:
    """A requested metre: a foot and/or a number of feet, or a beat pattern per line."""

    name: str
    foot: str | None = None
    feet: int | None = None
    beats: tuple[int, ...] | None = None
    #: Accepted at a lower score when it explains more lines (long meter for ballad meter).
    fallback_beats: tuple[int, ...] | None = None
    #: Line lengths a line may have, each line scored by its best ("trimeter / dimeter").
    feet_choices: tuple[int, ...] | None = None


class MeterError(ValueError):
    """A metre name that is not understood."""


def parse_meter(text: str) -> MeterSpec | None:
    """``'Iambic pentameter'`` -> MeterSpec(foot='iambic', feet=5); None for 'free verse'."""
    try:
        spec = meter.parse_meter(text)
    except ValueError as exc:
        raise MeterError(str(exc)) from None
    return None if spec is None else _spec(spec)


def read_meter(text: str | None) -> tuple[MeterSpec | None, MeterReading]:
    """A metre annotation read as far as the checker can (`poemetric.form.meter_reading`): the
    spec to score (None: none) and the reading, with its note and whether the metre is
    unscored."""
    reading = read_meter_annotation(text)
    return (None if reading.spec is None else _spec(reading.spec)), reading


def _spec(spec: meter.MeterSpec) -> MeterSpec:
    return MeterSpec(
        name=spec.name,
        foot=spec.foot,
        feet=spec.feet,
        beats=spec.beat_pattern,
        fallback_beats=spec.fallback_pattern,
        feet_choices=spec.feet_choices,
    )


#: A line whose fit reaches this counts as fitting (the meter module's calibrated cut-off).
FIT_CUTOFF = meter.FIT_CUTOFF


@lru_cache(maxsize=16384)
def meter_fit(line: str, foot: str | None, feet: int | None) -> float:
    """How well a line fits `feet` feet of `foot` (either may be None = any), in [0, 1]."""
    if foot is None:
        return max(meter.line_fit(line, name, feet) for name in ("iambic", "trochaic", "anapestic"))
    return meter.line_fit(line, foot, feet)


def spec_fit(line: str, spec: MeterSpec) -> tuple[float, int | None]:
    """A line's fit to a foot metre, and the length it was read with: of several lengths
    (`feet_choices`, "trimeter / dimeter"), the one it fits best (the first of equals)."""
    if not spec.feet_choices:
        return meter_fit(line, spec.foot, spec.feet), spec.feet
    return max(((meter_fit(line, spec.foot, n), n) for n in spec.feet_choices),
               key=lambda pair: pair[0])  # fmt: skip


@lru_cache(maxsize=16384)
def beat_fit(line: str, beats: int, foot: str | None = None) -> float:
    """Fit of a line read with exactly `beats` strong beats."""
    return meter.beat_pattern_fit(line, beats, foot)


def prepare_lines(lines: tuple[str, ...]) -> None:
    """Analyse a poem's new lines for metre in one batch (shares numpy's per-call overhead);
    later per-line calls find them cached."""
    meter.analyse(lines)


def line_words(line: str) -> tuple[str, ...]:
    """The line's word tokens as the metre analysis split them (cached with its analysis)."""
    return meter_words.line_options(line)[0]


def beats(line: str) -> int:
    """Estimated number of strong beats."""
    return meter.beat_count(line)


def syllables(line: str) -> int:
    return meter.syllable_count(line)


def free_scan(line: str) -> meter.LineScan:
    """The line's best reading in any metre."""
    return meter.scan_line(line)


def strained_words(line: str, foot: str, feet: int | None) -> tuple[tuple[str, str], ...]:
    """Words that strain the line's best reading in (foot, feet): see `meter.strained_words`."""
    return meter.strained_words(line, foot, feet)


def scansion(line: str) -> str:
    """w/s scansion of the line's best reading."""
    return meter.scan_line(line).pattern
