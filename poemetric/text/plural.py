"""Singular or plural by count in messages: `1 poem`, `0 poems`, `2 poems`, never `poem(s)`."""

from __future__ import annotations


def plural(count: int, one: str, many: str | None = None) -> str:
    """`one` for a count of exactly 1, else `many` (default `one` + "s"): `plural(n, "poem")`,
    `plural(n, "is", "are")`."""
    if count == 1:
        return one
    return many if many is not None else one + "s"


def counted(count: int, one: str, many: str | None = None) -> str:
    """`1 poem`, `0 poems`, `2 poems` (`many` as for `plural`)."""
    return f"{count} {plural(count, one, many)}"
