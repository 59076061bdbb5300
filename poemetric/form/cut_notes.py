"""What the checker says when it cut its input (`MAX_CHARS` characters, `MAX_LINES` verse
lines): what was cut and where, so that "only 1 verse line" or "this poem has 600" is not read
as a fact about the whole text. Message text only: the cuts themselves, and every score, are the
checker's (`poemetric.form.checker`, `poemetric.form.parsing`)."""

from __future__ import annotations

import re

from poemetric.text.plural import counted


def char_cut_note(text: str, limit: int) -> str:
    """`only the first 200,000 of 200,035 characters were analysed: the cut falls inside input
    line 1 (200,001 characters long); lines 2-3 were not read` for a `text` over `limit`."""
    lines = text.count("\n") + 1
    line = text.count("\n", 0, limit) + 1  # the input line the first character left out is in
    start = text.rfind("\n", 0, limit) + 1
    end = text.find("\n", limit)
    length = (len(text) if end < 0 else end) - start
    if start == limit:  # the cut falls between two lines: this one and those after are not read
        where, unread = f"after input line {line - 1}", (line, lines)
    else:
        where = f"inside input line {line} ({length:,} characters long)"
        unread = (line + 1, lines)
    first, last = unread
    rest = (
        ""
        if first > last
        else f"; line {first} was not read"
        if first == last
        else f"; lines {first}-{last} were not read"
    )
    return (
        f"only the first {limit:,} of {len(text):,} characters were analysed: the cut falls "
        f"{where}{rest}"
    )


def line_cut_note(checked: int, total: int) -> str:
    """`only the first 600 of 700 verse lines were checked: verse lines 601-700 were not`."""
    left = f"verse line {total}" if total == checked + 1 else f"verse lines {checked + 1}-{total}"
    return (
        f"only the first {checked} of {counted(total, 'verse line')} were checked: "
        f"{left} {'was' if total == checked + 1 else 'were'} not"
    )


def with_cut(message: str, cuts: list[str]) -> str:
    """`message (input cut: ...)`, naming each cut; `message` alone when nothing was cut."""
    return f"{message} (input cut: {'; '.join(cuts)})" if cuts else message


def whole_count(detail: str, checked: int, total: int) -> str:
    """A line-count finding of a cut poem (`a sonnet has 14 lines; this poem has 600`) with the
    poem's own count: `...; this poem has 700 verse lines (only the first 600 were checked)`."""
    return re.sub(
        rf"this poem has {checked}$",
        f"this poem has {total} verse lines {_checked_only(checked)}",
        detail,
    )


def unsaid_cuts(summary: str, cuts: list[str], total: int | None, checked: int) -> list[str]:
    """The `cuts` a summary still has to name: the verse-line cut (`line_cut_note`) is left out
    when the summary's line-count reason says it already (`whole_count`), which it then said
    twice: "(only the first 600 were checked) (input cut: only the first 600 of 800 ...)"."""
    if total is None or _checked_only(checked) not in summary:
        return cuts
    return [cut for cut in cuts if cut != line_cut_note(checked, total)]


def _checked_only(checked: int) -> str:
    return f"(only the first {checked} were checked)"
