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
    "N": (0.4, 0.0),  # monosyllabic content word right before another stress (old MAN)
    "S": (1.5, 0.0),
    "U": (0.0, 0.8),
    "T": (0.25, 0.1),
    "P": (0.6, 0.0),
    "M": (0.5, 0.0),
    "F": (0.0, 0.35),
}

# Cost of choosing a shorter (or, for -ed, longer) syllabification than the dictionary's.
ELISION_COSTS: dict[str, float] = {
    "slur": 0.3,
    "syncope": 0.7,
    "synaloepha": 0.8,
    "sounded -ed": 0.9,
}

# The line's last syllable: a stressed syllable there is hard to hear as weak (feminine endings
# are unstressed), so demoting it costs more.
FINAL_STRESS_COSTS: dict[str, tuple[float, float]] = {
    "N": (1.2, 0.0),
    "S": (2.0, 0.0),
    "U": (0.0, 0.4),  # final promotion is common: tem-per-ATE, me-lo-DY
    "T": (0.6, 0.1),
    "P": (0.9, 0.0),
    "M": (1.2, 0.0),
    "F": (0.3, 0.35),
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
    """Whether `word` is a grammatical (function) word: the phonetics module's list plus ours."""
    key = phonetics.normalize_word(word)
    if _shared_is_function_word is not None and _shared_is_function_word(key):
        return True
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


def _syncope_variants(phones: str) -> list[tuple[str, str]]:
    """Stress strings with one weak unstressed vowel dropped, with the kind of elision.

    ``slur``: a weak vowel right after another vowel or gliding into one (power -> pow'r,
    flower, being, Assyrian, -ious); ``syncope``: a schwa-like vowel before r/l/n/m or
    between consonants (heaven -> heav'n, every -> ev'ry, wandering -> wand'ring).
    """
    items = phones.split()
    vowel_idx = [i for i, p in enumerate(items) if p[-1].isdigit()]
    if len(vowel_idx) < 2 or len(vowel_idx) == len(items):
        return []  # one syllable, or a spelling-based guess with no consonants to reason about
    stress = [items[i][-1] for i in vowel_idx]
    variants = []
    for k, i in enumerate(vowel_idx):
        vowel, digit = items[i][:-1], items[i][-1]
        if digit != "0" or vowel not in {"AH", "ER", "IH", "IY", "UW"}:
            continue
        before = items[i - 1] if i > 0 else ""
        after = items[i + 1] if i + 1 < len(items) else ""
        before_vowel = before[-1:].isdigit() and not before.startswith("ER")
        after_vowel = after[-1:].isdigit()
        shorter = "".join(stress[:k] + stress[k + 1 :])
        if (vowel in {"IY", "UW", "IH"} and after_vowel) or (before_vowel and vowel == "ER"):
            variants.append((shorter, "slur"))  # Assyrian, glorious; power, flower, fire
        elif before_vowel:
            variants.append((shorter, "syncope"))  # being, violet, joyous
        elif (k > 0 and vowel in {"AH", "ER"} and after in {"R", "L", "N", "M"}) or (
            k > 0 and vowel == "ER" and (after_vowel or not after)
        ):
            variants.append((shorter, "syncope"))
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

    if not _VOWEL_GROUP.search(key):
        add("", 0.0, "elided")  # th', t'
    else:
        prons = phonetics.pronunciations(key)
        longest = max(phonetics.syllable_count(p) for p in prons)
        for phones in prons:
            stress = phonetics.stress_pattern(phones)
            add(stress, 0.0)
            if len(stress) == longest and "'" not in key:
                for shorter, kind in _syncope_variants(phones):
                    add(shorter, ELISION_COSTS[kind], kind)
    accented_ed = word.lower().endswith(("èd", "éd"))
    if key.endswith("ed") and not key.endswith(("eed", "'d")) and len(key) > 3:
        for classes in list(options):
            if options[classes].cost == 0.0 and classes:
                stress = "".join("1" if c in "SMP" else "2" if c == "T" else "0" for c in classes)
                add(
                    stress + "0",
                    0.0 if accented_ed else ELISION_COSTS["sounded -ed"],
                    "sounded -ed",
                )
    return tuple(sorted(options.values(), key=lambda o: o.cost))


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
                    opts.append(
                        WordOption(opt.classes[:-1], ELISION_COSTS["synaloepha"], "synaloepha")
                    )
        per_word.append(tuple(opts))
    for i in range(len(per_word) - 1):
        # phrase stress: of two adjacent stressed monosyllables the first yields (old MAN)
        if any(o.classes[:1] in ("S", "M") for o in per_word[i + 1]):
            per_word[i] = tuple(
                WordOption("N", o.cost, o.note) if o.classes == "M" else o for o in per_word[i]
            )
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
        inner=(("ws", 1.0, "iamb"),),
        catalectic=(),
        endings=(("w", 0.3, "feminine ending"), ("ww", 0.6, "double feminine ending")),
        prior=0.2,
    ),
    "dactylic": FootGrammar(
        "sww",
        first=(("wsww", 0.8, "anacrusis"), ("sw", 0.5, "trochee"), ("wsw", 1.1, "anacrusis")),
        inner=(("sw", 0.5, "trochee"),),
        catalectic=(
            ("sw", 0.1, "catalexis"),
            ("s", 0.2, "catalexis"),
            ("sws", 0.3, "cretic ending"),
        ),
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
    to_go: tuple[tuple[int, int], ...]  # state -> (fewest, most) syllables left to accept
    start: int = 0


def _syllables_to_go(
    arcs: list[list[Arc]], accepting: dict[int, int]
) -> tuple[tuple[int, int], ...]:
    """Fewest and most syllables from each state to an accepting state (the graph is acyclic)."""
    memo: dict[int, tuple[int, int]] = {}
    never = (10**6, -(10**6))

    def visit(state: int) -> tuple[int, int]:
        if state in memo:
            return memo[state]
        low, high = (0, 0) if state in accepting else never
        for arc in arcs[state]:
            sub_low, sub_high = visit(arc.target)
            low, high = min(low, sub_low + 1), max(high, sub_high + 1)
        memo[state] = (low, high)
        return memo[state]

    return tuple(visit(state) for state in range(len(arcs)))


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
    return Automaton(tuple(tuple(a) for a in arcs), accepting, _syllables_to_go(arcs, accepting))


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
    last_word = len(options) - 1
    to_go = machine.to_go
    # fewest / most syllables in the words after each word: prunes states that cannot finish
    after_low = [0] * (len(options) + 1)
    after_high = [0] * (len(options) + 1)
    for i in range(len(options) - 1, -1, -1):
        lengths = [len(o.classes) for o in options[i]] or [0]
        after_low[i] = after_low[i + 1] + min(lengths)
        after_high[i] = after_high[i + 1] + max(lengths)
    for word_index, word_opts in enumerate(options):
        rest_low, rest_high = after_low[word_index + 1], after_high[word_index + 1]
        nxt: dict[int, tuple[float, Any]] = {}
        for state, (base_cost, back) in layer.items():
            for opt in word_opts:
                frontier: dict[int, tuple[float, str, tuple[str, ...]]] = {
                    state: (base_cost + opt.cost, "", ())
                }
                final_syllable = len(opt.classes) - 1 if word_index == last_word else -1
                n_classes = len(opt.classes)
                for syllable, cls in enumerate(opt.classes):
                    table = FINAL_STRESS_COSTS if syllable == final_syllable else STRESS_COSTS
                    costs = table[cls]
                    left = n_classes - syllable - 1
                    need_low, need_high = left + rest_low, left + rest_high
                    stepped: dict[int, tuple[float, str, tuple[str, ...]]] = {}
                    for st, (cost, labels, variations) in frontier.items():
                        for arc in arcs[st]:
                            fewest, most = to_go[arc.target]
                            if fewest > need_high or most < need_low:
                                continue
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
