"""Rhyme letters shown by `poemetric form scan`: one letter per line, shared only by rhymes.

The letters are inferred as the free-sonnet reading infers a scheme (`infer_scheme`, window of
six lines: each line takes the letter of its strongest rhyme among the previous six), with
perfect and slant rhymes (and identical words) sharing a letter. An eye rhyme (spelled alike,
sounded apart: *though/through*, *five/give*) does not: the checker credits it only in part where
a pattern asks for the rhyme, so the line gets a letter of its own and a note naming the line it
only looks like; the note says "historical rhyme" where the checker hears the pair by an older
pronunciation (*great/treat*, `poemetric.form.historical_rhymes`) and credits it as slant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poemetric.form.adapters import Rhyme, rhyme_kind
from poemetric.form.rhyme import RhymeKind, classify_rhyme, infer_scheme

#: Lines looked back for a rhyme (as the free-sonnet reading's `infer_scheme(window=6)`).
WINDOW = 6


@dataclass(frozen=True)
class ScanLetters:
    """A letter per line and a note per line ('' or e.g. "eye rhyme with line 2 (though/through)")."""

    letters: str
    notes: tuple[str, ...]


def scan_letters(words: Sequence[str], *, window: int = WINDOW) -> ScanLetters:
    """Rhyme letters of the end words, and the eye rhymes kept apart (see the module docstring)."""
    letters = infer_scheme(words, window=window, allow_eye=False)
    notes: list[str] = []
    for index, word in enumerate(words):
        looks_like = -1
        if letters[index] not in letters[:index]:  # rhymes with no line in the window
            looks_like = next(
                (
                    earlier
                    for earlier in range(index - 1, max(0, index - window) - 1, -1)
                    if classify_rhyme(words[earlier], word) is RhymeKind.EYE
                ),
                -1,
            )
        if looks_like < 0:
            notes.append("")
            continue
        other = words[looks_like]
        kind = "historical" if rhyme_kind(other, word) is Rhyme.HISTORICAL else "eye"
        notes.append(f"{kind} rhyme with line {looks_like + 1} ({other}/{word})")
    return ScanLetters(letters, tuple(notes))
