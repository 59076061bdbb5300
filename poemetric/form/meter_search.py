"""Score lines against every meter at once: syllabifications x realisations, vectorised.

For a line, the word options (:mod:`poemetric.form.meter_words`) give a small set of
*syllabifications* (one option per word; cheap ones first, bounded in number and extra cost).
A syllabification with ``n`` syllables is a row of stress-class codes; its cost against every
realisation with ``n`` syllables of every meter (:mod:`poemetric.form.meter_templates`) is

    variation cost + option costs + sum_i w_cost[class_i] + strong @ (s_cost - w_cost)[classes]

one matrix product per length for all meters together. Lines are analysed in batches (a poem,
or all lines of a benchmark) so numpy's per-call overhead is shared; per line only the best
cost of each (foot, feet) is kept, and a full reading (w/s labels, variations, chosen word
options) is rebuilt on demand for the meters asked about.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from poemetric.form.meter_templates import FOOT_TYPES, MAX_FEET, LengthTable, length_table
from poemetric.form.meter_words import CLASS_LETTERS, WordOption, line_options

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
# The line's last syllable: a stressed syllable there is hard to hear as weak (feminine endings
# are unstressed), so demoting it costs more; promoting a final weak syllable is common.
FINAL_STRESS_COSTS: dict[str, tuple[float, float]] = {
    "N": (1.2, 0.0),
    "S": (2.0, 0.0),
    "U": (0.0, 0.4),  # tem-per-ATE, me-lo-DY
    "T": (0.6, 0.1),
    "P": (0.9, 0.0),
    "M": (1.2, 0.0),
    "F": (0.3, 0.35),
}
# Syllabifications kept per line: at most this many, with at most this much elision cost.
MAX_SYLLABIFICATIONS = 48
MAX_OPTION_COST = 2.6

_CODE = {letter: index for index, letter in enumerate(CLASS_LETTERS)}
_FINAL = len(CLASS_LETTERS)  # code offset of the same class in the line-final syllable
_W_COST = np.array(
    [STRESS_COSTS[c][0] for c in CLASS_LETTERS] + [FINAL_STRESS_COSTS[c][0] for c in CLASS_LETTERS]
)
_DELTA = (
    np.array(
        [STRESS_COSTS[c][1] for c in CLASS_LETTERS]
        + [FINAL_STRESS_COSTS[c][1] for c in CLASS_LETTERS]
    )
    - _W_COST
)
# code of the extra "syllable" that picks up a realisation's variation cost (last column)
_BIAS = 2 * len(CLASS_LETTERS)
_W_COST = np.append(_W_COST, 0.0)
_DELTA = np.append(_DELTA, 1.0)
_W_LIST = _W_COST.tolist()
_SHAPE = (len(FOOT_TYPES), MAX_FEET + 1)


@dataclass(frozen=True)
class Syllabification:
    choices: tuple[WordOption, ...]  # one option per word
    cost: float
    classes: str  # stress classes of the whole line


@dataclass(frozen=True)
class Reading:
    """The best reading of a line in one meter."""

    foot: str
    feet: int
    cost: float
    labels: str  # w/s per syllable
    classes: str  # stress class per syllable
    choices: tuple[WordOption, ...]
    variations: tuple[str, ...]


@dataclass
class LineAnalysis:
    """Best cost of a line in every (foot, feet); readings are rebuilt on demand."""

    words: tuple[str, ...]
    syllabifications: tuple[Syllabification, ...]
    best: npt.NDArray[np.float64]  # (foot index, feet) -> cost, inf when impossible

    @property
    def plain_syllables(self) -> int:
        """Syllables of the cheapest syllabification (no meter involved)."""
        return len(self.syllabifications[0].classes) if self.syllabifications else 0

    def cost(self, foot: str, feet: int | None = None) -> float:
        row = self.best[FOOT_TYPES.index(foot)]
        return float(row[feet] if feet is not None else row.min())

    def best_feet(self, foot: str) -> int | None:
        row = self.best[FOOT_TYPES.index(foot)]
        feet = int(row.argmin())
        return feet if math.isfinite(row[feet]) else None

    def reading_length(self, foot: str, feet: int) -> int | None:
        """Syllables of `reading(foot, feet)` without rebuilding it (form rules ask it of every
        line): the first syllabification, cheapest first, whose cost in that cell is the line's
        best, from the per-class-string costs of the analysis when they are still cached."""
        foot_index = FOOT_TYPES.index(foot)
        target = self.best[foot_index, feet]
        if not math.isfinite(target):
            return None
        cell = foot_index * _SHAPE[1] + feet
        for syl in self.syllabifications:
            if syl.classes not in _CLASS_COSTS:
                break  # the cache was cleared since: rebuild the reading
            entry = _CLASS_COSTS[syl.classes]
            if entry is not None and entry[0][cell] + (syl.cost + entry[1]) <= target + 1e-9:
                return len(syl.classes)
        found = self.reading(foot, feet)
        return None if found is None else len(found.labels)

    def reading(self, foot: str, feet: int | None = None) -> Reading | None:
        """Cheapest reading in `foot` with `feet` feet (any number when None)."""
        if feet is None:
            feet = self.best_feet(foot)
            if feet is None:
                return None
        target = self.best[FOOT_TYPES.index(foot), feet]
        if not math.isfinite(target):
            return None
        found: Reading | None = None
        foot_index = FOOT_TYPES.index(foot)
        for syl in self.syllabifications:
            best_row = _best_row(syl.classes, foot_index, feet)
            if best_row is None:
                continue
            row, value, table = best_row
            total = value + syl.cost + _code_list(syl.classes)[1]
            if found is None or total < found.cost - 1e-9:
                found = Reading(
                    foot,
                    feet,
                    total,
                    table.patterns[row],
                    syl.classes,
                    syl.choices,
                    table.variations[row],
                )
            if total <= target + 1e-9:
                break  # the cheapest reading (syllabifications come cheapest first)
        return found


@lru_cache(maxsize=1 << 14)
def _code_list(classes: str) -> tuple[tuple[int, ...], float]:
    """Integer codes of a class string (the last syllable uses the line-final table, then the
    variation-cost column), and the summed w-position costs."""
    codes = [_CODE[c] for c in classes]
    if codes:
        codes[-1] += _FINAL
    return (*codes, _BIAS), sum(_W_LIST[c] for c in codes)


def syllabifications(per_word: Sequence[tuple[WordOption, ...]]) -> tuple[Syllabification, ...]:
    """Cheapest joint choices of one option per word (bounded), cheapest first."""
    partial: list[tuple[float, str, tuple[WordOption, ...]]] = [(0.0, "", ())]
    # Words with one free option change no cost, so no pruning or ordering: they are appended to
    # every partial choice in one step, before the next word that has a choice (or at the end).
    pending: list[WordOption] = []
    for options in per_word:
        if not options:
            continue
        if len(options) == 1 and options[0].cost == 0.0:
            pending.append(options[0])
            continue
        if pending:
            partial = _extend(partial, pending)
            pending = []
        if len(options) == 1:
            only = options[0]
            partial = [(c + only.cost, k + only.classes, (*ch, only)) for c, k, ch in partial]
            continue
        partial = [
            (c + o.cost, k + o.classes, (*ch, o))
            for c, k, ch in partial
            for o in options
            if c + o.cost <= MAX_OPTION_COST
        ]
        if len(partial) > MAX_SYLLABIFICATIONS:
            partial.sort(key=lambda item: item[0])
            del partial[MAX_SYLLABIFICATIONS:]
    if pending:
        partial = _extend(partial, pending)
    partial.sort(key=lambda item: item[0])
    return tuple(Syllabification(ch, c, k) for c, k, ch in partial)


def _extend(
    partial: list[tuple[float, str, tuple[WordOption, ...]]], options: list[WordOption]
) -> list[tuple[float, str, tuple[WordOption, ...]]]:
    classes = "".join(o.classes for o in options)
    return [(c, k + classes, (*ch, *options)) for c, k, ch in partial]


#: Cost of a stress-class string in every (foot, feet) cell, before a syllabification's own
#: option cost: (cells, w-position cost sum), or None when no meter has that many syllables.
#: Distinct lines share class strings (``FMFSUMFM``...) about twice as often as they share text,
#: so this is computed once per string; the dict is cleared when full (memory stays flat).
_CLASS_COSTS: dict[str, tuple[npt.NDArray[np.float64], float] | None] = {}
CLASS_CACHE_SIZE = 1 << 13


def _cost_classes(wanted: set[str]) -> None:
    """Fill `_CLASS_COSTS` for new class strings; strings of one length share a matrix product."""
    by_length: dict[int, list[str]] = {}
    for classes in wanted:
        by_length.setdefault(len(classes), []).append(classes)
    for length, members in by_length.items():
        table = length_table(length)
        if table is None:
            _CLASS_COSTS.update(dict.fromkeys(members))
            continue
        coded = [_code_list(classes) for classes in members]
        delta = _DELTA[np.array([codes for codes, _ in coded], dtype=np.intp)]
        costs = _settled(table.strong @ delta.T)  # (rows, members): variation + stress costs
        group_min = np.minimum.reduceat(costs, table.group_starts, axis=0)
        cells = np.full((_SHAPE[0] * _SHAPE[1], len(members)), np.inf)
        cells[table.group_cells] = group_min
        for k, (classes, (_, w_sum)) in enumerate(zip(members, coded, strict=True)):
            _CLASS_COSTS[classes] = (cells[:, k].copy(), w_sum)


def analyse_lines(lines: Sequence[str]) -> list[LineAnalysis]:
    """Analyse lines: each line's best cost in every (foot, feet) is the cheapest of its
    syllabifications, each costed once per distinct stress-class string."""
    best = np.full((len(lines), _SHAPE[0] * _SHAPE[1]), np.inf)
    analyses: list[LineAnalysis] = []
    for index, line in enumerate(lines):
        words, per_word = line_options(line)
        analyses.append(
            LineAnalysis(words, syllabifications(per_word), best[index].reshape(_SHAPE))
        )
    wanted = {syl.classes for analysis in analyses for syl in analysis.syllabifications}
    missing = wanted.difference(_CLASS_COSTS)
    if missing:
        if len(_CLASS_COSTS) + len(missing) > CLASS_CACHE_SIZE:
            _CLASS_COSTS.clear()
            missing = wanted
        _cost_classes(missing)
    for index, analysis in enumerate(analyses):
        row: npt.NDArray[np.float64] | None = None
        for syl in analysis.syllabifications:
            entry = _CLASS_COSTS[syl.classes]
            if entry is None:
                continue
            costs = entry[0] + (syl.cost + entry[1])
            row = costs if row is None else np.minimum(row, costs, out=row)
        if row is not None:
            best[index] = row
    return analyses


@lru_cache(maxsize=1 << 13)
def _best_row(classes: str, foot_index: int, feet: int) -> tuple[int, float, LengthTable] | None:
    """Cheapest realisation of (foot, feet) for a class string: (row, variation and stress cost
    before the w-position sum and option cost, the length table), None when there is none."""
    table = length_table(len(classes))
    rows = table.group_rows.get((foot_index, feet)) if table else None
    if table is None or rows is None:
        return None
    start, end = rows
    codes, _ = _code_list(classes)
    costs = _settled(table.strong[start:end] @ _DELTA[np.array(codes, dtype=np.intp)])
    row = int(costs.argmin())
    return start + row, float(costs[row]), table


#: Decimals kept of a summed cost. Costs are sums of constants with at most two decimals;
#: BLAS sums in an order that depends on the shape of the product (how many class strings are
#: costed together), so the last bit of a sum, and with it the choice between two equally cheap
#: readings, depended on which lines were checked together (in one process, or split across
#: worker processes). Rounded, equal costs are equal wherever they were computed.
COST_DECIMALS = 9


def _settled(costs: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    np.round(costs, COST_DECIMALS, out=costs)
    costs += 0.0  # a -0.0 left by rounding a tiny negative sum becomes 0.0
    return costs


def clear_caches() -> None:
    """Forget per-class-string costs (benchmarks measuring cold speed)."""
    _CLASS_COSTS.clear()
    _best_row.cache_clear()
