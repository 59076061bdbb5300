"""One order for author (model) names everywhere: the human poets first, then natural order."""

from __future__ import annotations

import re
from collections.abc import Iterable

_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[str | int, ...], str]:
    """Sort key comparing runs of digits as numbers, case-insensitively: `Qwen2.5-3B` before
    `Qwen2.5-14B` before `Qwen2.5-72B` (a plain string sort puts 14B first). `re.split` with a
    group alternates text and digits, so a key's parts compare text with text, number with
    number; the name itself breaks ties (`m01` / `m1`)."""
    parts = _DIGITS.split(name)
    return tuple(int(p) if i % 2 else p.lower() for i, p in enumerate(parts)), name


def author_order(authors: Iterable[object], human: str | None = None) -> list[str]:
    """`human` (default: the run store's `HUMAN_AUTHOR`) first, then the others in natural order (case-insensitive, numbers as numbers:
    `natural_key`): one order everywhere. Takes any iterable (a list, a pandas Index, a numpy
    array, dict keys); the command-line tables use it without importing pandas."""
    # imported here, not at the top: `form check` starts without the run store's modules
    from poemetric.store import HUMAN_AUTHOR

    human = HUMAN_AUTHOR if human is None else human
    unique = list(dict.fromkeys(str(a) for a in authors))
    others = sorted((a for a in unique if a != human), key=natural_key)
    return ([human] if human in unique else []) + others
