"""Is a text English? Both rhyme densities read every word with English pronunciations (CMUdict
and English letter-to-sound rules, or eSpeak's en-us voice), so a poem in another language gets a
number that says nothing about its rhymes: German or French words are sounded out by English
spelling rules, and a text in another script has no syllables at all (density undefined) while
its entropy weight is still computed from its tokens.

`not_english_reason` says why a text is mostly not English, or None. Two cheap signals, no
language model:

* script: under half of the letters Latin (`poemetric.screening.latin_share`, the rule the judge
  stage and the form checker use for "not in Latin script");
* function words: at least `MIN_FOREIGN_WORDS` very common words of German, French, Spanish,
  Italian, Portuguese or Dutch (*und, ich, nicht; le, les, je, vous; y, los; che, gli ...*) and
  more of them than common English words (*the, and, of, to, you, thou ...*). Words that are
  also English, Middle English or Scots (*in, so, was, die, me, he, ne, son, een, wat, o, lo*)
  are on neither list, so an English poem with a French phrase, Chaucer or Burns stays English.
"""

from __future__ import annotations

from functools import lru_cache

from poemetric.screening import MIN_LATIN_SHARE, latin_share
from poemetric.text.tokens import tokenize


def _words(*lines: str) -> frozenset[str]:
    return frozenset(word for line in lines for word in line.split())


#: Frequent English words that are not also common words of the languages below.
ENGLISH_WORDS = _words(
    "the and of to that with for his her this but be are not you your thy thou thee from by "
    "when what shall have has had they them their we our were which would there where or if at "
    "my it she who how i",
)
#: Frequent German, French, Spanish, Italian, Portuguese and Dutch words that are not English.
FOREIGN_WORDS = _words(
    # German
    "der das und ich nicht ist ein eine einen einem mit zu dem sich auf du wie mir mich dich dir "
    "wir ihr sie es noch nur aus bei auch wenn doch über schon kein mein dein sein meine deine "
    "im vom zum zur nach oder aber",
    # French
    "le les et est une des je tu il elle nous vous ils qui que pas dans sur avec mais où au aux "
    "ce cette sa ses mes tes comme de",
    # Spanish
    "el los las y es una del en con por para su sus mi yo pero como más muy se ni",
    # Italian
    "gli di che non della nel sono è io un uno ti si",
    # Portuguese
    "os uma não eu meu minha",
    # Dutch
    "het niet ik zijn met voor aan maar naar ook",
)
#: French and Italian elisions (*l'aube, j'irai, qu'il, d'amore, c'est*).
FOREIGN_ELISIONS = ("l'", "j'", "qu'", "d'", "c'")
#: English contractions spelled like such an elision (*c'mon*, Scots and older *d'ye*): a chorus
#: of "C'mon, c'mon, c'mon" was "4 common non-English words against 0 English ones".
ENGLISH_ELIDED = frozenset({"c'mon", "c'mere", "d'ye", "d'you", "d'ya", "d'yer"})
#: Fewer foreign words than this never make a text foreign (a phrase in an English poem).
MIN_FOREIGN_WORDS = 3


@lru_cache(maxsize=1 << 16)
def _foreign(token: str) -> bool:
    if token in FOREIGN_WORDS:
        return True
    if token in ENGLISH_ELIDED:
        return False
    return any(
        token.startswith(elision) and len(token) > len(elision) for elision in FOREIGN_ELISIONS
    )


def not_english_reason(text: str) -> str | None:
    """Why `text` is mostly not English ("not in Latin script", "more German/French/... function
    words than English ones"), or None (English, or nothing to tell)."""
    if latin_share(text[:5000]) < MIN_LATIN_SHARE:
        return "not in Latin script"
    tokens = tokenize(text[:5000])
    foreign = sum(map(_foreign, tokens))
    english = sum(token in ENGLISH_WORDS for token in tokens)
    if foreign >= MIN_FOREIGN_WORDS and foreign > english:
        return f"{foreign} common non-English words against {english} English ones"
    return None
