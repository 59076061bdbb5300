"""Writing result tables as CSV, LaTeX (booktabs) and Markdown.

CSV keeps the machine names (`author` = `gpt-4o`, column `pass_ci_low`) at full precision: it
is the file to compute with. LaTeX and Markdown are for reading: display names (`GPT-4o`),
readable headers (`Pass 95% CI low`), counts as integers, numbers rounded. The LaTeX that fits
a page is `latex`; how one cell prints, `cells`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from poemetric.paths import replaced_when_done
from poemetric.tables.cells import MISSING, _is_count, _numeric, fixed
from poemetric.tables.headers import HEADERS as HEADERS
from poemetric.tables.headers import (
    PERCENT_COLUMNS,
    dimension_label,
    part_label,
)
from poemetric.tables.headers import readable as readable
from poemetric.tables.latex import to_latex
from poemetric.tables.markdown import markdown_escape as markdown_escape
from poemetric.tables.markdown import markdown_table

TABLE_FORMATS: tuple[str, ...] = ("csv", "tex", "md")

#: Columns naming authors or raters: printed with display names.
AUTHOR_COLUMNS = {"author"}
RATER_COLUMNS = {"judge", "rater"}

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
            MISSING if pd.isna(m)
            else f"{fixed(m, digits)} [{fixed(lo, digits)}, {fixed(hi, digits)}]"
            if pd.notna(lo) and pd.notna(hi) else fixed(m, digits)
            for m, lo, hi in zip(frame[estimate], frame[low], frame[high], strict=True)
        ]  # fmt: skip
        shown[estimate] = cells
        shown = shown.drop(columns=drop).rename(columns={estimate: f"{name}__ci"})
    return shown


def to_markdown(frame: pd.DataFrame, *, digits: int = 2) -> str:
    """A GitHub-flavoured Markdown table with readable headers; text cells (names, themes) are
    escaped, numbers ("0.48 [0.46, 0.50]") are not."""
    columns = [str(c) for c in frame.columns]
    numeric = [_numeric(frame, c) for c in columns]
    return markdown_table(columns, frame.itertuples(index=False), numeric, digits=digits)


def remove_table_files(out_dir: Path, name: str) -> bool:
    """Delete the files `write_table` writes for the table `name` in `out_dir` (every format of
    `TABLE_FORMATS`); whether there was one. A table an earlier command wrote and this one does
    not is removed so: left there, it reads as current."""
    files = [path for fmt in TABLE_FORMATS if (path := out_dir / f"{name}.{fmt}").is_file()]
    for path in files:
        path.unlink(missing_ok=True)
    return bool(files)


def write_table(
    frame: pd.DataFrame,
    out_dir: str | Path,
    name: str,
    *,
    caption: str = "",
    digits: int = 2,
    formats: Sequence[str] = TABLE_FORMATS,
    shown: pd.DataFrame | None = None,
    latex_width: str = "two",
) -> list[Path]:
    """Write `name.csv` (`frame`, full precision), `name.tex` and `name.md` (`shown`, the
    presentable version, by default `frame`; rounded to `digits`); the LaTeX set for
    `latex_width` ('one' column or 'two', `latex_layout`)."""
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
                    to_latex(
                        shown,
                        caption=caption,
                        label=f"tab:{name}",
                        digits=digits,
                        width=latex_width,
                    ),
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
