"""Ratings of units by raters on one or more items, coded for the agreement statistics."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from poemetric.text.ordering import natural_key
from poemetric.text.plural import plural

#: What an N/A rating is called in files (case-insensitive), besides the numeric N/A value.
NA_WORDS = frozenset({"n/a", "na"})
NOT_RATED = -1


@dataclass(frozen=True)
class Rating:
    """One rating; `score` None = N/A (a category of its own, not a point on the scale)."""

    unit: str
    rater: str
    item: str
    score: float | None


@dataclass(frozen=True)
class Ratings:
    """Raters x units x items as integer codes: -1 not rated, 0..n-1 the position on the scale,
    n = N/A. `scale` holds the n ordered values of the rating scale."""

    units: tuple[str, ...]
    raters: tuple[str, ...]
    items: tuple[str, ...]
    scale: np.ndarray
    codes: np.ndarray

    @property
    def na_code(self) -> int:
        return len(self.scale)

    @classmethod
    def from_ratings(
        cls, ratings: Iterable[Rating], *, scale: Sequence[float] | None = None
    ) -> Ratings:
        """Code ratings; `scale` fixes the scale (default: the values seen). Each (unit, rater,
        item) may occur once; a value outside a given scale is an error. Units and raters are
        sorted by name, raters in natural order (`expert_2` before `expert_10`; items keep their first-seen order), so the row order never matters."""
        rows = list(ratings)
        values = _scale_of(sorted({r.score for r in rows if r.score is not None}), scale)
        # Sorted, as the raters: a bootstrap draw picks units by position, so the same ratings
        # in another row order must give the same intervals.
        units = tuple(sorted(dict.fromkeys(r.unit for r in rows)))
        raters = tuple(sorted(dict.fromkeys(r.rater for r in rows), key=natural_key))
        items = tuple(dict.fromkeys(r.item for r in rows))
        index = {
            "unit": {u: i for i, u in enumerate(units)},
            "rater": {r: i for i, r in enumerate(raters)},
            "item": {t: i for i, t in enumerate(items)},
        }
        position = {v: i for i, v in enumerate(values.tolist())}
        codes = np.full((len(raters), len(units), len(items)), NOT_RATED, dtype=np.int64)
        for r in rows:
            at = (index["rater"][r.rater], index["unit"][r.unit], index["item"][r.item])
            if codes[at] != NOT_RATED:
                raise ValueError(f"rater {r.rater!r} rated unit {r.unit!r} on {r.item!r} twice")
            codes[at] = len(values) if r.score is None else position[r.score]
        return cls(units, raters, items, values, codes)

    @classmethod
    def from_columns(
        cls,
        names: tuple[Sequence[str], Sequence[str], Sequence[str]],
        unit: np.ndarray,
        rater: np.ndarray,
        item: np.ndarray,
        score: np.ndarray,
        *,
        scale: Sequence[float] | None = None,
    ) -> Ratings:
        """`from_ratings` of ratings given as columns, without a `Rating` per row: row k is
        rater `names[1][rater[k]]`'s score `score[k]` (NaN: N/A) of unit `names[0][unit[k]]` on
        item `names[2][item[k]]`. Names no row uses are left out; units, raters and items are
        ordered as `from_ratings` orders them, the items by their first row."""
        na = np.isnan(score)
        values = _scale_of(np.unique(score[~na]).tolist(), scale)
        units = tuple(sorted(names[0][n] for n in _present(unit, len(names[0]))))
        raters = tuple(
            sorted((names[1][n] for n in _present(rater, len(names[1]))), key=natural_key)
        )
        used, first = np.unique(item, return_index=True)
        items = tuple(names[2][n] for n in used[np.argsort(first)].tolist())
        codes = np.full((len(raters), len(units), len(items)), NOT_RATED, dtype=np.int64)
        # Each row's cell of `codes`, flat: (rater x units + unit) x items + item.
        flat = _positions(rater, names[1], raters)
        flat *= len(units)
        flat += _positions(unit, names[0], units)
        flat *= len(items)
        flat += _positions(item, names[2], items)
        code = np.searchsorted(values, score)
        code[na] = len(values)
        codes.flat[flat] = code
        if np.count_nonzero(codes != NOT_RATED) < len(flat):  # a cell given twice
            order = np.argsort(flat, kind="stable")
            k = int(order[1:][flat[order[1:]] == flat[order[:-1]]].min())
            r, u, i = np.unravel_index(flat[k], codes.shape)
            raise ValueError(f"rater {raters[r]!r} rated unit {units[u]!r} on {items[i]!r} twice")
        return cls(units, raters, items, values, codes)

    def pairs(self, focus: str | None = None) -> np.ndarray:
        """Rater pairs (indices) the pairwise statistics are taken over: every pair, or with
        `focus` only the pairs of that rater with each other rater."""
        all_pairs = list(combinations(range(len(self.raters)), 2))
        if focus is not None:
            if focus not in self.raters:
                raise ValueError(f"no rater {focus!r}; raters: {', '.join(self.raters)}")
            f = self.raters.index(focus)
            all_pairs = [(f, b if a == f else a) for a, b in all_pairs if f in (a, b)]
        return np.asarray(all_pairs, dtype=np.int64).reshape(-1, 2)


def _present(numbers: np.ndarray, count: int) -> list[int]:
    """Which of `count` numbers occur in `numbers`."""
    seen = np.zeros(count, dtype=bool)
    seen[numbers] = True
    return np.flatnonzero(seen).tolist()


def _positions(numbers: np.ndarray, names: Sequence[str], ordered: Sequence[str]) -> np.ndarray:
    """Each of `numbers` (of `names`) as the position of its name in `ordered`."""
    at = {name: position for position, name in enumerate(ordered)}
    position = np.asarray([at.get(name, -1) for name in names], dtype=np.int64)
    return position[numbers]


def parse_score(text: str, na_value: float | None) -> float | None:
    """A score cell: a number, or N/A (the words n/a, na, or the number `na_value`).

    Raises ValueError for anything else (NaN and infinities included).
    """
    cleaned = text.strip()
    if cleaned.lower() in NA_WORDS:
        return None
    value = float(cleaned)
    if not math.isfinite(value):
        raise ValueError(f"{cleaned!r} is not a finite number")
    if na_value is not None and value == na_value:
        return None
    return value


def parse_scale(text: str) -> list[float]:
    """'1-5' (integers from 1 to 5) or a comma-separated list of values ('0,0.5,1')."""
    text = text.strip()
    bounds = re.fullmatch(r"(-?\d+)\s*-\s*(-?\d+)", text)
    if bounds and int(bounds[1]) >= int(bounds[2]):
        raise ValueError(f"scale {text!r}: use LOW-HIGH with LOW < HIGH (e.g. 1-5)")
    try:
        if bounds:
            values = [float(v) for v in range(int(bounds[1]), int(bounds[2]) + 1)]
        else:
            values = sorted({float(part) for part in text.split(",") if part.strip()})
    except ValueError as exc:
        raise ValueError(f"scale {text!r}: use LOW-HIGH (e.g. 1-5) or values (0,0.5,1)") from exc
    if len(values) < 2 or not all(math.isfinite(v) for v in values):
        raise ValueError(f"scale {text!r} needs at least two values")
    return values


def _scale_of(seen_values: list[float], scale: Sequence[float] | None) -> np.ndarray:
    """The scale: `scale` (sorted) if given, else the values seen; a value seen off a given
    scale is an error."""
    values = np.asarray(sorted(set(scale)) if scale is not None else seen_values, float)
    outside = [v for v in seen_values if v not in set(values.tolist())]
    if outside:
        raise ValueError(
            f"{plural(len(outside), 'score')} {outside} {plural(len(outside), 'is', 'are')} "
            f"not on the scale {values.tolist()}"
        )
    return values
