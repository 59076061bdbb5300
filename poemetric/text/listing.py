"""Name the first few of a list in a message: `a, b, c, d, e and 3 more`."""

from __future__ import annotations

from collections.abc import Iterable


def joined_with_and(names: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def first_few(items: Iterable[object], shown: int = 5) -> str:
    """The first `shown` items joined by ", ", then ` and N more` when there are others."""
    listed = [str(item) for item in items]
    more = f" and {len(listed) - shown} more" if len(listed) > shown else ""
    return ", ".join(listed[:shown]) + more
