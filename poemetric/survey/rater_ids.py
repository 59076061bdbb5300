"""Rater ids of a ratings file that differ from a survey's only in case or spaces (`Ann` for
`ann`, as a spreadsheet capitalises them): imported, they were further raters beside the
survey's own, so one expert's ratings counted twice and agreement rose with the copies."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from poemetric.store import RunStore


def _folded(rater: str) -> str:
    """`rater` as a spreadsheet may have changed it: case, the spaces at its ends or between
    words, Unicode's composed or decomposed accents. Not `casefold` (`Straße` is not
    `Strasse`) nor every space removed (`Mary Ann` is not `Maryann`)."""
    return " ".join(unicodedata.normalize("NFC", rater).lower().split())


def near_rater_ids(store: RunStore, survey_id: str, raters: Iterable[str]) -> dict[str, str]:
    """File rater id -> the survey's rater id it differs from only in case or spaces, for each
    file id that is not itself a rater of the survey."""
    known = [
        str(row[0])
        for row in store.query(
            "SELECT rater_id FROM survey_raters WHERE survey_id = ? ORDER BY rater_id",
            [survey_id],
        )
    ]
    exact = set(known)
    by_fold: dict[str, str] = {}
    for rater in known:
        by_fold.setdefault(_folded(rater), rater)
    near: dict[str, str] = {}
    for rater in sorted(set(raters)):
        match = by_fold.get(_folded(rater))
        if rater not in exact and match is not None:
            near[rater] = match
    return near


def near_rater_message(path: object, survey_id: str, near: dict[str, str]) -> str:
    pairs = ", ".join(f"{found!r} (the survey's {rater!r})" for found, rater in near.items())
    return (
        f"{path}: rater ids differ from those of survey {survey_id!r} only in case or spaces: "
        f"{pairs}; "
        "ids are exact, so these answers would be further raters beside the survey's own and "
        "count twice in the agreement. Write the survey's ids in the rater column and import "
        "again; nothing imported"
    )


def spelled_apart(
    store: RunStore, survey_id: str, first_lines: dict[str, int]
) -> list[list[tuple[str, int]]]:
    """Groups of a file's rater ids (each with the line of its first row) that differ from each
    other only in case or spaces, unless the survey has every one of them as a rater: one expert
    written two ways (`Ann`, `ann`) was two raters, whose ratings of one poem agreed with each
    other in the agreement."""
    known = {
        str(row[0])
        for row in store.query(
            "SELECT rater_id FROM survey_raters WHERE survey_id = ?", [survey_id]
        )
    }
    groups: dict[str, list[tuple[str, int]]] = {}
    for rater, line in sorted(first_lines.items(), key=lambda pair: (pair[1], pair[0])):
        groups.setdefault(_folded(rater), []).append((rater, line))
    return [
        group
        for group in groups.values()
        if len(group) > 1 and not all(rater in known for rater, _ in group)
    ]


def spelled_apart_message(path: object, groups: list[list[tuple[str, int]]]) -> str:
    spellings = "; ".join(
        " and ".join(f"{rater!r} (first on line {line})" for rater, line in group)
        for group in groups
    )
    return (
        f"{path}: rater ids differ from each other only in case or spaces: {spellings}; ids are "
        "exact, so one expert's answers would be several raters, whose ratings of the same poem "
        "agree with each other in the agreement. Write each rater's id the same way on every "
        "row and import again; nothing imported"
    )
