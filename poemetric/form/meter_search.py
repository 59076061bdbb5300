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

from poemetric.form.meter_templates import FOOT_TYPES, MAX_FEET, length_table
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
        for syl in self.syllabifications:
            table = length_table(len(syl.classes))
            rows = table.group_rows.get((FOOT_TYPES.index(foot), feet)) if table else None
            if table is None or rows is None:
                continue
            start, end = rows
            codes, w_sum = _code_list(syl.classes)
            costs = table.strong[start:end] @ _DELTA[np.array(codes, dtype=np.intp)]
            row = int(costs.argmin())
            total = float(costs[row]) + syl.cost + w_sum
            if found is None or total < found.cost - 1e-9:
                found = Reading(
                    foot,
                    feet,
                    total,
                    table.patterns[start + row],
                    syl.classes,
                    syl.choices,
                    table.variations[start + row],
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
    for options in per_word:
        if not options:
            continue
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
    partial.sort(key=lambda item: item[0])
    return tuple(Syllabification(ch, c, k) for c, k, ch in partial)


def analyse_lines(lines: Sequence[str]) -> list[LineAnalysis]:
    """Analyse lines together (their syllabifications of equal length share one matrix product)."""
    best = np.full((len(lines), _SHAPE[0] * _SHAPE[1]), np.inf)
    analyses: list[LineAnalysis] = []
    by_length: dict[int, list[tuple[int, Syllabification]]] = {}
    for index, line in enumerate(lines):
        words, per_word = line_options(line)
        syls = syllabifications(per_word)
        analyses.append(LineAnalysis(words, syls, best[index].reshape(_SHAPE)))
        for syl in syls:
            by_length.setdefault(len(syl.classes), []).append((index, syl))
    for length, members in by_length.items():
        table = length_table(length)
        if table is None:
            continue
        coded = [_code_list(syl.classes) for _, syl in members]
        delta = _DELTA[np.array([codes for codes, _ in coded], dtype=np.intp)]
        costs = table.strong @ delta.T  # (rows, members): variation + stress costs
        group_min = np.minimum.reduceat(costs, table.group_starts, axis=0)
        group_min += np.array(
            [syl.cost + w_sum for (_, syl), (_, w_sum) in zip(members, coded, strict=True)]
        )
        owners = [index for index, _ in members]
        if owners[0] == owners[-1]:  # one line (members are in line order)
            cells = best[owners[0]]
            cells[table.group_cells] = np.minimum(cells[table.group_cells], group_min.min(axis=1))
            continue
        starts = [0] + [i for i in range(1, len(owners)) if owners[i] != owners[i - 1]]
        per_line = np.minimum.reduceat(group_min, starts, axis=1)  # (groups, lines)
        rows = np.array([owners[i] for i in starts], dtype=np.intp)[:, None]
        cells = table.group_cells[None, :]
        best[rows, cells] = np.minimum(best[rows, cells], per_line.T)
    return analyses
