"""Scansion engine: words -> syllable stress options -> lattice search against foot templates.

The public API lives in :mod:`poemetric.form.meter`; this module holds the machinery.

Each syllable gets a *stress class* (one letter):

``S`` primary stress of a polysyllable, ``U`` unstressed syllable of a polysyllable,
``T`` secondary stress (flexible), ``P`` stressed syllable of a polysyllabic function word
(``upon``, ``into``), ``M`` monosyllabic content word (usually strong, may be demoted),
``F`` monosyllabic function word (usually weak, may be promoted).

A meter (foot type, number of feet) is compiled into a small nondeterministic automaton over
metrical positions ``w``/``s``. Its arcs carry the cost of the variation they stand for
(initial inversion, feminine ending, catalexis, substitutions). Words offer alternative
syllabifications (elision, syncope, synaloepha, sounded ``-ed``) with their own costs, so the
search picks the syllable count that fits the meter best, as a human scansion does.
The total cost = variation costs + elision costs + stress-mismatch costs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Any

from poemetric.form import phonetics

# The phonetics owner adds is_function_word; fall back to a local list until then.
_shared_is_function_word: Callable[[str], bool] | None = getattr(
    phonetics, "is_function_word", None
)

FOOT_PATTERNS: dict[str, str] = {
    "iambic": "ws",
    "trochaic": "sw",
    "anapestic": "wws",
    "dactylic": "sww",
    "amphibrachic": "wsw",
}
MAX_FEET = 8

# (cost when the syllable sits in a w position, cost when it sits in an s position)
STRESS_COSTS: dict[str, tuple[float, float]] = {
    "S": (1.5, 0.0),
    "U": (0.0, 0.8),
    "T": (0.25, 0.1),
    "P": (0.6, 0.0),
    "M": (0.5, 0.0),
    "F": (0.0, 0.35),
}

_LOCAL_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "but",
        "or",
        "nor",
        "for",
        "yet",
        "so",
        "if",
        "as",
        "than",
        "that",
        "though",
        "while",
        "when",
        "whence",
        "where",
        "whose",
        "who",
        "whom",
        "which",
        "what",
        "whate'er",
        "wherein",
        "whereof",
        "i",
        "me",
        "my",
        "mine",
        "we",
        "us",
        "our",
        "ours",
        "you",
        "your",
        "yours",
        "ye",
        "thou",
        "thee",
        "thy",
        "thine",
        "he",
        "him",
        "his",
        "she",
        "her",
        "hers",
        "it",
        "its",
        "they",
        "them",
        "their",
        "theirs",
        "'tis",
        "'twas",
        "o'er",
        "this",
        "these",
        "those",
        "am",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "have",
        "has",
        "had",
        "do",
        "does",
        "did",
        "shall",
        "should",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "must",
        "at",
        "by",
        "from",
        "in",
        "into",
        "of",
        "off",
        "on",
        "onto",
        "to",
        "till",
        "up",
        "upon",
        "with",
        "within",
        "without",
        "o",
        "oh",
        "ah",
        "not",
        "no",
        "e'er",
        "ne'er",
        "'twill",
        "'em",
        "th'",
        "t'",
        "i'm",
        "i'll",
        "i'd",
        "it's",
        "there",
        "here",
        "then",
        "thus",
        "too",
        "such",
    ]
)


def is_function_word(word: str) -> bool:
    """Whether `word` is a grammatical (function) word; uses the phonetics module's list when present."""
    key = phonetics.normalize_word(word)
    if _shared_is_function_word is not None:
        return bool(_shared_is_function_word(key))
    return key in _LOCAL_FUNCTION_WORDS


# --------------------------------------------------------------------------------------------
# Tokenising and word options
# --------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-zÀ-ÿ]+(?:['’-][A-Za-zÀ-ÿ]+)*'?|'[A-Za-z]+(?:['’-][A-Za-z]+)*")
_VOWEL_GROUP = re.compile(r"[aeiouyàâäèéêëìîïòôöùûü]+")
_VOWEL_PHONES = frozenset(
    ["AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"]
)


def tokenize(line: str) -> list[str]:
    """Words of a line: keeps hyphenated compounds and apostrophe forms (o'er, lov'd, 'tis)."""
    text = line.replace("’", "'").replace("‘", "'")
    return [tok for tok in _TOKEN.findall(text) if any(ch.isalpha() for ch in tok)]


@dataclass(frozen=True)
class WordOption:
    """One way to say a word: stress classes (one letter per syllable), cost, note."""

    classes: str
    cost: float
    note: str | None = None


