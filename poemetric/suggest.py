"""Name suggestions for a mistyped choice (a model, dataset, author, task...), one spelling for
every command: `unknown dataset 'dmeo' (did you mean 'demo'?)`."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

#: How close `word` must be to one hyphenated part of a choice to name it (`gemni`, 0.91 of
#: `gemini` in `gemini-2.5-pro`, where the whole name is 0.53 of it).
PART_CUTOFF = 0.8


def close_names(word: str, choices: Iterable[str], *, cutoff: float = 0.6) -> list[str]:
    """Up to three choices that look like `word`, closest first; where none does, those that
    have `word` as one of their hyphenated parts (`lear` for `lear-limericks`, too short a part
    of it for a close match), else a part that looks like it (`gemni` for `gemini-2.5-pro`)."""
    listed = list(choices)
    close = difflib.get_close_matches(word, listed, n=3, cutoff=cutoff)
    if close or len(word) < 3:
        return close
    part = word.casefold()
    named = [choice for choice in listed if part in choice.casefold().split("-")]
    if named:
        return named[:3]
    fits = {choice: _part_fit(part, choice) for choice in listed}
    near = [choice for choice in listed if fits[choice] >= PART_CUTOFF]
    return sorted(near, key=lambda choice: -fits[choice])[:3]


def _part_fit(part: str, choice: str) -> float:
    """How close `part` is to the closest hyphenated part of `choice` (difflib's ratio)."""
    return max(
        difflib.SequenceMatcher(None, part, piece).ratio() for piece in choice.casefold().split("-")
    )


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
