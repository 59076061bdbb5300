"""Writing result tables as CSV, LaTeX (booktabs) and Markdown.

CSV keeps the machine names (`author` = `gpt-4o`, column `pass_ci_low`) at full precision: it
is the file to compute with. LaTeX and Markdown are for reading: display names (`GPT-4o`),
readable headers (`Pass 95% CI low`), counts as integers, numbers rounded.

LaTeX tables must fit a page. The printed width is measured from the cells (`latex_width`); a
table wider than a portrait text block is set sideways (`sidewaystable`, package `rotating`),
and one wider than that is split into column groups that each repeat the identifying columns;
text columns that still do not fit are wrapped (the identifying columns of a table of text).
Tables longer than a
page use `longtable` (rotated with `pdflscape` when wide). A column with one value throughout
(e.g. the judge) moves into the caption. Every `.tex` file names the packages it needs.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from poemetric.analysis.headers import HEADERS as HEADERS
from poemetric.analysis.headers import (
    PERCENT_COLUMNS,
    column_digits,
    dimension_label,
    part_label,
    readable,
)
from poemetric.analysis.latex_width import text_width_pt
from poemetric.paths import replaced_when_done

TABLE_FORMATS: tuple[str, ...] = ("csv", "tex", "md")
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

#: Columns holding counts: printed as integers.
COUNT_COLUMNS = {"n", "count", "rank", "poems", "mattr_short", "chance_pool", "n_poems", "n_pairs"}
#: Columns that identify a row (repeated when a wide table is split; said once when constant).
IDENTITY_COLUMNS = {"judge", "author", "rater", "expert", "poem_form", "dimension", "group",
                    "part", "item", "word", "image"}  # fmt: skip
#: Columns naming authors or raters: printed with display names.
AUTHOR_COLUMNS = {"author"}
RATER_COLUMNS = {"judge", "rater"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


def _is_count(column: str) -> bool:
    return column in COUNT_COLUMNS or column.startswith("n_")


#: A value that does not exist (the human poets' repetition of their own original, a statistic
#: undefined for the ratings): an en dash, as the terminal summary shows it.
MISSING = "–"


def _cell(value: object, digits: int, count: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, float):
        if count and value.is_integer():
            return f"{int(value)}"
        if value.is_integer() and abs(value) >= 1000:
            return f"{int(value)}"
        return f"{value:.{digits}f}"
    return str(value)


Namer = Callable[[str], str]


def presentable(
    frame: pd.DataFrame,
    *,
    author_name: Namer | None = None,
    rater_name: Namer | None = None,
    value_names: dict[str, Namer] | None = None,
    digits: int = 2,
) -> pd.DataFrame:
    """The frame as read by people: display names in author / rater columns, dimension labels
    in `dimension` / `item` columns (and any column in `value_names`), the word tables' shares
    as percentages. Headers and number formats are applied when rendering."""
    shown = frame.copy()
    renames: dict[str, Namer] = {"dimension": dimension_label, "item": dimension_label,
                                 "part": part_label, "group": part_label}  # fmt: skip
    renames |= dict(value_names or {})
    for column in shown.columns:
        if column in AUTHOR_COLUMNS and author_name:
            renames.setdefault(column, author_name)
        if column in RATER_COLUMNS and rater_name:
            renames.setdefault(column, rater_name)
    for column, namer in renames.items():
        if column in shown:
            shown[column] = shown[column].map(lambda v, n=namer: n(str(v)) if pd.notna(v) else v)
    for column, percent in PERCENT_COLUMNS.items():
        if column in shown and pd.api.types.is_numeric_dtype(shown[column]):
            shown[column] = 100 * shown[column]
            shown = shown.rename(columns={column: percent})
    return with_intervals(shown, digits)


def _interval_columns(frame: pd.DataFrame) -> list[tuple[str, str, str, str]]:
    """(estimate, low, high, name) column triples: `mean`/`ci_low`/`ci_high`,
    `X_mean`/`X_ci_low`/`X_ci_high`, `pass_rate`/`pass_ci_low`/`pass_ci_high`, and `X` with
    `X_ci_low`/`X_ci_high`."""
    triples = []
    for low in (c for c in frame.columns if c.endswith("ci_low")):
        stem = low.removesuffix("ci_low").removesuffix("_")
        high = f"{stem}_ci_high" if stem else "ci_high"
        candidates = [f"{stem}_mean", stem, f"{stem}_rate"] if stem else ["mean"]
        estimate = next((c for c in candidates if c in frame.columns), None)
        if high in frame.columns and estimate is not None:
            triples.append((estimate, low, high, estimate))
    return triples


def with_intervals(frame: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """Each estimate and its 95% CI in one column, `0.48 [0.46, 0.50]`; the SD of a metric
    shown this way is left to the CSV, except a table's plain `sd` (Table 2 reports SDs). An
    estimate without any interval stays a plain number (no "[95% CI]" in its header)."""
    shown = frame.copy()
    for estimate, low, high, name in _interval_columns(frame):
        if frame[low].isna().all() and frame[high].isna().all():
            # No interval at all (`analyze --bootstrap 0`): a plain number, no "[95% CI]".
            shown = shown.drop(columns=[low, high])
            continue
        drop = [low, high]
        stem = estimate.removesuffix("_mean")
        if estimate.endswith("_mean") and f"{stem}_sd" in shown:
            drop.append(f"{stem}_sd")
        cells = [
            MISSING if pd.isna(m) else f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
            if pd.notna(lo) and pd.notna(hi) else f"{m:.{digits}f}"
            for m, lo, hi in zip(frame[estimate], frame[low], frame[high], strict=True)
        ]  # fmt: skip
        shown[estimate] = cells
        shown = shown.drop(columns=drop).rename(columns={estimate: f"{name}__ci"})
    return shown


def _numeric(frame: pd.DataFrame, column: str) -> bool:
    return pd.api.types.is_numeric_dtype(frame[column]) or column.endswith("__ci")


def _keys(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c in IDENTITY_COLUMNS or not _numeric(frame, c)]


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


def to_markdown(frame: pd.DataFrame, *, digits: int = 2) -> str:
    """A GitHub-flavoured Markdown table with readable headers; text cells (names, themes) are
    escaped, numbers ("0.48 [0.46, 0.50]") are not."""
    header = "| " + " | ".join(readable(str(c)).replace("|", "\\|") for c in frame.columns) + " |"
    numeric = [_numeric(frame, str(c)) for c in frame.columns]
    rule = "|" + "|".join("---:" if number else "---" for number in numeric) + "|"
    counts = [_is_count(str(c)) for c in frame.columns]
    places = [column_digits(str(c), digits) for c in frame.columns]
    body = [
        "| "
        + " | ".join(
            _cell(v, place, count).replace("|", "\\|")
            if number
            else markdown_escape(_cell(v, place, count))
            for v, count, place, number in zip(row, counts, places, numeric, strict=True)
        )
        + " |"
        for row in frame.itertuples(index=False)
    ]
    return "\n".join([header, rule, *body]) + "\n"


def write_table(
    frame: pd.DataFrame,
    out_dir: str | Path,
    name: str,
    *,
    caption: str = "",
    digits: int = 2,
    formats: Sequence[str] = TABLE_FORMATS,
    shown: pd.DataFrame | None = None,
) -> list[Path]:
    """Write `name.csv` (`frame`, full precision), `name.tex` and `name.md` (`shown`, the
    presentable version, by default `frame`; rounded to `digits`)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    shown = frame if shown is None else shown
    written: list[Path] = []
    for fmt in formats:
        if fmt not in TABLE_FORMATS:
            raise ValueError(f"unknown table format {fmt!r}; use {', '.join(TABLE_FORMATS)}")
        path = out / f"{name}.{fmt}"
        with replaced_when_done(path) as temp:  # Ctrl-C leaves no half-written table
            if fmt == "csv":
                _integer_counts(frame).to_csv(temp, index=False)
            elif fmt == "tex":
                temp.write_text(
                    to_latex(shown, caption=caption, label=f"tab:{name}", digits=digits),
                    encoding="utf-8",
                )
            else:
                title = f"**{markdown_escape(caption)}**\n\n" if caption else ""
                temp.write_text(title + to_markdown(shown, digits=digits), encoding="utf-8")
        written.append(path)
    return written


def _integer_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with its count columns of whole numbers as integers: a count held as a float
    (a pandas mean's sibling, a column with a missing value) is written `70`, not `70.0`, as the
    .md and .tex tables print it."""
    whole = [
        column
        for column in frame.columns
        if _is_count(str(column))
        and pd.api.types.is_float_dtype(frame[column])
        and frame[column].dropna().map(float.is_integer).all()
    ]
    return frame.astype(dict.fromkeys(whole, "Int64")) if whole else frame


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
