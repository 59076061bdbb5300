"""Where a LaTeX table goes and how wide its columns print: the width the tables are set for
(`analyze --latex-width`, named as `figures --width` names its widths), headers wrapped onto
two lines before a table is widened or split, and column groups of about equal width.

Widths are in TeX points, cells measured at \\small of an 11 pt document (10 pt, `latex_width`):
ACL/EMNLP's column is 7.7 cm (219 pt) and its text 16 cm (455 pt), under the 6.5 in (470 pt)
text of a letter page with 1 in margins; a page turned sideways has about 9 in (640 pt).
Turned sideways, a table's height must fit the text width (455 pt): a float taller than that
ran off the page with no warning from LaTeX (`rotating` zeroes the rotated box), so such a
table is a landscape longtable instead, which breaks onto a second page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from poemetric.tables.latex_width import text_width_pt

COLUMN_PT = 219.0
TEXT_PT = 455.0
LANDSCAPE_PT = 640.0
COLUMN_PAD_PT = 12.0  # \tabcolsep on both sides
#: The gap between a float's caption and its top rule (booktabs' \abovetopsep, 0pt unset).
CAPTION_GAP_PT = 5.0
#: A line of a table at \small of an 11 pt document (its baselineskip), and what a float adds
#: to its lines: the booktabs rules and their gaps, the skip above the caption and the gap
#: below it, struts.
LINE_PT = 12.0
FLOAT_EXTRA_PT = 27.0 + CAPTION_GAP_PT
#: The caption's label, as wide as printed up to table 99.
CAPTION_LABEL = "Table 99: "

#: The width words of `analyze --latex-width` and `figures --width` (which reads them as
#: `poemetric.analysis.plotting.WIDTH_WORDS`): 'one' column of a two-column paper or 'two'
#: columns, the text width.
LATEX_WIDTH_WORDS: dict[str, str] = {
    "one": "one", "single": "one", "column": "one",
    "two": "two", "double": "two", "page": "two",
}  # fmt: skip
LATEX_WIDTH_CHOICES = (
    "'one' (also 'single', 'column': a table that fits one column of a two-column paper, 7.7 cm, "
    "stays in it) or 'two' (also 'double', 'page': tables span the text width, 16 cm, as table*)"
)


def latex_width(value: str) -> str:
    """'one' or 'two' for a width word of `LATEX_WIDTH_WORDS`; ValueError otherwise."""
    word = LATEX_WIDTH_WORDS.get(value.strip().lower())
    if word is None:
        raise ValueError(f"LaTeX width {value!r}: use {LATEX_WIDTH_CHOICES}")
    return word


@dataclass(frozen=True)
class Placement:
    """A float environment and the width its table must fit."""

    environment: str
    limit: float
    sideways: bool


def placements(width: str) -> list[Placement]:
    """Where a table may go, narrowest first: one column (width 'one' only), the text width
    (`table*`, which spans both columns of a two-column paper and is a plain table otherwise),
    a page turned sideways (`sidewaystable*`)."""
    wide = [Placement("table*", TEXT_PT, False), Placement("sidewaystable*", LANDSCAPE_PT, True)]
    return [Placement("table", COLUMN_PT, False), *wide] if latex_width(width) == "one" else wide


def wrapped_lines(text: str, width: float | None) -> int:
    """How many lines `text` takes wrapped to `width` pt (None: not wrapped, one)."""
    return 1 if width is None else max(1, math.ceil(text_width_pt(text) / width))


def sideways_height_pt(caption: str, header_lines: int, row_lines: Sequence[int]) -> float:
    """The printed height of a sideways float, caption included (its lines at the rotated
    page's width): `header_lines` lines of headers and each row's lines (more than one where a
    text cell wraps)."""
    caption_lines = wrapped_lines(CAPTION_LABEL + caption, LANDSCAPE_PT) if caption else 0
    return LINE_PT * (caption_lines + header_lines + sum(row_lines)) + FLOAT_EXTRA_PT


def fits_sideways(height_pt: float) -> bool:
    """Whether a sideways float of `height_pt` fits the text width it is turned into (the
    narrower of ACL's 16 cm and a letter page's 6.5 in)."""
    return height_pt <= TEXT_PT


def _chunks(header: str) -> list[str]:
    """The words of a header, with a bracketed part ("[95% CI]") kept as one."""
    chunks: list[str] = []
    for word in header.split(" "):
        if chunks and "[" in chunks[-1] and "]" not in chunks[-1]:
            chunks[-1] += f" {word}"
        else:
            chunks.append(word)
    return chunks


def header_lines(header: str, cells_pt: float) -> list[str]:
    """`header` broken into lines no wider than its column's cells (or its widest word):
    "Pass rate [95% CI]" over "0.77 [0.71, 0.83]" prints as "Pass rate" / "[95% CI]"."""
    chunks = _chunks(header)
    target = max(cells_pt, *(text_width_pt(chunk) for chunk in chunks))
    lines = [chunks[0]]
    for chunk in chunks[1:]:
        joined = f"{lines[-1]} {chunk}"
        if text_width_pt(joined) <= target:
            lines[-1] = joined
        else:
            lines.append(chunk)
    return lines


def width_pt(widths: dict[str, float], columns: Sequence[str]) -> float:
    return sum(widths[c] + COLUMN_PAD_PT for c in columns)


def balanced_groups(keys: Sequence[str], values: Sequence[str], widths: dict[str, float],
                    limit: float) -> list[list[str]]:  # fmt: skip
    """`values` in as few runs as fit `limit` with `keys` repeated in each, the widest run as
    narrow as can be: greedy filling left the last run with one column ("Form score" alone)."""
    count = len(values)
    if not count:
        return [list(keys)]

    def run_pt(start: int, end: int) -> float:
        return width_pt(widths, [*keys, *values[start:end]])

    best: dict[tuple[int, int], tuple[float, list[int]]] = {(0, 0): (0.0, [])}
    for groups in range(1, count + 1):
        for end in range(1, count + 1):
            options = [
                (max(best[groups - 1, start][0], run_pt(start, end)),
                 [*best[groups - 1, start][1], end])
                for start in reversed(range(end))  # ties: the earlier parts wider
                if (groups - 1, start) in best
                and (run_pt(start, end) <= limit or end - start == 1)
            ]  # fmt: skip
            if options:
                best[groups, end] = min(options, key=lambda option: option[0])
        if (groups, count) in best and best[groups, count][0] <= limit:
            break
    cuts = [0, *best[groups, count][1]]
    return [[*keys, *values[a:b]] for a, b in pairwise(cuts)]
