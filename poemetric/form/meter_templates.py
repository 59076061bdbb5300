"""Meter templates: foot grammars, and every realisation of every meter grouped by syllable count.

A meter (foot type, number of feet) allows many ``w``/``s`` strings: the regular one and its
variations (initial inversion, feminine ending, catalexis, substitutions), each with a cost.
Instead of walking an automaton per line, all realisations up to ``MAX_SYLLABLES`` syllables
are enumerated once and stored per syllable count as a 0/1 matrix (one row per distinct
string of each meter). Scoring a line against *every* meter is then one matrix product per
syllabification length (see :mod:`poemetric.form.meter_search`).
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from poemetric.form.table_store import DiskTable

FOOT_PATTERNS: dict[str, str] = {
    "iambic": "ws",
    "trochaic": "sw",
    "anapestic": "wws",
    "dactylic": "sww",
    "amphibrachic": "wsw",
}
FOOT_TYPES: tuple[str, ...] = tuple(FOOT_PATTERNS)
MAX_FEET = 8
MAX_SYLLABLES = 26  # longer lines get no template
# Realisations whose variation cost alone exceeds this (per foot, plus a constant) are left out:
# such a line's fit is below ~0.3 whatever its stresses, and long meters would otherwise have
# thousands of rarely useful permutations of substitutions.
MAX_VARIATION_COST_PER_FOOT = 0.4
MAX_VARIATION_COST_BASE = 1.0

Realisation = tuple[str, float, str]  # pattern, cost, variation name


@dataclass(frozen=True)
class FootGrammar:
    """Allowed realisations of one foot type by position in the line, with their costs."""

    base: str
    first: tuple[Realisation, ...]
    inner: tuple[Realisation, ...]
    catalectic: tuple[Realisation, ...]
    endings: tuple[Realisation, ...]
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
# Bias of each foot for an unconstrained scan (see GRAMMARS' priors), as an array by foot index.
FOOT_PRIORS = np.array([GRAMMARS[name].prior for name in FOOT_TYPES])

Variants = dict[str, tuple[float, tuple[str, ...]]]  # pattern -> (cost, variation names)


def _keep_cheaper(table: Variants, pattern: str, cost: float, names: tuple[str, ...]) -> None:
    old = table.get(pattern)
    if old is None or old[0] > cost:
        table[pattern] = (cost, names)


def _foot_variants(grammar: FootGrammar, index: int, last: bool) -> Variants:
    variants: Variants = {grammar.base: (0.0, ())}
    for pattern, cost, name in grammar.first if index == 0 else grammar.inner:
        _keep_cheaper(variants, pattern, cost, (name,))
    if not last:
        return variants
    ends: Variants = {}
    bodies = [*variants.items(), *((p, (c, (n,))) for p, c, n in grammar.catalectic)]
    for pattern, (cost, names) in bodies:
        for ending, end_cost, end_name in (("", 0.0, ""), *grammar.endings):
            labels = names + ((end_name,) if end_name else ())
            _keep_cheaper(ends, pattern + ending, cost + end_cost, labels)
    return ends


def realisations(foot: str, feet: int, max_cost: float = float("inf")) -> Variants:
    """Every w/s string of `feet` feet of `foot` (up to MAX_SYLLABLES and `max_cost`)."""
    grammar = GRAMMARS[foot]
    current: Variants = {"": (0.0, ())}
    for index in range(feet):
        step: Variants = {}
        for pattern, (cost, names) in _foot_variants(grammar, index, index == feet - 1).items():
            for prefix, (prefix_cost, prefix_names) in current.items():
                total = prefix_cost + cost
                if len(prefix) + len(pattern) <= MAX_SYLLABLES and total <= max_cost:
                    _keep_cheaper(step, prefix + pattern, total, prefix_names + names)
        current = step
    return current


@dataclass(frozen=True)
class LengthTable:
    """All meter realisations with one syllable count; rows grouped by (foot, feet)."""

    strong: npt.NDArray[np.float64]  # (rows, syllables + 1): 1.0 where s; last column = cost
    cost: npt.NDArray[np.float64]  # (rows,) variation cost
    patterns: tuple[str, ...]
    variations: tuple[tuple[str, ...], ...]
    group_starts: npt.NDArray[np.intp]  # first row of each group
    group_rows: dict[tuple[int, int], tuple[int, int]]  # (foot index, feet) -> row range
    group_cells: npt.NDArray[np.intp]  # foot index * (MAX_FEET + 1) + feet, per group


#: Bump when the grammars, costs or limits above change (the enumeration is cached on disk).
TEMPLATES_VERSION = "1"


Row = tuple[int, int, str, float, tuple[str, ...]]  # foot index, feet, pattern, cost, names


@cache
def _stored_realisations() -> DiskTable:
    """Realisations by syllable count (enumerated once per machine, one marshal blob each)."""
    tag = (
        f"meter templates {TEMPLATES_VERSION}:{MAX_SYLLABLES}:{MAX_FEET}:"
        f"{sorted(GRAMMARS.items())!r}, marshal {marshal.version}"
    )

    def build() -> list[tuple[str, bytes]]:
        return [(str(n), marshal.dumps(rows)) for n, rows in _enumerate_realisations().items()]

    return DiskTable("meter-templates", tag, build)


def _realisations(syllables: int) -> list[Row]:
    stored = _stored_realisations().get(str(syllables))
    return [] if stored is None else list(marshal.loads(stored))


def _enumerate_realisations() -> dict[int, list[Row]]:
    by_length: dict[int, list[Row]] = {}
    for foot_index, foot in enumerate(FOOT_TYPES):
        for feet in range(1, MAX_FEET + 1):
            limit = MAX_VARIATION_COST_PER_FOOT * feet + MAX_VARIATION_COST_BASE
            for pattern, (cost, names) in sorted(realisations(foot, feet, limit).items()):
                by_length.setdefault(len(pattern), []).append(
                    (foot_index, feet, pattern, cost, names)
                )
    return by_length


@cache
def length_table(syllables: int) -> LengthTable | None:
    """The realisations of every meter with exactly `syllables` syllables (None if there are none)."""
    rows = _realisations(syllables)
    if not rows:
        return None
    # rows come sorted by (foot index, feet): a group is a run of rows of one meter
    cells = np.fromiter(
        (row[0] * (MAX_FEET + 1) + row[1] for row in rows), dtype=np.intp, count=len(rows)
    )
    starts = np.flatnonzero(np.diff(cells, prepend=-1))
    ends = [*starts[1:].tolist(), len(rows)]
    patterns = tuple(row[2] for row in rows)
    cost = np.array([row[3] for row in rows], dtype=np.float64)
    # w/s patterns as 0/1 columns, then the variation cost as a last column
    letters = np.frombuffer("".join(patterns).encode("ascii"), dtype=np.uint8)
    strong = np.empty((len(rows), syllables + 1), dtype=np.float64)
    strong[:, :syllables] = letters.reshape(len(rows), syllables) == ord("s")
    strong[:, syllables] = cost
    return LengthTable(
        strong=strong,
        cost=cost,
        patterns=patterns,
        variations=tuple(row[4] for row in rows),
        group_starts=starts,
        group_rows={
            (rows[start][0], rows[start][1]): (start, end)
            for start, end in zip(starts.tolist(), ends, strict=True)
        },
        group_cells=cells[starts],
    )
