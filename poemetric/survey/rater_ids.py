"""Rater ids of a ratings file that differ from a survey's only in case or spaces (`Ann` for
`ann`, as a spreadsheet capitalises them): imported, they were further raters beside the
survey's own, so one expert's ratings counted twice and agreement rose with the copies."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from poemetric.reliability.rater_spellings import SpelledApart, folded
from poemetric.reliability.rater_spellings import spelled_apart as spelled_apart_in
from poemetric.reliability.rater_spellings import spelled_apart_message as apart_message

if TYPE_CHECKING:
    from poemetric.store import RunStore


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
        by_fold.setdefault(folded(rater), rater)
    near: dict[str, str] = {}
    for rater in sorted(set(raters)):
        match = by_fold.get(folded(rater))
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


def spelled_apart(store: RunStore, first_lines: dict[str, int]) -> SpelledApart:
    """Groups of a file's rater ids (each with the line of its first row) that differ from each
    other only in case or spaces (`poemetric.reliability.rater_spellings`), unless a survey of
    the run has every one of them as a rater, by its id or as `survey:rater` (an exported file
    of several surveys names them so): the raters `analyze --experts` keeps apart."""
    rows = store.query("SELECT survey_id, rater_id FROM survey_raters")
    known = {str(r["rater_id"]) for r in rows} | {f"{r['survey_id']}:{r['rater_id']}" for r in rows}
    return spelled_apart_in(first_lines, known)


def spelled_apart_message(path: object, groups: SpelledApart) -> str:
    return apart_message(path, groups, "import again; nothing imported")