def _spelled_syllables(word: str) -> int:
    """Syllable estimate from spelling for forms CMUdict lacks (heav'n, lov'd, o'er)."""
    letters = word.replace("'", "")
    count = len(_VOWEL_GROUP.findall(letters))
    if letters.endswith("e") and not letters.endswith(("le", "ee")) and count > 1:
        count -= 1
    return count


def _classes_from_stress(stress: str, function: bool) -> str:
    if len(stress) == 1:
        return "F" if function else "M"
    out = []
    for digit in stress:
        if digit == "1":
            out.append("P" if function else "S")
        elif digit == "2":
            out.append("T")
        else:
            out.append("U")
    return "".join(out)


def _syncope_variants(phones: str) -> list[str]:
    """Stress strings with one weak unstressed vowel dropped (heaven -> heav'n, power -> pow'r)."""
    items = phones.split()
    vowel_idx = [i for i, p in enumerate(items) if p[:-1] in _VOWEL_PHONES]
    if len(vowel_idx) < 2:
        return []
    stress = [items[i][-1] for i in vowel_idx]
    variants = []
    for k, i in enumerate(vowel_idx):
        phone = items[i]
        if phone[-1] != "0" or phone[:-1] not in {"AH", "ER", "IH", "IY", "UW"}:
            continue
        before = items[i - 1] if i > 0 else ""
        after = items[i + 1] if i + 1 < len(items) else ""
        glide = phone[:-1] in {"IY", "UW"} and after[:-1] in _VOWEL_PHONES  # -ian, -ious
        hiatus = before[:-1] in _VOWEL_PHONES  # power, being, violet
        weak = phone[:-1] in {"AH", "ER", "IH"} and (after in {"R", "L", "N", "M"} or after == "")
        if glide or hiatus or (weak and phone[:-1] != "IH") or (phone[:-1] == "ER" and after):
            variants.append("".join(stress[:k] + stress[k + 1 :]))
    return variants


@lru_cache(maxsize=65536)
def word_options(word: str) -> tuple[WordOption, ...]:
    """All syllabification / stress options of one word (hyphenated compounds combined)."""
    parts = [p for p in re.split(r"-+", word) if p]
    if len(parts) > 1:
        combos: dict[str, WordOption] = {}
        for choice in product(*(word_options(p) for p in parts)):
            classes = "".join(o.classes for o in choice)
            cost = sum(o.cost for o in choice)
            notes = [o.note for o in choice if o.note]
            if classes not in combos or combos[classes].cost > cost:
                combos[classes] = WordOption(classes, cost, notes[0] if notes else None)
        return tuple(sorted(combos.values(), key=lambda o: o.cost)[:6])
    return _single_word_options(word)


def _single_word_options(word: str) -> tuple[WordOption, ...]:
    key = phonetics.normalize_word(word)
    if not key:
        return ()
    function = is_function_word(key)
    options: dict[str, WordOption] = {}

    def add(stress: str, cost: float, note: str | None = None) -> None:
        classes = _classes_from_stress(stress, function) if stress else ""
        if classes not in options or options[classes].cost > cost:
            options[classes] = WordOption(classes, cost, note)

    if "'" in key and not _in_dictionary(key):
        count = _spelled_syllables(key)
        base = _apostrophe_stress(key, count)
        add(base, 0.0, "elision" if count else "elided")
    else:
        for phones in phonetics.pronunciations(key):
            stress = phonetics.stress_pattern(phones)
            add(stress, 0.0)
            for shorter in _syncope_variants(phones):
                add(shorter, 0.45, "syncope")
    accented_ed = word.lower().endswith(("èd", "éd"))
    if key.endswith("ed") and not key.endswith(("eed", "'d")) and len(key) > 3:
        for classes in list(options):
            if options[classes].cost == 0.0 and classes:
                stress = "".join("1" if c in "SMP" else "2" if c == "T" else "0" for c in classes)
                add(stress + "0", 0.0 if accented_ed else 0.9, "sounded -ed")
    return tuple(sorted(options.values(), key=lambda o: o.cost))


@lru_cache(maxsize=65536)
def _in_dictionary(key: str) -> bool:
    import pronouncing

    return bool(pronouncing.phones_for_word(key))


def _apostrophe_stress(key: str, count: int) -> str:
    """Stress digits for an apostrophe form: borrow the stress of a restored spelling if known."""
    if count == 0:
        return ""
    stem = key.replace("'", "")
    for restored in (key.replace("'", "e"), stem, key.replace("'", "i"), key.replace("'", "o")):
        if _in_dictionary(restored):
            stress = phonetics.stress_pattern(phonetics.pronunciations(restored)[0])
            if len(stress) == count:
                return stress
            if len(stress) > count:
                drop = stress.find("0") if "0" in stress else len(stress) - 1
                shorter = stress[:drop] + stress[drop + 1 :]
                if len(shorter) == count:
                    return shorter
    return "1" + "0" * (count - 1)


