"""Writing result tables as LaTeX (booktabs) that fits a page or a column.

The printed width is measured from the cells (`latex_width`). A table goes in the narrowest
place it fits (`latex_layout`): one column of a two-column paper (`--latex-width one` only),
the text width (`table*`: across both columns of a two-column paper), a page turned sideways
(`sidewaystable*`, package `rotating`); at each, headers wider than their cells are wrapped
onto two lines ("Pass rate" / "[95% CI]") before the table is moved on. Wider than a sideways
page, it is split into column groups of about equal width that each repeat the identifying
columns; text columns that still do not fit are wrapped (the identifying columns of a table of
text). Tables longer than a page use `longtable` (rotated with `pdflscape` when wide; on
one-column pages in a two-column paper), whose later pages say "(continued)". A column with
one value throughout (e.g. the judge) moves into the caption. Every `.tex` file names the
packages it needs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from poemetric.paths import replaced_when_done
from poemetric.tables.cells import _cell, _is_count, _keys, _numeric
from poemetric.tables.headers import column_digits, readable
from poemetric.tables.latex_layout import (
    CAPTION_GAP_PT,
    Placement,
    balanced_groups,
    fits_sideways,
    header_lines,
    latex_width,
    placements,
    sideways_height_pt,
    width_pt,
    wrapped_lines,
)
from poemetric.tables.latex_width import text_width_pt

LATEX_PACKAGES = ("booktabs", "longtable", "rotating", "pdflscape")

#: A text column wrapped to fit the page is never narrower than this.
MIN_WRAPPED_PT = 90.0
#: Rows per page of a float; longer tables become longtables (as do sideways floats taller
#: than the text width they are turned into: `latex_layout.fits_sideways`).
FLOAT_ROWS = 40

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    # In LaTeX's default font encoding (OT1) these print as "¡", "¿" and an em dash.
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    # The agreement headers' Greek letters: LaTeX's UTF-8 input has no text glyph for them.
    "α": r"$\alpha$",
    "κ": r"$\kappa$",
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


def _constant_keys(frame: pd.DataFrame) -> list[str]:
    """Identity columns with one value throughout (e.g. the judge): said once, in the caption."""
    if len(frame) < 2:
        return []
    return [c for c in _keys(frame) if frame[c].nunique(dropna=False) == 1]


#: Column -> the printed width of its widest cell or header (without padding).
ColumnWidths = dict[str, float]


def _wrapped_columns(frame: pd.DataFrame, columns: Sequence[str], widths: ColumnWidths,
                     limit: float) -> dict[str, float]:  # fmt: skip
    """Text columns to wrap (name -> width in pt) so that the table fits `limit`: the widest
    text column first (e.g. poem titles in the errata table, which no split can narrow)."""
    wrapped: dict[str, float] = {}
    excess = width_pt(widths, columns) - limit
    texts = [c for c in columns if not _numeric(frame, c)]
    for column in sorted(texts, key=lambda c: -widths[c]):
        if excess <= 0:
            break
        natural = widths[column]
        width = max(MIN_WRAPPED_PT, natural - excess)
        if width < natural:
            wrapped[column] = width
            excess -= natural - width
    return wrapped


def _boxed(text: str, width: float | None) -> str:
    """Escaped text, in a ragged-right top-aligned box when its column is wrapped."""
    escaped = latex_escape(text)
    if width is None or text_width_pt(text) <= width:
        return escaped
    return rf"\parbox[t]{{{width:.0f}pt}}{{\raggedright {escaped}}}"


#: A minus sign where a number starts ("-0.09", "[-0.12"), not inside a name ("Llama-3").
_NEGATIVE = re.compile(r"(?<![\w.])-(?=\d)")


def _tabular_rows(frame: pd.DataFrame, columns: Sequence[str], digits: int,
                  wrapped: dict[str, float]) -> list[str]:  # fmt: skip
    counts = [_is_count(c) for c in columns]
    places = [column_digits(c, digits) for c in columns]
    widths = [wrapped.get(c) for c in columns]
    numeric = [_numeric(frame, c) for c in columns]
    rows = []
    for row in frame[list(columns)].itertuples(index=False):
        cells = []
        for value, count, place, width, number in zip(
            row, counts, places, widths, numeric, strict=True
        ):
            cell = _boxed(_cell(value, place, count), width)
            # In text, "-0.09" prints a hyphen, shorter and higher than a minus.
            cells.append(_NEGATIVE.sub(r"$-$", cell) if number else cell)
        rows.append(_row_start(" & ".join(cells)) + r" \\")
    return rows


def _row_start(row: str) -> str:
    """A row that starts with `[` or `*` behind `{}`: the `\\` ending the row before (or a
    rule) reads them as its own argument, so `[beta] QwQ` stopped pdflatex ("Missing number")
    and `*star* QwQ` printed as `star* QwQ`."""
    return "{}" + row if row.lstrip().startswith(("[", "*")) else row


def _float_height_pt(frame: pd.DataFrame, columns: Sequence[str], caption: str, digits: int,
                     layout: _Layout, wrapped: dict[str, float]) -> float:  # fmt: skip
    """The printed height of the table as a sideways float (`latex_layout.sideways_height_pt`)."""
    header = max(len(layout.headers.get(c, ())) or wrapped_lines(readable(c), wrapped.get(c))
                 for c in columns)  # fmt: skip
    shown = {c: (column_digits(c, digits), _is_count(c)) for c in columns if c in wrapped}
    rows = [max([1, *(wrapped_lines(_cell(row[c], *shown[c]), wrapped[c]) for c in shown)])
            for _, row in frame.iterrows()]  # fmt: skip
    return sideways_height_pt(caption, header, rows)


def _header(column: str, align: str, lines: list[str] | None, wrap: float | None) -> str:
    """A header cell: on the lines `header_lines` chose (a nested tabular, no package needed;
    `\\{}` so that "[95% CI]" is not read as the spacing argument of `\\`), else boxed."""
    if lines is None or len(lines) < 2:
        return _boxed(readable(column), wrap)
    stacked = r"\\{}".join(latex_escape(line) for line in lines)
    return rf"\begin{{tabular}}[b]{{@{{}}{align}@{{}}}}{stacked}\end{{tabular}}"


#: Set before a longtable: longtable cannot run in two-column mode, so in a two-column paper
#: the table gets one-column pages (`\onecolumn`), and two columns resume after it.
_ONE_COLUMN = (r"\makeatletter\if@twocolumn\onecolumn\let\poemetricresume\twocolumn"
               r"\else\let\poemetricresume\relax\fi\makeatother")  # fmt: skip


def _latex_block(frame: pd.DataFrame, columns: Sequence[str], caption: str, label: str,
                 digits: int, place: Placement, layout: _Layout) -> list[str]:  # fmt: skip
    align = ["r" if _numeric(frame, c) else "l" for c in columns]
    wrapped = _wrapped_columns(frame, columns, layout.widths, place.limit)
    header = (
        " & ".join(
            _header(c, a, layout.headers.get(c), wrapped.get(c))
            for c, a in zip(columns, align, strict=True)
        )
        + r" \\"
    )
    rows = _tabular_rows(frame, columns, digits, wrapped)
    title = [rf"\caption{{{latex_escape(caption)}}}"] if caption else []
    title += [rf"\label{{{label}}}"] if label else []
    if len(frame) > FLOAT_ROWS or (
        place.sideways
        and not fits_sideways(_float_height_pt(frame, columns, caption, digits, layout, wrapped))
    ):
        body = [r"\begin{small}", rf"\begin{{longtable}}{{{''.join(align)}}}", *title]
        if title:
            body[-1] += r" \\"
        # Every page after the first says the table goes on: its number, "(continued)".
        more = (
            r"\caption[]{(continued)} \\"
            if caption
            else (rf"\multicolumn{{{len(columns)}}}{{l}}{{(continued)}} \\")
        )
        body += [r"\toprule", header, r"\midrule", r"\endfirsthead", more, r"\toprule", header,
                 r"\midrule", r"\endhead", r"\bottomrule", r"\endlastfoot", *rows,
                 r"\end{longtable}", r"\end{small}"]  # fmt: skip
        if place.sideways:
            body = [r"\begin{landscape}", *body, r"\end{landscape}"]
        return [_ONE_COLUMN, *body, r"\poemetricresume"]
    # A caption above a float's tabular has no skip below it (LaTeX puts \abovecaptionskip
    # above a caption, booktabs' \abovetopsep is 0pt): the top rule ran along the caption's
    # last line. booktabs' gap above a top rule sets it off, local to this float (its height:
    # latex_layout.CAPTION_GAP_PT).
    gap = [rf"\setlength{{\abovetopsep}}{{{CAPTION_GAP_PT:g}pt}}"] if caption else []
    return [rf"\begin{{{place.environment}}}[tp]", r"\centering", r"\small", *title, *gap,
            rf"\begin{{tabular}}{{{''.join(align)}}}", r"\toprule", header, r"\midrule", *rows,
            r"\bottomrule", r"\end{tabular}", rf"\end{{{place.environment}}}"]  # fmt: skip


@dataclass(frozen=True)
class _Layout:
    """Column widths, and the headers wrapped onto lines (column -> lines; none: one line)."""

    widths: ColumnWidths
    headers: dict[str, list[str]]


def _layouts(frame: pd.DataFrame, digits: int) -> tuple[_Layout, _Layout]:
    """The table with one-line headers, and with headers wider than their cells wrapped."""
    count = {c: _is_count(c) for c in frame.columns}
    cells = {c: max([0.0, *(text_width_pt(_cell(v, column_digits(c, digits), count[c]))
                             for v in frame[c])]) for c in frame.columns}  # fmt: skip
    natural = {c: max(cells[c], text_width_pt(readable(c))) for c in frame.columns}
    lines = {c: header_lines(readable(c), cells[c]) for c in frame.columns}
    wrapped = {c: max(cells[c], *(text_width_pt(line) for line in lines[c])) for c in frame.columns}
    return _Layout(natural, {}), _Layout(wrapped, {c: v for c, v in lines.items() if len(v) > 1})


def to_latex(frame: pd.DataFrame, *, caption: str = "", label: str = "", digits: int = 2,
             width: str = "two") -> str:  # fmt: skip
    """booktabs LaTeX that fits a page (see the module docstring); numbers right-aligned.
    `width` 'one' keeps a table that fits one column of a two-column paper in it."""
    constant = _constant_keys(frame)
    if constant:
        said = "; ".join(f"{readable(c).lower()}: {frame[c].iloc[0]}" for c in constant)
        caption = f"{caption} ({said})" if caption else said
        frame = frame.drop(columns=constant)
    lines = [f"% Needs \\usepackage{{{','.join(LATEX_PACKAGES)}}} in the preamble."]
    columns = list(frame.columns)
    places = placements(width)
    if len(frame) > FLOAT_ROWS:  # longtables get one-column pages: never in a column
        places = [place for place in places if place.environment != "table"]
    layouts = _layouts(frame, digits)
    for place in places:
        for layout in layouts:
            if width_pt(layout.widths, columns) <= place.limit:
                return (
                    "\n".join(
                        [
                            *lines,
                            *_latex_block(frame, columns, caption, label, digits, place, layout),
                        ]
                    )
                    + "\n"
                )
    layout, place = layouts[1], places[-1]
    keys = _keys(frame)
    values = [c for c in columns if c not in keys]
    groups = balanced_groups(keys, values, layout.widths, place.limit)
    for index, group in enumerate(groups, start=1):
        part = f" (part {index} of {len(groups)})" if len(groups) > 1 else ""
        part_label = f"{label}-{index}" if label and len(groups) > 1 else label
        lines += _latex_block(frame, group, caption + part, part_label, digits, place, layout)
    return "\n".join(lines) + "\n"


#: The preview's page for `--latex-width one`: ACL/EMNLP's, two 7.7 cm columns.
_TWO_COLUMNS = (
    r"\documentclass[11pt,twocolumn]{article}",
    r"\usepackage[textwidth=16cm,textheight=24.7cm,columnsep=0.6cm]{geometry}",
)
_ONE_COLUMN_PAGE = (r"\documentclass[11pt]{article}", r"\usepackage[margin=1in]{geometry}")


def latex_preview(table_files: Sequence[Path], out: Path, width: str = "two") -> Path:
    """A standalone document that inputs every table: `pdflatex tables.tex` previews them, on
    a two-column page for `width` 'one'."""
    page = _TWO_COLUMNS if latex_width(width) == "one" else _ONE_COLUMN_PAGE
    lines = [
        *page,
        r"\usepackage[utf8]{inputenc}",
        rf"\usepackage{{{','.join(LATEX_PACKAGES)}}}",
        r"\begin{document}",
        *(rf"\input{{{path.name}}}" + "\n\\clearpage" for path in table_files),
        r"\end{document}",
    ]
    with replaced_when_done(out) as temp:
        temp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
