"""A metre annotation read as far as the checker can: `read_meter(text) -> MeterReading`.

`parse_meter` (:mod:`poemetric.form.meter_spec`) reads a metre named exactly (*Iambic
pentameter*, *common meter*, *8.6.8.6*) and refuses anything else. Annotations people write
often say more, or less: *iambic pentameter (loose)*, *Anapestic trimeter / dimeter*, *loose
iambic*, *Accentual*, *mixed*. A poem whose annotation it refused was not checked at all, rhyme
and form included, nor was any model's poem for it. `read_meter` reads:

1. an annotation `parse_meter` reads, as it reads it (no note: nothing changes for those);
2. the annotation without its parentheses, when `parse_meter` reads that (*iambic pentameter
   (loose)*: iambic pentameter, the parenthesis noted as not scored);
3. otherwise word by word: a stanza metre it names (*ballad stanza*); else the feet and line
   lengths it names (*pentametre* and plurals such as *alexandrines* read too, and *5-foot*,
   *4 beats* as lengths). Several feet (*iambic/anapestic*) are read as any foot; several
   lengths (*trimeter / dimeter*) as lines of any of those lengths, each line scored by the
   length it fits best: an annotation does not say which lines are which (a limerick's
   3-3-2-2-3, a ballad's 4-3-4-3), so no order is imposed. The other words (*loose*, *mostly*,
   *alternating*) are named in the note as not scored;
4. an annotation naming no foot or line length (*Accentual*, *mixed*, *syllabic*, several
   stanza metres) as no metre to score: `unscored`, and the note says why. Its poem gets no
   metre score, not even a sonnet's or limerick's own metre; rhyme and form are still checked.

Standard library only (`poemetric dataset validate` reads annotations without the checker).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import get_close_matches

from poemetric.form.meter_spec import (
    _FOOT_WORDS,
    _NAMED_METERS,
    FEET_BY_NAME,
    FEET_NAMES,
    MeterSpec,
    parse_meter,
)


@dataclass(frozen=True)
class MeterReading:
    """How a metre annotation is read: `spec` (None: no metre to scan), `note` (how it was read
    when not exactly as written, or why no metre is scored) and `unscored` (a metre was given
    but names nothing the checker scans: the poem gets no metre score)."""

    spec: MeterSpec | None
    note: str | None = None
    unscored: bool = False


_PARENTHESIS = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_TOKEN = re.compile(r"[a-z]+|\d+")
#: Words that say nothing about the metre, left out of the note's "not scored" list.
_FILLER = frozenset(
    (
        "a",
        "an",
        "and",
        "or",
        "of",
        "in",
        "with",
        "the",
        "line",
        "lines",
        "verse",
        "verses",
        "meter",
        "meters",
        "measure",
        "per",
        "each",
    )
)
#: "5-foot", "4 beats", "3 stresses": a number of feet.
_LENGTH_UNITS = frozenset(("foot", "feet", "beat", "beats", "stress", "stresses"))
_PHRASES = sorted((tuple(name.split()) for name in _NAMED_METERS), key=len, reverse=True)
_KNOWN = frozenset({*_FOOT_WORDS, *FEET_BY_NAME, *(w for p in _PHRASES for w in p)})


def read_meter(text: str | None) -> MeterReading:
    """The metre annotation `text` read as far as the checker can (module docstring)."""
    if text is None or not text.strip():
        return MeterReading(None)
    try:
        return MeterReading(parse_meter(text))
    except ValueError as error:
        exact = str(error)
    outside = " ".join(_PARENTHESIS.sub(" ", text).split())
    if outside and outside != " ".join(text.split()):
        try:
            spec = parse_meter(outside)
        except ValueError:
            pass
        else:
            aside = [" ".join(p.strip("()[]").split()) for p in _PARENTHESIS.findall(text)]
            if spec is None:
                return MeterReading(None, f"metre {text!r} read as no metre ({_listed(aside)})")
            return MeterReading(spec, _read_as(text, spec, aside))
    return _by_words(text, exact)


def _by_words(text: str, exact: str) -> MeterReading:
    tokens = _TOKEN.findall(text.lower())
    words = [_spelling(token) for token in tokens]
    named: list[MeterSpec] = []
    feet: list[str] = []
    lengths: list[int] = []
    used: set[int] = set()
    in_phrase: set[int] = set()
    i = 0
    while i < len(words):
        phrase = next((p for p in _PHRASES if tuple(words[i : i + len(p)]) == p), None)
        if phrase is not None:
            named.append(_NAMED_METERS[" ".join(phrase)])
            in_phrase.update(range(i, i + len(phrase)))
            i += len(phrase)
            continue
        word = words[i]
        if word in _FOOT_WORDS:
            feet.append(_FOOT_WORDS[word])
            used.add(i)
        elif word in FEET_BY_NAME:
            lengths.append(FEET_BY_NAME[word])
            used.add(i)
        elif _counted_length(words, i):
            lengths.append(int(word))
            used.update((i, i + 1))
        i += 1
    aside = [
        token
        for k, token in enumerate(tokens)
        if k not in used | in_phrase and words[k] not in _FILLER
    ]
    stanzas = list(dict.fromkeys(named))
    feet = list(dict.fromkeys(feet))
    lengths = list(dict.fromkeys(lengths))
    if len(stanzas) > 1:
        names = " and ".join(spec.name for spec in stanzas)
        return _unscored(text, f"it names several stanza metres ({names})")
    if stanzas:  # a stanza metre it names wins over the other words, which are noted
        aside = [t for k, t in enumerate(tokens) if k not in in_phrase and words[k] not in _FILLER]
        return MeterReading(stanzas[0], _read_as(text, stanzas[0], aside))
    if not lengths and len(feet) != 1:
        if feet:
            return _unscored(text, f"it names several feet ({', '.join(feet)}) and no line length")
        return _unscored(text, exact)
    foot = feet[0] if len(feet) == 1 else None
    if foot is None and not feet and all(n in (5, 6) for n in lengths):
        foot = "iambic"  # "pentameter" alone conventionally means iambic, as in parse_meter
    length_names = " or ".join(FEET_NAMES[n] for n in lengths)
    name = " ".join(x for x in (foot, length_names) if x)
    if len(lengths) > 1:
        spec = MeterSpec(name, foot, None, feet_choices=tuple(lengths))
    else:
        spec = MeterSpec(name, foot, lengths[0] if lengths else None)
    extra = f"several feet named ({', '.join(feet)}): any foot counts" if len(feet) > 1 else ""
    return MeterReading(spec, _read_as(text, spec, aside, extra))


def _counted_length(words: list[str], i: int) -> bool:
    """Whether words[i] is a number of feet: *5-foot*, *4 beats*, *3 stresses*."""
    return (
        words[i].isdigit()
        and i + 1 < len(words)
        and words[i + 1] in _LENGTH_UNITS
        and 1 <= int(words[i]) <= max(FEET_NAMES)
    )


def _spelling(word: str) -> str:
    """British *-metre*, *anapaest* and plurals (*alexandrines*, *trimeters*) as parse_meter
    spells them."""
    word = re.sub(r"metre(s?)$", r"meter\1", word).replace("anapaest", "anapest")
    if word not in _KNOWN and word.endswith("s") and word[:-1] in _KNOWN:
        return word[:-1]
    return word


def _read_as(text: str, spec: MeterSpec, aside: list[str], extra: str = "") -> str:
    parts = [f"metre {text!r} read as {spec.name}"]
    if spec.feet_choices:
        parts.append("each line scored by the length it fits best")
    if extra:
        parts.append(extra)
    if aside:
        parts.append(_listed(aside))
    parts.extend(_misspelt(aside))
    return "; ".join(parts)


def _listed(aside: list[str]) -> str:
    words = list(dict.fromkeys(aside))
    return f"{', '.join(repr(w) for w in words)} {'is' if len(words) == 1 else 'are'} not scored"


def _unscored(text: str, reason: str) -> MeterReading:
    """`reason` may be parse_meter's error, whose own reason (what numbers mean) is kept."""
    reason = reason.removeprefix(f"unrecognised meter {text!r}: ")
    if reason.startswith("expected e.g."):
        reason = (
            "it names no foot, line length or stanza metre that the checker scans (such as "
            "'iambic pentameter', 'anapestic trimeter' or 'common meter')"
        )
    note = "; ".join((f"metre {text!r} not scored: {reason}", *_misspelt(_TOKEN.findall(text))))
    return MeterReading(None, note, unscored=True)


def misspelt_hints(text: str | None) -> list[str]:
    """The 'did you mean ...?' parts of `read_meter(text)`'s note, one per misspelt metre word
    (`form check` repeats them once per annotation on stderr)."""
    note = read_meter(text).note or ""
    return [part for part in note.split("; ") if part.startswith(_DID_YOU_MEAN)]


_DID_YOU_MEAN = "did you mean "


def _misspelt(words: list[str]) -> list[str]:
    """'did you mean ...?' for words that look like a misspelt metre word (*pentamter*): such a
    word is not read, so the poem is held to less than was meant, or to no metre."""
    guesses = {
        word: close[0]
        for word in dict.fromkeys(w.lower() for w in words)
        if len(word) >= 5
        and _spelling(word) not in _KNOWN
        and (close := get_close_matches(word, sorted(_KNOWN), n=1, cutoff=0.8))
    }
    return [
        f"{_DID_YOU_MEAN}{right!r} for {wrong!r}? (a misspelt word is not read)"
        for wrong, right in guesses.items()
    ]