def _ends_in_vowel_sound(word: str) -> bool:
    key = phonetics.normalize_word(word)
    return bool(key) and key[-1] in "aeiouy" and key not in {"you", "thou", "i", "o", "oh"}


def _starts_with_vowel_sound(word: str) -> bool:
    key = phonetics.normalize_word(word)
    return bool(key) and (key[0] in "aeiou" or (key.startswith("h") and key in {"hour", "honour"}))


@lru_cache(maxsize=16384)
def line_options(line: str) -> tuple[tuple[str, ...], tuple[tuple[WordOption, ...], ...]]:
    """Tokens of a line and, per token, its options including cross-word synaloepha."""
    words = tokenize(line)
    per_word: list[tuple[WordOption, ...]] = []
    for i, word in enumerate(words):
        opts = list(word_options(word))
        nxt = words[i + 1] if i + 1 < len(words) else None
        if nxt is not None and _ends_in_vowel_sound(word) and _starts_with_vowel_sound(nxt):
            for opt in list(opts):
                if opt.classes and opt.classes[-1] in "UF" and opt.cost == 0.0:
                    opts.append(WordOption(opt.classes[:-1], 0.5, "synaloepha"))
        per_word.append(tuple(opts))
    return tuple(words), tuple(per_word)


# --------------------------------------------------------------------------------------------
# Foot grammars and their automata
# --------------------------------------------------------------------------------------------

Variants = dict[str, tuple[float, str]]  # realisation -> (cost, variation name)


@dataclass(frozen=True)
class FootGrammar:
    """Allowed realisations of one foot type by position in the line, with their costs."""

    base: str
    first: tuple[tuple[str, float, str], ...]
    inner: tuple[tuple[str, float, str], ...]
    catalectic: tuple[tuple[str, float, str], ...]
    endings: tuple[tuple[str, float, str], ...]
    prior: float  # template prior cost, so that rarer meters win only with a better fit


GRAMMARS: dict[str, FootGrammar] = {
    "iambic": FootGrammar(
        "ws",
        first=(("sw", 0.35, "initial inversion"), ("s", 0.9, "headless"), ("wws", 0.7, "anapest")),
        inner=(("sw", 1.1, "inversion"), ("wws", 0.75, "anapest")),
        catalectic=(),
        endings=(("w", 0.35, "feminine ending"), ("ww", 1.2, "double feminine ending")),
        prior=0.0,
    ),
    "trochaic": FootGrammar(
        "sw",
        first=(("wsw", 0.8, "anacrusis"),),
        inner=(("sww", 0.8, "dactyl"),),
        catalectic=(("s", 0.15, "catalexis"),),
        endings=(),
        prior=0.1,
    ),
    "anapestic": FootGrammar(
        "wws",
        first=(("ws", 0.15, "iamb"), ("s", 1.0, "headless")),
        inner=(("ws", 0.6, "iamb"),),
        catalectic=(),
        endings=(("w", 0.3, "feminine ending"), ("ww", 0.6, "double feminine ending")),
        prior=0.2,
    ),
    "dactylic": FootGrammar(
        "sww",
        first=(("wsww", 0.8, "anacrusis"), ("sw", 0.5, "trochee"), ("wsw", 1.1, "anacrusis")),
        inner=(("sw", 0.5, "trochee"),),
        catalectic=(("sw", 0.1, "catalexis"), ("s", 0.2, "catalexis")),
        endings=(),
        prior=0.2,
    ),
    "amphibrachic": FootGrammar(
        "wsw",
        first=(("sw", 0.6, "headless"),),
        inner=(("ws", 0.8, "iamb"),),
        catalectic=(("ws", 0.2, "catalexis"),),
        endings=(("w", 0.5, "extra ending"),),
        prior=0.6,
    ),
}


@dataclass(frozen=True)
class Arc:
    label: int  # 0 = w, 1 = s
    target: int
    cost: float
    variation: str | None


@dataclass(frozen=True)
class Automaton:
    arcs: tuple[tuple[Arc, ...], ...]
    accepting: dict[int, int]  # state -> number of feet
    start: int = 0


def _foot_variants(grammar: FootGrammar, index: int, last: bool) -> Variants:
    variants: Variants = {grammar.base: (0.0, "")}
    for pattern, cost, name in grammar.first if index == 0 else grammar.inner:
        if pattern not in variants or variants[pattern][0] > cost:
            variants[pattern] = (cost, name)
    if not last:
        return variants
    ends: Variants = {}
    for pattern, cost, name in [
        *((p, c, n) for p, (c, n) in variants.items()),
        *grammar.catalectic,
    ]:
        for ending, end_cost, end_name in (("", 0.0, ""), *grammar.endings):
            total = cost + end_cost
            label = ", ".join(x for x in (name, end_name) if x)
            key = pattern + ending
            if key not in ends or ends[key][0] > total:
                ends[key] = (total, label)
    return ends


