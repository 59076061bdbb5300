"""A dataset's `year` cell: one year (`1850`), an author's life dates (`1897 - 1965`, `1946 -`,
as the authors' release writes them), or the years a poem was written (`1850-1851`).

A range in the cell was all taken for life dates, so `1850-1851` became the author's dates and
the poem had no year. A range shorter than `SHORTEST_LIFE` years is no poet's life: it is read
as the years of composition, kept as written, and its first year is the poem's year. A longer
one (every range in the release spans 43 years or more) or an open one stays life dates."""

from __future__ import annotations

import re
from typing import Any

#: Ranges of at least this many years (or open, `1946 -`) are life dates; shorter ones, the
#: years of composition. A poet's life dates span more (Chatterton's, 1752-1770, span 18);
#: a poem written over 15 years or more (*In Memoriam*, 1833-1850) is read as life dates.
SHORTEST_LIFE = 15

_YEAR = re.compile(r"(\d{1,4})(\.0+)?")
_RANGE = re.compile(r"(\d{3,4})\s*[-–]\s*(\d{3,4})?")


def year_span(text: str) -> tuple[int, int | None] | None:
    """The first and last year of a range (`1850-1851`, `1897 - 1965`; None last for an open
    one, `1946 -`), or None for a cell that is no range."""
    match = _RANGE.fullmatch(text.strip())
    if match is None:
        return None
    first, last = match.groups()
    return int(first), None if last is None else int(last)


def life_dates(span: tuple[int, int | None]) -> bool:
    """Whether a range is an author's life dates rather than the years of composition."""
    first, last = span
    return last is None or last - first >= SHORTEST_LIFE


def split_year(record: dict[str, Any]) -> dict[str, Any]:
    """`record` (a poem's fields) with a range in its `year` moved to `author_dates` (life
    dates, `year` then None) or copied to `year_range` (the years of composition, whose first
    year `read_year` makes the `year`)."""
    raw = record.get("year")
    span = year_span(raw) if isinstance(raw, str) else None
    if not isinstance(raw, str) or span is None:
        return record
    if life_dates(span):
        return {**record, "year": None, "author_dates": raw.strip()}
    return {**record, "year_range": raw.strip()}


def read_year(value: Any) -> int | None:
    """A `year` cell (not blank) as the poem's year: `1850`, `1850.0`, or the first year of a
    range of composition years; a ValueError for anything else, or a range that ends before it
    begins (`1851-1850`)."""
    if value is None:
        return None
    if isinstance(value, bool):  # a JSON true or a Parquet boolean: int() reads it as 1 or 0
        raise ValueError(f"bad year {value!r}: expected a year such as 1850 (or empty)")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = str(value).strip()
    if (span := year_span(text)) is not None:
        first, last = span
        if last is not None and last < first:
            raise ValueError(
                f"bad year {value!r}: the range ends before it begins; write {last}-{first}"
            )
        return first
    match = _YEAR.fullmatch(text)
    if not match:
        raise ValueError(f"bad year {value!r}: expected a year such as 1850 (or empty)")
    return int(match.group(1))
