"""The answers that are not poems (`poemetric.screening`: empty, a refusal, one line, not in Latin
script), which the lexical and ghostwriting measures leave out as the judge stage leaves them
unjudged, and how notes and captions count them per author."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from poemetric.screening import is_poem
from poemetric.text.ordering import author_order
from poemetric.text.plural import counted, plural

#: The answers `poemetric.screening` calls not a poem, as notes and captions name them.
NOT_POEM_KINDS = "empty, a refusal, a single line, or not in Latin script"


def poems_only(generations: pd.DataFrame) -> pd.DataFrame:
    """The generations that are poems by `poemetric.screening`, the rule by which the judge
    stage leaves non-poems unjudged: the lexical and ghostwriting measures are over these, as
    the judge means are ("Roses are red." had TTR 1.0, and a refusal's words became a model's
    top words). The form-check tables keep every generation: a non-poem fails the form."""
    if generations.empty:
        return generations
    return generations[_poems(generations)]


def not_poems_by_author(generations: pd.DataFrame, label: Callable[[str], str] = str) -> str:
    """`model-a 2 of 10, model-b 1 of 10`: per author (with any, named by `label`) the
    generations that are not poems (`poems_only` leaves them out) of its generations; "" when
    every one is a poem."""
    if generations.empty:
        return ""
    return _listed(generations, ~_poems(generations), label)


def poems_only_caption(caption: str, left_out: str) -> str:
    """`caption` of a table over the poems only, with the answers it leaves out as not poems per
    author (`left_out`: `not_poems_by_author`, named as the table's rows name them)."""
    if not left_out:
        return caption
    return f"{caption}; over the poems only, without the answers that are not poems ({left_out})"


def not_poems_note(
    generations: pd.DataFrame, tables: str, label: Callable[[str], str] = str
) -> str | None:
    """`3 generations are not poems (...) and are left out of TABLES: by author, ...` (each
    named by `label`, as the tables' rows are), or None when every generation is a poem."""
    if generations.empty:
        return None
    not_poem = ~_poems(generations)
    listed = _listed(generations, not_poem, label)
    if not listed:
        return None
    total = int(not_poem.sum())
    return (
        f"{counted(total, 'generation')} {plural(total, 'is not a poem', 'are not poems')} "
        f"({NOT_POEM_KINDS}) and {plural(total, 'is', 'are')} left out of {tables}: by author, "
        f"{listed} generations (the form-check tables count {plural(total, 'it', 'them')} as "
        "failures)"
    )


def _poems(generations: pd.DataFrame) -> pd.Series:
    """Per generation, whether its text is a poem (`poemetric.screening.is_poem`)."""
    return generations["poem"].map(is_poem).astype(bool)


def _listed(generations: pd.DataFrame, not_poem: pd.Series, label: Callable[[str], str]) -> str:
    """`not_poems_by_author`'s listing of the generations `not_poem` marks."""
    left_out = generations.loc[not_poem, "author"]
    if left_out.empty:
        return ""
    counts, totals = left_out.value_counts(), generations["author"].value_counts()
    return ", ".join(
        f"{label(str(a))} {counts[a]} of {totals[a]}" for a in author_order(counts.index)
    )
