"""A GitHub-flavoured Markdown table from plain rows, without pandas: `write.to_markdown` prints a
data frame through it, and `probe run` prints its accuracy tables with it (importing pandas took
longer than a fully cached rerun's work)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from poemetric.tables.cells import _cell, _is_count
from poemetric.tables.headers import column_digits, readable

#: Characters that GitHub Markdown reads as markup in a table cell: maths (`$x^2$`), emphasis
#: (`_`, `*`), strikethrough (`~`), code, links, HTML, the cell separator `|`.
_MARKDOWN_SPECIALS = frozenset("\\`*_$|<>~[]")


def markdown_escape(text: str) -> str:
    """`text` shown as written in a Markdown table cell (a backslash before each special). An
    underscore between two letters or digits stays: it never opens or closes emphasis
    (CommonMark), and `rhyme_line_swap` reads as written where the table is not rendered."""
    return "".join(
        "\\" + char
        if char in _MARKDOWN_SPECIALS and not (char == "_" and _inside_word(text, i))
        else char
        for i, char in enumerate(text)
    )


def _inside_word(text: str, i: int) -> bool:
    return 0 < i < len(text) - 1 and text[i - 1].isalnum() and text[i + 1].isalnum()


def markdown_table(
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    numeric: Sequence[bool],
    *,
    digits: int = 2,
) -> str:
    """`rows` (values in `columns`' order) as a table with readable headers; cells of `numeric`
    columns ("0.48 [0.46, 0.50]") are right-aligned and not escaped, text cells are escaped."""
    header = "| " + " | ".join(readable(c).replace("|", "\\|") for c in columns) + " |"
    rule = "|" + "|".join("---:" if number else "---" for number in numeric) + "|"
    counts = [_is_count(c) for c in columns]
    places = [column_digits(c, digits) for c in columns]
    body = [
        "| "
        + " | ".join(
            _cell(v, place, count).replace("|", "\\|")
            if number
            else markdown_escape(_cell(v, place, count))
            for v, count, place, number in zip(row, counts, places, numeric, strict=True)
        )
        + " |"
        for row in rows
    ]
    return "\n".join([header, rule, *body]) + "\n"
