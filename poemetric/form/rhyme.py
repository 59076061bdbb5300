"""Rhyme between line-end words, rhyme-scheme inference and rhyme-pattern scoring.

Public API (import from ``poemetric.form.rhyme``):

``classify_rhyme(word_a, word_b) -> RhymeKind``
    Best relation over all pronunciation pairs: ``IDENTICAL`` (same word, refrain/radif),
    ``PERFECT`` (same sounds from the last stressed vowel on; also the calibrated rule for
    unstressed final syllables of older verse, ``melody``/``free``, ``singing``/``ring``),
    ``SLANT`` (near rhyme: same vowel with a similar coda, or same coda with a similar vowel),
    ``EYE`` (spelled alike from the last vowel group on, where an inflection such as -es or -ed
    starts no group, but not sounded alike: ``though``/``through``), ``NONE``.
``rhyme_match(word_a, word_b) -> RhymeMatch``
    The same with the pronunciations that produced the verdict, for explanations.
``rhymes(word_a, word_b, *, allow_slant=True) -> bool``
    IDENTICAL or PERFECT always count; SLANT and EYE count only with `allow_slant`.
``infer_scheme(end_words, *, window=None, allow_slant=True, allow_eye=True) -> str``
    One letter per line (``A``, ``B``, ... skipping ``X``; same letter = rhyme). Each line takes
    the letter of the strongest rhyme among the previous `window` lines (all when None).
``infer_stanza_schemes(stanzas, *, window=None, stanza_local=False) -> str``
    Schemes of several stanzas joined by spaces (letters shared across the poem unless
    `stanza_local`).
``scheme_similarity(found, expected, *, stanza_local=False) -> float`` / ``compare_schemes``
    Letter strings compared by pair structure (see :mod:`poemetric.form.rhyme_pattern`).
``check_rhyme_pattern(end_words, expected, *, stanza_sizes=None, stanza_local=False) -> PatternMatch``
    Scores a poem against a pattern directly with pair classification (no transitive letters):
    ``.score`` in [0, 1], ``.failures`` and ``.explain()`` name the line pairs that failed.
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from poemetric.form.phonetics import clear_lookup_cache as phonetics_lookup_cache_clear
from poemetric.form.phonetics import normalize_word, pronunciations
from poemetric.form.rhyme_pattern import (
    PairCheck,
    PatternMatch,
    compare_schemes,
    expected_classes,
    match_pattern,
    parse_pattern,
    scheme_similarity,
)
from poemetric.form.rhyme_sounds import (
    SoundRelation,
    compare_rhyme_keys,
    key_features,
    rhyme_key,
)
from poemetric.form.rhyme_sounds import clear_caches as clear_sound_caches

__all__ = [
    "PairCheck",
    "PatternMatch",
    "RhymeKind",
    "RhymeMatch",
    "check_rhyme_pattern",
    "classify_rhyme",
    "clear_caches",
    "compare_schemes",
    "infer_scheme",
    "infer_stanza_schemes",
    "parse_pattern",
    "perfect_rhyme",
    "rhyme_match",
    "rhymes",
    "scheme_letters",
    "scheme_similarity",
]


class RhymeKind(enum.IntEnum):
    """Relation between two line-end words; larger values are stronger rhymes."""

    NONE = 0
    EYE = 1
    SLANT = 2
    PERFECT = 3
    IDENTICAL = 4


@dataclass(frozen=True)
class RhymeMatch:
    kind: RhymeKind
    phones_a: str = ""
    phones_b: str = ""

    def describe(self, word_a: str, word_b: str) -> str:
        if self.kind in (RhymeKind.IDENTICAL, RhymeKind.EYE) or not self.phones_a:
            return f"{word_a}/{word_b}: {self.kind.name.lower()}"
        return f"{word_a} [{self.phones_a}] / {word_b} [{self.phones_b}]: {self.kind.name.lower()}"


_SOUND_TO_KIND = {
    SoundRelation.PERFECT: RhymeKind.PERFECT,
    SoundRelation.SLANT: RhymeKind.SLANT,
    SoundRelation.NONE: RhymeKind.NONE,
}
_LAST_RIME = re.compile(r"[aeiouy]+[^aeiouy]*$")
#: A final inflection spelled with ``e`` after a consonant: -es, -ed, -en, -ens, -est, -eth.
#: Its ``e`` is silent or unstressed, so it does not start the spelled rime. Not -ess
#: (*goodness*) nor -er, whose pairs rhyme in older verse (docs/rhyme.md, "Eye rhymes").
_INFLECTION = re.compile(r"(?<=[^aeiouy])e(?:[sdn]|ns|st|th)$")


def _collapse_doubles(letters: str) -> str:
    return re.sub(r"([a-z])\1", r"\1", letters)


@lru_cache(maxsize=1 << 16)
def _spelled_rime(word: str) -> str:
    """Letters from the last vowel group on, treating a final silent ``e`` as part of the rime.

    An inflection (`_INFLECTION`) is not a vowel group of its own: the rime starts at the vowel
    group before it (*lines* -ines, *sheaves* -eaves, *loved* -oved, *wanted* -anted), so two
    words that share only an inflection are not an eye rhyme. A word with no vowel before it
    (*bed*, *rest*) keeps the ending as its rime. Doubled letters are collapsed."""
    raw = re.sub(r"[^a-z]", "", word.replace("è", "e"))
    ending = _INFLECTION.search(raw)
    if ending:
        stem = _LAST_RIME.search(_collapse_doubles(raw[: ending.start()]))
        if stem:
            return stem.group(0) + ending.group(0)
    letters = _collapse_doubles(raw)
    if letters.endswith("e") and len(letters) >= 3 and letters[-2] not in "aeiouy":
        match = _LAST_RIME.search(letters[:-1])
        return (match.group(0) + "e") if match else letters
    match = _LAST_RIME.search(letters)
    return match.group(0) if match else letters


@lru_cache(maxsize=1 << 14)
def _match_normalized(key_a: str, key_b: str) -> RhymeMatch:
    if not key_a or not key_b:
        return RhymeMatch(RhymeKind.NONE)
    if key_a == key_b:
        return RhymeMatch(RhymeKind.IDENTICAL)
    best = RhymeMatch(RhymeKind.NONE)
    for (phones_a, tail_a), (phones_b, tail_b) in itertools.product(
        _rhyme_tails(key_a), _rhyme_tails(key_b)
    ):
        kind = _SOUND_TO_KIND[compare_rhyme_keys(tail_a, tail_b)]
        if kind > best.kind:
            best = RhymeMatch(kind, phones_a, phones_b)
            if kind == RhymeKind.PERFECT:
                break
    if best.kind == RhymeKind.NONE:
        rime_a, rime_b = _spelled_rime(key_a), _spelled_rime(key_b)
        if len(rime_a) >= 2 and rime_a == rime_b:
            return RhymeMatch(RhymeKind.EYE)
    return best


@lru_cache(maxsize=1 << 14)
def _rhyme_tails(key: str) -> tuple[tuple[str, str], ...]:
    """(pronunciation, its rhyme key) for each distinct rhyme key of a word, in dictionary order:
    pronunciations that differ only before the rhyme (*either*, *economic*) are compared once."""
    tails: dict[str, str] = {}
    for phones in pronunciations(key):
        tails.setdefault(rhyme_key(phones), phones)
    return tuple((phones, tail) for tail, phones in tails.items())


def clear_caches() -> None:
    """Forget cached pronunciations and pair verdicts (for benchmarks and calibration)."""
    _match_normalized.cache_clear()
    _rhyme_tails.cache_clear()
    _perfect_signature.cache_clear()
    classify_rhyme.cache_clear()
    clear_sound_caches()
    pronunciations.cache_clear()
    phonetics_lookup_cache_clear()


def rhyme_match(word_a: str, word_b: str) -> RhymeMatch:
    """The rhyme relation of two words with the pronunciations that gave it."""
    key_a, key_b = sorted((normalize_word(word_a), normalize_word(word_b)))
    match = _match_normalized(key_a, key_b)
    if key_a != normalize_word(word_a):
        return RhymeMatch(match.kind, match.phones_b, match.phones_a)
    return match


@lru_cache(maxsize=1 << 15)
def classify_rhyme(word_a: str, word_b: str) -> RhymeKind:
    """Strongest rhyme relation between two words over all their pronunciations (cached)."""
    key_a, key_b = sorted((normalize_word(word_a), normalize_word(word_b)))
    return _match_normalized(key_a, key_b).kind


def perfect_rhyme(word_a: str, word_b: str) -> bool:
    """Whether `classify_rhyme(word_a, word_b)` is PERFECT. Most word pairs are ruled out by
    what their rhyme tails share (`_perfect_signature`) without comparing them."""
    key_a, key_b = normalize_word(word_a), normalize_word(word_b)
    if not key_a or not key_b or key_a == key_b:
        return False
    rimes_a, weak_a, codas_a = _perfect_signature(key_a)
    rimes_b, weak_b, codas_b = _perfect_signature(key_b)
    if rimes_a.isdisjoint(rimes_b) and weak_a.isdisjoint(codas_b) and codas_a.isdisjoint(weak_b):
        return False
    return classify_rhyme(word_a, word_b) is RhymeKind.PERFECT


_Signature = tuple[
    frozenset[tuple[str, ...]], frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]
]


@lru_cache(maxsize=1 << 14)
def _perfect_signature(key: str) -> _Signature:
    """(rimes, codas after a weak last vowel, all codas after the last vowel) over a word's rhyme
    tails: a perfect rhyme needs a rime in common (perfect, secondary stress) or a weak last
    syllable with the other word's coda (unstressed final syllable, -y as /ai/)."""
    features = [key_features(tail) for _, tail in _rhyme_tails(key)]
    return (
        frozenset(rime for rimes, *_ in features for rime in rimes),
        frozenset(coda for _, weak, coda, *_ in features if weak and coda is not None),
        frozenset(coda for _, _, coda, *_ in features if coda is not None),
    )


