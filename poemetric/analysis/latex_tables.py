"""Writing result tables as LaTeX (booktabs) that fits a page.

LaTeX tables must fit a page. The printed width is measured from the cells (`latex_width`); a
table wider than a portrait text block is set sideways (`sidewaystable`, package `rotating`),
and one wider than that is split into column groups that each repeat the identifying columns;
text columns that still do not fit are wrapped (the identifying columns of a table of text).
Tables longer than a
page use `longtable` (rotated with `pdflscape` when wide). A column with one value throughout
(e.g. the judge) moves into the caption. Every `.tex` file names the packages it needs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from poemetric.analysis.headers import column_digits, readable
from poemetric.analysis.latex_width import text_width_pt
from poemetric.analysis.table_cells import _cell, _is_count, _keys, _numeric
from poemetric.paths import replaced_when_done

LATEX_PACKAGES = ("booktabs", "longtable", "rotating", "pdflscape")

#: Printed widths in points of a 6.5 x 9 in text block (1 in margins); cells are measured at
#: \small in an 11 pt document (10 pt, `latex_width`).
PORTRAIT_PT = 468.0
LANDSCAPE_PT = 640.0
COLUMN_PAD_PT = 12.0  # \tabcolsep on both sides
#: A text column wrapped to fit the page is never narrower than this.
MIN_WRAPPED_PT = 90.0
#: Rows per page of a float; longer tables become longtables.
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


def _column_pt(frame: pd.DataFrame, column: str, digits: int) -> float:
    """The printed width of a column's widest cell (or its header), without padding."""
    count, digits = _is_count(column), column_digits(column, digits)
    cells = [text_width_pt(_cell(v, digits, count)) for v in frame[column]]
    return max([text_width_pt(readable(column)), *cells])


#: Column -> `_column_pt` of each column of a table, measured once per table.
ColumnWidths = dict[str, float]


def _width_pt(widths: ColumnWidths, columns: Sequence[str]) -> float:
    return sum(widths[c] + COLUMN_PAD_PT for c in columns)


def _wrapped_columns(frame: pd.DataFrame, columns: Sequence[str], widths: ColumnWidths,
                     limit: float) -> dict[str, float]:  # fmt: skip
    """Text columns to wrap (name -> width in pt) so that the table fits `limit`: the widest
    text column first (e.g. poem titles in the errata table, which no split can narrow)."""
    wrapped: dict[str, float] = {}
    excess = _width_pt(widths, columns) - limit
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


def _column_groups(frame: pd.DataFrame, widths: ColumnWidths) -> list[list[str]]:
    """Columns split so that each group (with the identifying columns repeated) fits sideways."""
    keys = _keys(frame)
    values = [c for c in frame.columns if c not in keys]
    groups: list[list[str]] = []
    current: list[str] = []
    for column in values:
        if current and _width_pt(widths, [*keys, *current, column]) > LANDSCAPE_PT:
            groups.append(current)
            current = []
        current.append(column)
    groups.append(current)
    return [[*keys, *group] for group in groups]


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
        rows.append(" & ".join(cells) + r" \\")
    return rows


def _latex_block(frame: pd.DataFrame, columns: Sequence[str], caption: str, label: str,
                 digits: int, sideways: bool, widths: ColumnWidths) -> list[str]:  # fmt: skip
    align = "".join("r" if _numeric(frame, c) else "l" for c in columns)
    wrapped = _wrapped_columns(frame, columns, widths, LANDSCAPE_PT if sideways else PORTRAIT_PT)
    header = " & ".join(_boxed(readable(c), wrapped.get(c)) for c in columns) + r" \\"
    rows = _tabular_rows(frame, columns, digits, wrapped)
    title = [rf"\caption{{{latex_escape(caption)}}}"] if caption else []
    title += [rf"\label{{{label}}}"] if label else []
    if len(frame) > FLOAT_ROWS:
        body = [r"\begin{small}", rf"\begin{{longtable}}{{{align}}}", *title]
        if title:
            body[-1] += r" \\"
        body += [r"\toprule", header, r"\midrule", r"\endfirsthead", r"\toprule", header,
                 r"\midrule", r"\endhead", r"\bottomrule", r"\endlastfoot", *rows,
                 r"\end{longtable}", r"\end{small}"]  # fmt: skip
        return [r"\begin{landscape}", *body, r"\end{landscape}"] if sideways else body
    environment = "sidewaystable" if sideways else "table"
    return [rf"\begin{{{environment}}}[tp]", r"\centering", r"\small", *title,
            rf"\begin{{tabular}}{{{align}}}", r"\toprule", header, r"\midrule", *rows,
            r"\bottomrule", r"\end{tabular}", rf"\end{{{environment}}}"]  # fmt: skip


def to_latex(frame: pd.DataFrame, *, caption: str = "", label: str = "", digits: int = 2) -> str:
    """booktabs LaTeX that fits a page (see the module docstring); numbers right-aligned."""
    constant = _constant_keys(frame)
    if constant:
        said = "; ".join(f"{readable(c).lower()}: {frame[c].iloc[0]}" for c in constant)
        caption = f"{caption} ({said})" if caption else said
        frame = frame.drop(columns=constant)
    lines = [f"% Needs \\usepackage{{{','.join(LATEX_PACKAGES)}}} in the preamble."]
    widths = {c: _column_pt(frame, c, digits) for c in frame.columns}
    width = _width_pt(widths, list(frame.columns))
    if width <= PORTRAIT_PT:
        lines += _latex_block(frame, list(frame.columns), caption, label, digits, False, widths)
    else:
        groups = _column_groups(frame, widths) if width > LANDSCAPE_PT else [list(frame.columns)]
        for index, columns in enumerate(groups, start=1):
            part = f" (part {index} of {len(groups)})" if len(groups) > 1 else ""
            part_label = f"{label}-{index}" if label and len(groups) > 1 else label
            lines += _latex_block(frame, columns, caption + part, part_label, digits, True, widths)
    return "\n".join(lines) + "\n"


def latex_preview(table_files: Sequence[Path], out: Path) -> Path:
    """A standalone document that inputs every table: `pdflatex tables.tex` previews them."""
    lines = [
        r"\documentclass[11pt]{article}",
        r"\usepackage[margin=1in]{geometry}",
        r"\usepackage[utf8]{inputenc}",
        rf"\usepackage{{{','.join(LATEX_PACKAGES)}}}",
        r"\begin{document}",
        *(rf"\input{{{path.name}}}" + "\n\\clearpage" for path in table_files),
        r"\end{document}",
    ]
    with replaced_when_done(out) as temp:
        temp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out
