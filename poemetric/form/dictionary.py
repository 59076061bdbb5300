"""CMUdict's readings of a spelling, as the phonetics module looks them up.

`cmu(key)` is the dictionary itself (:mod:`poemetric.form.lexicon`), less letter-by-letter
readings of a real word (*us* as U.S.), with a user's own pronunciations of a word in place of
CMUdict's (:mod:`poemetric.form.user_lexicon`); `spelled_out` tells such a reading. Shared by
:mod:`poemetric.form.phonetics` and :mod:`poemetric.form.morphology`.
"""

from __future__ import annotations

import re
from functools import cache

from poemetric.form import lexicon, user_lexicon


def cmu(key: str) -> tuple[str, ...]:
    """CMUdict's readings of `key`, without a letter-by-letter reading when the word has another
    (*us* is also listed as U.S., *am* as A.M., *id* as I.D.). Spellings without a vowel letter
    keep it: *TV* is said letter by letter. A word of the user lexicon has its pronunciations
    there, as given."""
    own = user_lexicon.phones(key)
    if own:
        return own
    found = lexicon.phones_for_word(key) if key else ()
    if len(found) > 1 and 1 < len(key) <= MAX_SPELLED and VOWEL_LETTER.search(key):
        kept = tuple(phones for phones in found if not spelled_out(key, phones))
        if kept:
            return kept
    return found


VOWEL_LETTER = re.compile("[aeiouy]")
#: Longer spellings are not checked for a letter-by-letter reading (acronyms are short).
MAX_SPELLED = 6


def spelled_out(key: str, phones: str) -> bool:
    """True when `phones` is `key` read letter by letter (stress ignored)."""
    sounds = _without_stress(phones)

    def match(letter: int, at: int) -> bool:
        if letter == len(key):
            return at == len(sounds)
        return any(
            sounds[at : at + len(name)] == name and match(letter + 1, at + len(name))
            for name in _letter_names(key[letter])
        )

    return match(0, 0)


@cache
def _letter_names(letter: str) -> tuple[tuple[str, ...], ...]:
    """How a letter's name is said (CMUdict's entry for the letter, stress removed)."""
    return tuple(_without_stress(phones) for phones in lexicon.phones_for_word(letter))


def _without_stress(phones: str) -> tuple[str, ...]:
    return tuple(_STRESS_DIGIT.sub("", phones).split())


_STRESS_DIGIT = re.compile(r"\d")
