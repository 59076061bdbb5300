"""Choosing the authors a figure shows: model names, generator groups (`paper7`), `human`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.suggest import name_hint


class AuthorSelectionError(ValueError):
    """A selection names no author of the run, or something that is neither author nor group."""


def _groups() -> dict[str, list[str]]:
    from poemetric.roster import RosterError, load_groups

    try:
        return load_groups("generators")
    except (RosterError, OSError):
        return {}


def select_authors(
    selection: str | None,
    present: Iterable[str],
    *,
    source: str = "--authors",
    labels: Mapping[str, str] | None = None,
) -> tuple[list[str], list[str]]:
    """The authors to show, in the order named (the human poets first, always, when the run has
    them), and notes on group members the run lacks. `None` or '' = every author of the run.
    `source` names where the selection came from in messages (a recipe's `authors:`); `labels`
    (author -> display name) lets the error name the author whose display name was given."""
    authors = author_order(list(present))
    if not selection or not selection.strip():
        return authors, []
    groups = _groups()
    chosen: list[str] = []
    notes: list[str] = []
    for token in (t.strip() for t in selection.split(",")):
        if not token:
            continue
        if token in authors:
            chosen.append(token)
        elif token in groups:
            members = groups[token]
            found = [m for m in members if m in authors]
            missing = [m for m in members if m not in authors]
            if missing:
                notes.append(
                    f"group {token!r}: {len(missing)} of {len(members)} not in this run "
                    f"({', '.join(missing)})"
                )
            chosen += found
        else:
            hint = name_hint(token, [*authors, *groups], labels or {})
            raise AuthorSelectionError(
                f"{token!r} is neither an author of this run nor a generator group{hint}; "
                f"authors: {', '.join(authors)}"
            )
    chosen = list(dict.fromkeys(a for a in chosen if a != HUMAN_AUTHOR))
    if not chosen:
        raise AuthorSelectionError(
            f"{source} {selection!r} names no LLM author of this run; authors: {', '.join(authors)}"
        )
    return ([HUMAN_AUTHOR] if HUMAN_AUTHOR in authors else []) + chosen, notes
