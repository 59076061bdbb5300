"""Name suggestions for a mistyped choice (a model, dataset, author, task...), one spelling for
every command: `unknown dataset 'dmeo' (did you mean 'demo'?)`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_names(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> list[str]:
    """Up to three choices that look like `word`, closest first."""
    return difflib.get_close_matches(word, list(choices), n=3, cutoff=cutoff)


def did_you_mean(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str:
    """` (did you mean 'x'?)` when `word` looks like a mistyped choice, else ''."""
    close = close_names(word, choices, cutoff=cutoff)
    return f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
