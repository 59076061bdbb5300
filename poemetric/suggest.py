"""Name suggestions for a mistyped choice (a model, dataset, author, task...), one spelling for
every command: `unknown dataset 'dmeo' (did you mean 'demo'?)`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping


def close_names(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> list[str]:
    """Up to three choices that look like `word`, closest first; where none does, those that
    have `word` as one of their hyphenated parts (`lear` for `lear-limericks`, too short a part
    of it for a close match)."""
    listed = list(choices)
    close = difflib.get_close_matches(word, listed, n=3, cutoff=cutoff)
    if close or len(word) < 3:
        return close
    part = word.casefold()
    return [choice for choice in listed if part in choice.casefold().split("-")][:3]


def did_you_mean(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str:
    """` (did you mean 'x'?)` when `word` looks like a mistyped choice, else ''."""
    close = close_names(word, choices, cutoff=cutoff)
    return f" (did you mean {', '.join(map(repr, close))}?)" if close else ""


def display_name_hint(word: str, labels: Mapping[str, str | None]) -> str:
    """` ('GPT-4o' is the display name of 'gpt-4o')` when `word` is, in any case, the display
    name of a name of `labels` (name -> display name: the label tables, figures and the report
    show), which was answered as a mistyped name with no close match; else ''."""
    wanted = word.casefold()
    names = sorted(
        name
        for name, label in labels.items()
        if label and label != name and label.casefold() == wanted
    )
    return f" ({word!r} is the display name of {' and '.join(map(repr, names))})" if names else ""


def name_hint(word: str, choices: Iterable[str], labels: Mapping[str, str | None]) -> str:
    """`display_name_hint` when `word` is a display name of `labels`, else `did_you_mean`."""
    return display_name_hint(word, labels) or did_you_mean(word, choices)
