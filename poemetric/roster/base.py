"""Names every roster module shares: the roster kinds, the built-in group `all`, the error, and
the helpers that deduplicate names and suggest close matches."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Literal

RosterKind = Literal["generators", "judges"]
ALL_GROUP = "all"


class RosterError(ValueError):
    """A model or group file is invalid, or a selection names something unknown."""


def _dedupe(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _suggest(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