def rhymes(word_a: str, word_b: str, *, allow_slant: bool = True) -> bool:
    """Whether two line-end words rhyme (identical words count, as refrains do)."""
    floor = RhymeKind.EYE if allow_slant else RhymeKind.PERFECT
    return classify_rhyme(word_a, word_b) >= floor


def scheme_letters() -> itertools.chain[str]:
    """Letters used for inferred schemes: A-Z without X, then Greek, then CJK ideographs."""
    latin = (chr(code) for code in range(ord("A"), ord("Z") + 1) if chr(code) != "X")
    greek = (chr(code) for code in range(0x391, 0x3AA) if code != 0x3A2)
    return itertools.chain(latin, greek, (chr(0x4E00 + k) for k in itertools.count()))


def infer_scheme(
    end_words: Sequence[str],
    *,
    window: int | None = None,
    allow_slant: bool = True,
    allow_eye: bool = True,
) -> str:
    """Rhyme scheme letters for `end_words` (see module docstring); with `allow_eye=False` an
    eye rhyme does not share a letter (slant rhymes still do with `allow_slant`)."""
    floor = RhymeKind.PERFECT
    if allow_slant:
        floor = RhymeKind.EYE if allow_eye else RhymeKind.SLANT
    letters = scheme_letters()
    assigned: list[str] = []
    for index, word in enumerate(end_words):
        start = 0 if window is None else max(0, index - window)
        best_kind, best_letter = RhymeKind.NONE, ""
        for earlier in range(index - 1, start - 1, -1):
            kind = classify_rhyme(end_words[earlier], word)
            if kind >= floor and kind > best_kind:
                best_kind, best_letter = kind, assigned[earlier]
        assigned.append(best_letter or next(letters))
    return "".join(assigned)


