"""The single place where form checking calls the phonetics, rhyme and meter modules.

Form rules only use the small functions below (end-word rhyme class, per-line metre fit, beats,
syllables and scansion of a line). Each one is cached per word pair or per line, which is what makes
checking thousands of poems per second possible: poems share words, and repeated runs share lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from poemetric.form import meter
from poemetric.form.rhyme import RhymeKind, classify_rhyme


class Rhyme(str, Enum):
    """How two end words rhyme, strongest first."""

    IDENTICAL = "identical"
    PERFECT = "perfect"
    SLANT = "slant"
    EYE = "eye"
    NONE = "none"


#: Credit a rhyme class earns towards a required rhyme.
RHYME_CREDIT: dict[Rhyme, float] = {
    Rhyme.PERFECT: 1.0,
    Rhyme.IDENTICAL: 0.8,
    Rhyme.SLANT: 0.75,
    Rhyme.EYE: 0.5,
    Rhyme.NONE: 0.0,
}


@lru_cache(maxsize=262144)
def rhyme_kind(word_a: str, word_b: str) -> Rhyme:
    """Rhyme class of two end words (order does not matter), from `poemetric.form.rhyme`."""
    return _KIND_TO_RHYME[classify_rhyme(word_a, word_b).name]


_KIND_TO_RHYME = {kind.name: Rhyme[kind.name] for kind in RhymeKind}


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


class MeterError(ValueError):
    """A metre name that is not understood."""


def parse_meter(text: str) -> MeterSpec | None:
    """``'Iambic pentameter'`` -> MeterSpec(foot='iambic', feet=5); None for 'free verse'."""
    try:
        spec = meter.parse_meter(text)
    except ValueError as exc:
        raise MeterError(str(exc)) from None
    if spec is None:
        return None
    return MeterSpec(
        name=spec.name,
        foot=spec.foot,
        feet=spec.feet,
        beats=spec.beat_pattern,
        fallback_beats=spec.fallback_pattern,
    )


#: A line whose fit reaches this counts as fitting (the meter module's calibrated cut-off).
FIT_CUTOFF = meter.FIT_CUTOFF


@lru_cache(maxsize=131072)
def meter_fit(line: str, foot: str | None, feet: int | None) -> float:
    """How well a line fits `feet` feet of `foot` (either may be None = any), in [0, 1]."""
    if foot is None:
        return max(meter.line_fit(line, name, feet) for name in ("iambic", "trochaic", "anapestic"))
    return meter.line_fit(line, foot, feet)


@lru_cache(maxsize=131072)
def beat_fit(line: str, beats: int, foot: str | None = None) -> float:
    """Fit of a line read with exactly `beats` strong beats."""
    return meter.beat_pattern_fit(line, beats, foot)


def beats(line: str) -> int:
    """Estimated number of strong beats."""
    return meter.beat_count(line)


def syllables(line: str) -> int:
    return meter.scan_line(line).syllables


def scansion(line: str) -> str:
    """w/s scansion of the line's best reading."""
    return meter.scan_line(line).pattern
