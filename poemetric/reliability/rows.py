"""The rows of a ratings file held compactly while it is read (`io.read_ratings`): each name and
score text once, numbered in first-seen order, and per row only those numbers and its line, in
arrays (24 bytes a row where a `Rating` and a duplicate check's key took some 400)."""

from __future__ import annotations

from array import array
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

Name = TypeVar("Name", bound=Hashable)


class Interned(Generic[Name]):
    """Names numbered in the order first seen: `number(name)`; `names[number]`."""

    def __init__(self) -> None:
        self.numbers: dict[Name, int] = {}
        self.names: list[Name] = []

    def number(self, name: Name) -> int:
        found = self.numbers.get(name)
        if found is None:
            found = self.numbers[name] = len(self.names)
            self.names.append(name)
        return found


@dataclass
class RatingRows:
    """Unit, rater, item and score text of each row read, as numbers of `units`, `raters`,
    `items` and `texts`, with the row's line. A rater is (survey, rater): an exported file's
    rater is named with its survey once the file is known to hold several (else survey "")."""

    units: Interned[str] = field(default_factory=Interned)
    raters: Interned[tuple[str, str]] = field(default_factory=Interned)
    items: Interned[str] = field(default_factory=Interned)
    texts: Interned[str] = field(default_factory=Interned)
    unit: array[int] = field(default_factory=lambda: array("i"))
    rater: array[int] = field(default_factory=lambda: array("i"))
    item: array[int] = field(default_factory=lambda: array("i"))
    text: array[int] = field(default_factory=lambda: array("i"))
    line: array[int] = field(default_factory=lambda: array("q"))

    def add(self, unit: str, rater: tuple[str, str], item: str, text: str, line: int) -> None:
        self.unit.append(self.units.number(unit))
        self.rater.append(self.raters.number(rater))
        self.item.append(self.items.number(item))
        self.text.append(self.texts.number(text))
        self.line.append(line)

    def __len__(self) -> int:
        return len(self.line)

    def repeats(self, rater: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows that repeat an earlier row's (unit, rater, item), in file order, and the
        first row of that key for each. `rater`: the rows' rater numbers (`self.rater`, or
        raters merged since)."""
        unit, item = np.asarray(self.unit), np.asarray(self.item)
        order = np.lexsort((item, rater, unit))  # stable: a key's rows in file order
        again = np.zeros(len(order), dtype=bool)  # the row at this place repeats the one before
        if len(order) > 1:
            again[1:] = unit[order[1:]] == unit[order[:-1]]
            for column in (rater, item):
                again[1:] &= column[order[1:]] == column[order[:-1]]
        places = np.flatnonzero(again)
        starts = np.flatnonzero(~again)
        first = order[starts[np.searchsorted(starts, places, side="right") - 1]]
        rows = order[places]
        in_file_order = np.argsort(rows)
        return rows[in_file_order], first[in_file_order]