def infer_stanza_schemes(
    stanzas: Sequence[Sequence[str]],
    *,
    window: int | None = None,
    stanza_local: bool = False,
    allow_slant: bool = True,
) -> str:
    """Schemes of several stanzas' end words, joined by spaces.

    With `stanza_local` each stanza is inferred on its own (letters restart at ``A``); otherwise
    rhymes are found across the whole poem and the letters are shared.
    """
    if stanza_local:
        return " ".join(
            infer_scheme(stanza, window=window, allow_slant=allow_slant) for stanza in stanzas
        )
    flat = infer_scheme(
        [word for stanza in stanzas for word in stanza], window=window, allow_slant=allow_slant
    )
    groups, start = [], 0
    for stanza in stanzas:
        groups.append(flat[start : start + len(stanza)])
        start += len(stanza)
    return " ".join(group for group in groups if group)


def check_rhyme_pattern(
    end_words: Sequence[str],
    expected: str,
    *,
    stanza_sizes: Sequence[int] | None = None,
    stanza_local: bool = False,
    allow_slant: bool = True,
    window: int = 4,
    forbidden_weight: float = 0.5,
) -> PatternMatch:
    """Score a poem's line-end words against an expected pattern by pair classification.

    Required pairs pass when the words rhyme (`allow_slant` admits slant and eye rhymes);
    forbidden pairs (different letters, at most `window` lines apart) fail only on an
    identical or perfect rhyme. Lines the pattern expects but the poem lacks fail.
    """
    n_lines = len(end_words)
    n_expected = n_lines if stanza_local else max(n_lines, len(parse_pattern(expected)))
    classes = expected_classes(
        expected, n_expected, stanza_local=stanza_local, stanza_sizes=stanza_sizes
    )

    floor = RhymeKind.EYE if allow_slant else RhymeKind.PERFECT

    def describe(first: int, second: int) -> str:
        return rhyme_match(end_words[first], end_words[second]).describe(
            end_words[first], end_words[second]
        )

    def required(first: int, second: int) -> tuple[bool, str]:
        ok = classify_rhyme(end_words[first], end_words[second]) >= floor
        return ok, "" if ok else describe(first, second)

    def forbidden(first: int, second: int) -> tuple[bool, str]:
        bad = classify_rhyme(end_words[first], end_words[second]) >= RhymeKind.PERFECT
        return bad, describe(first, second) if bad else ""

    return match_pattern(
        n_lines,
        classes,
        required,
        window=window,
        forbidden_weight=forbidden_weight,
        forbids=forbidden,
    )
