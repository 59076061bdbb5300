"""Choosing the authors a figure shows: model names, generator groups (`paper7`), `human`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.suggest import name_hint


class AuthorSelectionError(ValueError):
    """A selection names no author of the run, or something that is neither author nor group."""


def roster_groups(kind: Literal["generators", "judges"]) -> dict[str, list[str]]:
    """The groups of `kind` ("generators", "judges"); none where the roster cannot be read."""
    from poemetric.roster import RosterError, load_groups

    try:
        return load_groups(kind)
    except (RosterError, OSError):
        return {}


def members_in_run(
    group: str, members: list[str], present: Iterable[str], what: str = "group"
) -> tuple[list[str], str | None]:
    """The members of `group` that are in the run (`present`), and a note naming the others."""
    in_run = set(present)
    found = [m for m in members if m in in_run]
    missing = [m for m in members if m not in in_run]
    note = (
        f"{what} {group!r}: {len(missing)} of {len(members)} not in this run ({', '.join(missing)})"
        if missing
        else None
    )
    return found, note


def select_authors(
    selection: str | None,
    present: Iterable[str],
    *,
    source: str = "--authors",
    labels: Mapping[str, str] | None = None,
    leave_out_unknown: bool = False,
) -> tuple[list[str], list[str]]:
    """The authors to show, in the order named (the human poets first, always, when the run has
    them), and notes on group members the run lacks. `None` or '' = every author of the run.
    `source` names where the selection came from in messages (a recipe's `authors:`); `labels`
    (author -> display name) lets the error name the author whose display name was given.
    `leave_out_unknown` (a recipe's `authors:`, written for more than one run): a name that is
    neither an author of the run nor a group is left out with a note, not an error."""
    authors = author_order(list(present))
    if not selection or not selection.strip():
        return authors, []
    groups = roster_groups("generators")
    chosen: list[str] = []
    notes: list[str] = []
    unknown_names: list[str] = []  # left out (`leave_out_unknown`), each with its hint
    for token in (t.strip() for t in selection.split(",")):
        if not token:
            continue
        if token in authors:
            chosen.append(token)
        elif token in groups:
            found, note = members_in_run(token, groups[token], authors)
            notes += [note] if note else []
            chosen += found
        else:
            hint = name_hint(token, [*authors, *groups], labels or {})
            unknown = f"{token!r} is neither an author of this run nor a generator group{hint}"
            if leave_out_unknown:
                notes.append(f"{source} {unknown}: left out")
                unknown_names.append(unknown)
                continue
            raise AuthorSelectionError(f"{unknown}; authors: {', '.join(authors)}")
    chosen = list(dict.fromkeys(a for a in chosen if a != HUMAN_AUTHOR))
    if not chosen:
        # Each name left out keeps its hint: "names no LLM author" alone hid a typo's.
        why = "; ".join(unknown_names) or f"{selection!r} names no LLM author of this run"
        raise AuthorSelectionError(f"{source} {why}; authors: {', '.join(authors)}")
    return ([HUMAN_AUTHOR] if HUMAN_AUTHOR in authors else []) + chosen, notes
