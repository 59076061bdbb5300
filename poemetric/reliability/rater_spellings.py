"""Rater ids of one ratings file that differ from each other only in case or spaces (`Ann` on
some rows, `ann` on others, as a spreadsheet capitalises them): read as ids, they were two
raters, whose ratings of one poem agreed with each other in the agreement. Shared by
`survey import`, `analyze --experts` and `agree`, which refuse such a file."""

from __future__ import annotations

import unicodedata
from collections.abc import Collection, Mapping

#: Groups of rater ids spelled apart, each id with the line of its first row.
SpelledApart = list[list[tuple[str, int]]]


def folded(rater: str) -> str:
    """`rater` as a spreadsheet may have changed it: case, the spaces at its ends or between
    words, Unicode's composed or decomposed accents. Not `casefold` (`Straße` is not
    `Strasse`) nor every space removed (`Mary Ann` is not `Maryann`)."""
    return " ".join(unicodedata.normalize("NFC", rater).lower().split())


def spelled_apart(first_lines: Mapping[str, int], known: Collection[str] = ()) -> SpelledApart:
    """Groups of a file's rater ids (each with the line of its first row, `first_lines`) that
    differ from each other only in case or spaces, unless every one of a group is `known` (a
    survey that has each as a rater)."""
    groups: dict[str, list[tuple[str, int]]] = {}
    for rater, line in sorted(first_lines.items(), key=lambda pair: (pair[1], pair[0])):
        groups.setdefault(folded(rater), []).append((rater, line))
    return [
        group
        for group in groups.values()
        if len(group) > 1 and not all(rater in known for rater, _ in group)
    ]


def spelled_apart_message(
    path: object,
    groups: SpelledApart,
    then: str,
    place: str = "first on line",
    where: str = "on every row",
) -> str:
    """The error naming every group of `spelled_apart` by its first lines; `then`: what to do
    after writing each id one way, and what became of the file ("import again; nothing
    imported"). `place` and `where` name the numbers and the ids of a list that is not a
    file's rows (`--raters`: "rater", "in --raters")."""
    spellings = "; ".join(
        " and ".join(f"{rater!r} ({place} {line})" for rater, line in group) for group in groups
    )
    return (
        f"{path}: rater ids differ from each other only in case or spaces: {spellings}; ids are "
        "exact, so one rater's answers would be read as several raters, whose ratings of the same poem "
        f"agree with each other in the agreement. Write each rater's id the same way {where} "
        f"and {then}"
    )
