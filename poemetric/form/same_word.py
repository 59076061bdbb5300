"""Whether two end words of a sestina or double sestina are the same word.

The same word, an inflection (*night*/*nights*, *mother*/*mothers*: one suffix stripped, and the
two sound alike without it, so *mother* is not *moth* + *-er*) or a homophone (*bread*/*bred*).
The stanzas' rotation (`poemetric.form.sestina`) and the envoi match end words this way.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from poemetric.form import adapters
from poemetric.form.phonetics import pronunciations

#: "'s" before "s", or *world's* would lose only its s.
_SUFFIXES = ("'s", "ing", "ed", "es", "s", "ly", "er", "est", "d")


@lru_cache(maxsize=65536)
def word_family(word: str) -> str:
    """A crude stem so that inflected end words (home/homes, wait/waiting) match."""
    word = word.lower().replace("’", "'")
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word.rstrip("e")


#: Sounds of the suffixes `word_family` strips (stress digits removed).
_SUFFIX_SOUNDS = tuple(
    tuple(end.split())
    for end in (
        *("IH S T", "AH S T", "IH Z", "AH Z", "IH D", "AH D", "IH NG", "L IY", "ER"),
        *("Z", "S", "D", "T"),
    )
)
_STRESS = re.compile(r"\d")


@lru_cache(maxsize=65536)
def _stem_sounds(word: str) -> frozenset[tuple[str, ...]]:
    """The word's pronunciations, each also without the sounds of a suffix (stress ignored)."""
    stems: set[tuple[str, ...]] = set()
    for phones in pronunciations(word):
        sounds = tuple(_STRESS.sub("", phones).split())
        stems.add(sounds)
        stems.update(
            sounds[: -len(end)]
            for end in _SUFFIX_SOUNDS
            if len(sounds) > len(end) and sounds[-len(end) :] == end
        )
    return frozenset(stems)


def same_end_word(a: str, b: str) -> bool:
    """The same end word: the same word, an inflection (nights, mothers) or a homophone (knight)."""
    if not a or not b:
        return False
    a, b = a.lower().replace("’", "'"), b.lower().replace("’", "'")
    if a == b:
        return True
    # One suffix is stripped ('mothers' is 'mother' + s, whose own family is 'moth'), and the two
    # sound alike without it: 'mother' is not 'moth' + -er, nor 'hated' 'hat' + -ed.
    unrelated = {a, word_family(a)}.isdisjoint({b, word_family(b)})
    if not unrelated and not _stem_sounds(a).isdisjoint(_stem_sounds(b)):
        return True
    kind = adapters.rhyme_kind(a, b)
    if kind is adapters.Rhyme.IDENTICAL:
        return True
    return kind is adapters.Rhyme.PERFECT and not set(pronunciations(a)).isdisjoint(
        pronunciations(b)
    )


def distinct_end_words(words: Sequence[str]) -> int:
    """How many different end words `words` holds, matched as `same_end_word` matches them
    (*mother* and *moth* are two; *night* and *nights* one)."""
    kept: list[str] = []
    for word in words:
        if not any(same_end_word(word, other) for other in kept):
            kept.append(word)
    return len(kept)


def held(word: str, envoi: set[str]) -> bool:
    """Whether an envoi's words hold an end word, matched as the stanzas' end words are."""
    return any(same_end_word(word, other) for other in envoi)
