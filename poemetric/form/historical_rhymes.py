"""Historical pronunciations that made rhymes of pairs that no longer rhyme (partial credit).

English verse before about 1800 rhymes words whose vowels have since moved apart: *tea* with
*obey*, *join* with *line*, *Rome* with *doom*, *great* with *seat*, *bliss* with *paradise*.
CMUdict gives only present-day American pronunciations, so the checker would call such pairs
unrhymed. The table below adds, for a few words, the older pronunciation that their poets
rhymed; `historical_rhyme(a, b)` is True when an older pronunciation of one word rhymes
perfectly with a pronunciation of the other. The form checker gives such a pair the slant
credit (0.75): a rhyme for its poet, not a perfect one for a modern reader. Only the form
checker uses it (`poemetric.form.adapters.rhyme_kind`); `poemetric.form.rhyme.classify_rhyme`
and its Chicago-corpus calibration are unchanged.

Sources (the rhymes each entry stands for are in its comment):

* H. C. Wyld, *Studies in English Rhymes from Surrey to Pope* (London: Murray, 1923): the
  ME/EModE long-vowel rhymes (tea/obey, great/seat, join/line, wind/mind, Rome/doom, war/far).
* E. J. Dobson, *English Pronunciation 1500-1700* (Oxford, 1957; 2nd ed. 1968), vol. II: the
  shortened or unshifted vowels (paradise with short /ɪ/, been /iː/, again /eɪ/, gone /oː/).
* O. Jespersen, *A Modern English Grammar on Historical Principles*, Part I: Sounds and
  Spellings (Heidelberg, 1909), ch. 8-11: *-y* endings rhymed as /aɪ/ (handled separately by the
  rhyme module's ``y_as_ai`` category) and stress on the final syllable of *-ance/-al* words.
"""

from __future__ import annotations

from functools import lru_cache

from poemetric.form.phonetics import normalize_word, pronunciations
from poemetric.form.rhyme_sounds import SoundRelation, compare_pronunciations

#: word -> older pronunciations (ARPAbet) its poets rhymed on.
HISTORICAL_PRONUNCIATIONS: dict[str, tuple[str, ...]] = {
    "paradise": ("P AE1 R AH0 D IH2 S",),  # bliss, this, amiss (Herbert, Milton)
    "tea": ("T EY1",),  # obey, away (Pope)
    "sea": ("S EY1",),  # away, survey (Pope, Swift)
    "great": ("G R IY1 T",),  # seat, retreat (Pope)
    "join": ("JH AY1 N",),  # line, divine (Pope, Dryden)
    "joined": ("JH AY1 N D",),  # mind, kind (Pope)
    "wind": ("W AY1 N D",),  # mind, kind (noun, before 1800)
    "rome": ("R UW1 M",),  # doom, room (Shakespeare, Pope)
    "war": ("W AA1 R",),  # far, star (Dryden, Pope)
    "wars": ("W AA1 R Z",),  # stars (Dryden)
    "gone": ("G OW1 N",),  # alone, stone (Shakespeare to Tennyson)
    "been": ("B IY1 N",),  # seen, green (to the 19th century)
    "again": ("AH0 G EY1 N",),  # pain, vain (already in CMUdict; kept for the record)
    "prove": ("P R AH1 V",),  # love (Marlowe, Donne)
    "move": ("M AH1 V",),  # love (Shakespeare)
    "perpetual": ("P ER0 P EH1 CH UW0 AO2 L",),  # thrall, all (final -al with stress)
    "eternal": ("IH0 T ER1 N AE2 L",),  # shall
    "obey": ("OW0 B IY1",),  # tea, sea (Pope)
    "shone": ("SH AA1 N",),  # on, gone (Milton, Byron)
    "wound": ("W AW1 N D",),  # round, ground (noun, to the 18th century)
}


def _older(word: str) -> tuple[str, ...]:
    return HISTORICAL_PRONUNCIATIONS.get(normalize_word(word), ())


@lru_cache(maxsize=1 << 14)
def historical_rhyme(word_a: str, word_b: str) -> bool:
    """Whether an older pronunciation (the table above) of one word rhymes with the other."""
    if not word_a or not word_b:
        return False
    old_a, old_b = _older(word_a), _older(word_b)
    if not old_a and not old_b:
        return False
    all_a = (*old_a, *pronunciations(word_a))
    all_b = (*old_b, *pronunciations(word_b))
    return any(
        compare_pronunciations(a, b) is SoundRelation.PERFECT
        for a in all_a
        for b in all_b
        if a in old_a or b in old_b
    )
