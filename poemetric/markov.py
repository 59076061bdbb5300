"""A seeded word n-gram (Markov) poem generator: the offline baseline.

The classic baseline of the ghostwriting literature (Potash et al.) is an n-gram model trained on
the target author's texts. Ours is trained on the dataset's human poems (leaving out the poem whose
prompt it answers) and is made just form-aware enough to be a fair floor: it samples candidate lines,
keeps the one closest to the requested line length whose end word rhymes where the scheme asks,
and copies refrains where the form repeats lines. It never sees the prompt's theme.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate

from poemetric.form.phonetics import pronunciations, rhyming_part, syllable_count

BOS = "<s>"
EOS = "</s>"
# Words are letters of any script (wreathèd, naïve), digits, apostrophes and hyphens.
_TOKEN = re.compile(r"(?:[^\W_]|['’\-])+[.,;:!?]*|[.,;:!?]")
_WORD = re.compile(r"(?:[^\W\d_]|['’])+")
_FEET = {"monometer": 1, "dimeter": 2, "trimeter": 3, "tetrameter": 4, "pentameter": 5,
         "hexameter": 6, "heptameter": 7, "octameter": 8}  # fmt: skip
_SESTINA_ORDER = (5, 0, 4, 1, 3, 2)  # retrogradatio cruciata: 6 1 5 2 4 3


@dataclass
class _Choices:
    words: list[str] = field(default_factory=list)
    cumulative: list[int] = field(default_factory=list)


NgramCounts = dict[tuple[str, ...], Counter[str]]


def ngram_counts(lines: Iterable[str], order: int) -> NgramCounts:
    """How often each word follows each `order`-word state, over the lines (one sequence each)."""
    counts: NgramCounts = defaultdict(Counter)
    for line in lines:
        tokens = _TOKEN.findall(line)
        if not tokens:
            continue
        seq = [BOS] * order + tokens + [EOS]
        for i in range(order, len(seq)):
            counts[tuple(seq[i - order : i])][seq[i]] += 1
    return dict(counts)


def _choices(counter: Counter[str]) -> _Choices:
    words = sorted(counter)
    return _Choices(words, list(accumulate(counter[w] for w in words)))


class MarkovModel:
    """Word n-gram model over poem lines (each line is one sequence)."""

    def __init__(self, lines: Iterable[str], order: int = 2) -> None:
        if order < 1:
            raise ValueError("order must be at least 1")
        self.order = order
        self._counts = ngram_counts(lines, order)
        if not self._counts:
            raise ValueError("cannot train a Markov model on an empty corpus")
        self._table = {state: _choices(counter) for state, counter in self._counts.items()}
        # States whose choices differ from `_table` (None: the state is gone), see `without`.
        self._overrides: dict[tuple[str, ...], _Choices | None] = {}
        self._reduced = False

    def without(self, counts: NgramCounts) -> MarkovModel:
        """The model trained on this model's lines less the lines that gave `counts`.

        The same model as training on the remaining lines, in time proportional to `counts`
        (the states those lines touch) rather than to the whole corpus: the table is shared.
        """
        if self._reduced:
            raise ValueError("without() needs a trained model, not one already reduced")
        model = object.__new__(MarkovModel)
        model.order = self.order
        model._counts = self._counts
        model._table = self._table
        model._overrides = {}
        model._reduced = True
        for state, removed in counts.items():
            left = self._counts.get(state, Counter()) - removed
            model._overrides[state] = _choices(left) if left else None
        gone = sum(c is None and s in self._table for s, c in model._overrides.items())
        if gone == len(self._table):
            raise ValueError("cannot train a Markov model on an empty corpus")
        return model

    def sample_line(self, rng: random.Random, max_tokens: int = 30) -> str:
        state = (BOS,) * self.order
        out: list[str] = []
        overrides = self._overrides
        while len(out) < max_tokens:
            choices = overrides[state] if state in overrides else self._table.get(state)
            if choices is None:
                break
            pick = rng.randrange(choices.cumulative[-1])
            word = choices.words[bisect_right(choices.cumulative, pick)]
            if word == EOS:
                break
            out.append(word)
            state = (*state[1:], word)
        return _join(out)


def _join(tokens: Sequence[str]) -> str:
    text = " ".join(tokens)
    return re.sub(r" ([.,;:!?])", r"\1", text).strip()


def _end_word(line: str) -> str:
    words = _WORD.findall(line)
    return words[-1].lower() if words else ""


def _syllables(line: str) -> int:
    total = 0
    for word in _WORD.findall(line):
        prons = pronunciations(word)
        total += syllable_count(prons[0]) if prons else 1
    return total


def _replace_end_word(line: str, word: str) -> str:
    match = re.search(r"(?:[^\W\d_]|['’])+([^\w'’]*)$", line)
    return line if match is None else line[: match.start()] + word + match.group(1)


def _rhyme_key(word: str) -> set[str]:
    return {rhyming_part(p) for p in pronunciations(word)} if word else set()


@dataclass(frozen=True)
class LinePlan:
    """One line to write: its rhyme letter, target syllables and, for refrains, the source line."""

    letter: str
    syllables: int
    repeat_of: int | None = None
    end_word_of: int | None = None  # sestina: end with the end word of this earlier line


def _line_syllables(meter: str | None, form: str, index: int) -> int:
    text = (meter or "").lower()
    for name, feet in _FEET.items():
        if name in text:
            per_foot = 3 if ("anap" in text or "dactyl" in text) else 2
            return feet * per_foot
    if form == "ballad" or "common" in text or "ballad" in text:
        return 8 if index % 2 == 0 else 6
    if form == "limerick":
        return (8, 8, 5, 5, 8)[index % 5]
    return 10 if form in {"sonnet", "villanelle", "sestina"} else 8


def plan_poem(form: str, rhyme: str | None, meter: str | None) -> list[list[LinePlan]]:
    """Stanzas of line plans for a form, following an explicit rhyme pattern when given."""
    form = form.lower()
    letters = re.sub(r"[^A-Za-z]", "", rhyme or "").upper()
    # The fixed forms' lines are as long as the requested meter asks (a villanelle in iambic
    # tetrameter: 8 syllables), else the form's usual length (10; a pantoum's 8).
    n = _line_syllables(meter, form, 0)
    if form == "villanelle":
        plans = [LinePlan("A" if i in (0, 2) else "B", n) for i in range(3)]
        stanzas = [plans]
        for s in range(1, 6):
            refrain = 0 if s % 2 == 1 else 2
            body = [LinePlan("A", n), LinePlan("B", n), LinePlan("A", n, repeat_of=refrain)]
            if s == 5:
                body = [LinePlan("A", n), LinePlan("B", n), LinePlan("A", n, repeat_of=0),
                        LinePlan("A", n, repeat_of=2)]  # fmt: skip
            stanzas.append(body)
        return stanzas
    if form == "pantoum":
        stanzas = [[LinePlan(c, n) for c in "ABAB"]]
        for s in range(1, 4):
            prev = 4 * (s - 1)
            stanzas.append([LinePlan("B", n, repeat_of=prev + 1), LinePlan("C", n),
                            LinePlan("B", n, repeat_of=prev + 3), LinePlan("C", n)])  # fmt: skip
        stanzas.append([LinePlan("C", n, repeat_of=13), LinePlan("A", n, repeat_of=2),
                        LinePlan("C", n, repeat_of=15), LinePlan("A", n, repeat_of=0)])  # fmt: skip
        return stanzas
    if form == "sestina":
        stanzas = [[LinePlan(c, n) for c in "ABCDEF"]]
        order = list(range(6))
        for _ in range(1, 6):
            order = [order[i] for i in _SESTINA_ORDER]
            stanzas.append([LinePlan("ABCDEF"[k], n, end_word_of=k) for k in order])
        stanzas.append([LinePlan("ABCDEF"[k], n, end_word_of=k) for k in (1, 3, 5)])
        return stanzas
    defaults = {"ballad": "ABCB" * 4, "ghazal": "AABACADAEA", "limerick": "AABBA",
                "sonnet": "ABABCDCDEFEFGG"}  # fmt: skip
    scheme = letters or defaults.get(form, "ABAB" * 3)
    if form == "ballad" and len(scheme) <= 4:
        scheme = scheme * 4
    size = {"ballad": 4, "ghazal": 2}.get(form, len(scheme))
    lines = [LinePlan(letter, _line_syllables(meter, form, i)) for i, letter in enumerate(scheme)]
    if form == "ballad":  # rhyme letters are stanza-local: make each quatrain's letters unique
        lines = [
            LinePlan(f"{line.letter}{i // size}", line.syllables) for i, line in enumerate(lines)
        ]
    return [lines[i : i + size] for i in range(0, len(lines), size)]


def write_poem(
    model: MarkovModel,
    form: str,
    rhyme: str | None,
    meter: str | None,
    rng: random.Random,
    *,
    candidates: int = 40,
) -> str:
    """Sample a poem following `plan_poem`: best of `candidates` sampled lines for each line."""
    written: list[str] = []
    anchors: dict[str, str] = {}  # rhyme letter -> end word of its first line
    stanzas_out: list[list[str]] = []
    for stanza in plan_poem(form, rhyme, meter):
        out: list[str] = []
        for plan in stanza:
            if plan.repeat_of is not None and plan.repeat_of < len(written):
                line = written[plan.repeat_of]
            else:
                line = _best_line(model, plan, anchors, written, rng, candidates)
            anchors.setdefault(plan.letter, _end_word(line))
            written.append(line)
            out.append(line)
        stanzas_out.append(out)
    return "\n\n".join("\n".join(s) for s in stanzas_out) + "\n"


def _best_line(
    model: MarkovModel,
    plan: LinePlan,
    anchors: dict[str, str],
    written: list[str],
    rng: random.Random,
    candidates: int,
) -> str:
    anchor = anchors.get(plan.letter)
    anchor_keys = _rhyme_key(anchor) if anchor else set()
    best, best_cost = "", float("inf")
    for _ in range(candidates):
        line = model.sample_line(rng)
        if not line:
            continue
        if plan.end_word_of is not None and plan.end_word_of < len(written):
            required = _end_word(written[plan.end_word_of])
            line = _replace_end_word(line, required)
        end = _end_word(line)
        cost = abs(_syllables(line) - plan.syllables) + (8 if line in written else 0)
        if anchor_keys and plan.end_word_of is None:
            cost += 0 if (end != anchor and _rhyme_key(end) & anchor_keys) else 6
        if cost < best_cost:
            best, best_cost = line, cost
            if cost == 0:
                break
    return best or "..."