@lru_cache(maxsize=256)
def automaton(foot: str, min_feet: int, max_feet: int) -> Automaton:
    """Automaton accepting every realisation of `foot` lines with min..max feet."""
    grammar = GRAMMARS[foot]
    arcs: list[list[Arc]] = [[]]  # state 0 = boundary before foot 0
    boundaries = [0]
    accepting: dict[int, int] = {}

    def new_state() -> int:
        arcs.append([])
        return len(arcs) - 1

    def add_path(source: int, pattern: str, target: int, cost: float, name: str) -> None:
        state = source
        for i, ch in enumerate(pattern):
            nxt = target if i == len(pattern) - 1 else new_state()
            first = i == 0
            arc = Arc(
                1 if ch == "s" else 0,
                nxt,
                cost if first else 0.0,
                (name or None) if first else None,
            )
            arcs[state].append(arc)
            state = nxt

    for index in range(max_feet):
        source = boundaries[index]
        if index + 1 < max_feet:
            target = new_state()
            boundaries.append(target)
            for pattern, (cost, name) in _foot_variants(grammar, index, last=False).items():
                add_path(source, pattern, target, cost, name)
        if index + 1 >= min_feet:
            final = new_state()
            accepting[final] = index + 1
            for pattern, (cost, name) in _foot_variants(grammar, index, last=True).items():
                add_path(source, pattern, final, cost, name)
    return Automaton(tuple(tuple(a) for a in arcs), accepting)


# --------------------------------------------------------------------------------------------
# Lattice search
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decoding:
    """Best path of a line through one automaton."""

    cost: float
    feet: int
    labels: str  # w/s per syllable
    classes: str  # stress class per syllable
    choices: tuple[WordOption, ...]  # chosen option per word
    variations: tuple[str, ...]


def decode(options: tuple[tuple[WordOption, ...], ...], machine: Automaton) -> Decoding | None:
    """Cheapest joint choice of word options and automaton path (None if nothing fits)."""
    arcs = machine.arcs
    # layer: state -> (cost, backpointer); backpointer = (prev_state, option, labels, vars, prev)
    layer: dict[int, tuple[float, Any]] = {machine.start: (0.0, None)}
    for word_opts in options:
        nxt: dict[int, tuple[float, Any]] = {}
        for state, (base_cost, back) in layer.items():
            for opt in word_opts:
                frontier: dict[int, tuple[float, str, tuple[str, ...]]] = {
                    state: (base_cost + opt.cost, "", ())
                }
                for cls in opt.classes:
                    costs = STRESS_COSTS[cls]
                    stepped: dict[int, tuple[float, str, tuple[str, ...]]] = {}
                    for st, (cost, labels, variations) in frontier.items():
                        for arc in arcs[st]:
                            total = cost + arc.cost + costs[arc.label]
                            old = stepped.get(arc.target)
                            if old is None or old[0] > total:
                                new_vars = (
                                    (*variations, arc.variation) if arc.variation else variations
                                )
                                stepped[arc.target] = (total, labels + "ws"[arc.label], new_vars)
                    frontier = stepped
                    if not frontier:
                        break
                for st, (cost, labels, variations) in frontier.items():
                    old_entry = nxt.get(st)
                    if old_entry is None or old_entry[0] > cost:
                        nxt[st] = (cost, (state, opt, labels, variations, back))
        layer = nxt
        if not layer:
            return None
    best: tuple[float, int, Any] | None = None
    for state, (cost, back) in layer.items():
        if state in machine.accepting and (best is None or cost < best[0]):
            best = (cost, state, back)
    if best is None:
        return None
    cost, state, back = best
    chosen: list[WordOption] = []
    labels_parts: list[str] = []
    used: list[str] = []
    while back is not None:
        _prev, opt, labels, word_vars, back = back
        chosen.append(opt)
        labels_parts.append(labels)
        used[:0] = list(word_vars)
    chosen.reverse()
    labels_parts.reverse()
    for opt in chosen:
        if opt.note and opt.note not in ("elision", "elided"):
            used.append(opt.note)
    return Decoding(
        cost=cost,
        feet=machine.accepting[state],
        labels="".join(labels_parts),
        classes="".join(o.classes for o in chosen),
        choices=tuple(chosen),
        variations=tuple(used),
    )
