"""Writing result tables as CSV, LaTeX (booktabs) and Markdown."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

TABLE_FORMATS: tuple[str, ...] = ("csv", "tex", "md")

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
}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIALS.get(char, char) for char in text)


def _cell(value: object, digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        if value.is_integer() and abs(value) >= 1000:
            return f"{int(value)}"
        return f"{value:.{digits}f}"
    return str(value)


def to_latex(frame: pd.DataFrame, *, caption: str = "", label: str = "", digits: int = 2) -> str:
    """A booktabs table (needs `\\usepackage{booktabs}`); numbers right-aligned."""
    align = "".join("r" if pd.api.types.is_numeric_dtype(frame[c]) else "l" for c in frame.columns)
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(rf"\caption{{{latex_escape(caption)}}}")
    if label:
        lines.append(rf"\label{{{label}}}")
    lines += [rf"\begin{{tabular}}{{{align}}}", r"\toprule"]
    lines.append(" & ".join(latex_escape(str(c)) for c in frame.columns) + r" \\")
    lines.append(r"\midrule")
    for row in frame.itertuples(index=False):
        lines.append(" & ".join(latex_escape(_cell(v, digits)) for v in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def to_markdown(frame: pd.DataFrame, *, digits: int = 2) -> str:
    """A GitHub-flavoured Markdown table."""
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = (
        "|"
        + "|".join(
            "---:" if pd.api.types.is_numeric_dtype(frame[c]) else "---" for c in frame.columns
        )
        + "|"
    )
    body = [
        "| " + " | ".join(_cell(v, digits).replace("|", "\\|") for v in row) + " |"
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
) -> list[Path]:
    """Write `name.csv` (full precision), `name.tex` and `name.md` (rounded to `digits`)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for fmt in formats:
        path = out / f"{name}.{fmt}"
        if fmt == "csv":
            frame.to_csv(path, index=False)
        elif fmt == "tex":
            path.write_text(
                to_latex(frame, caption=caption, label=f"tab:{name}", digits=digits),
                encoding="utf-8",
            )
        elif fmt == "md":
            title = f"**{caption}**\n\n" if caption else ""
            path.write_text(title + to_markdown(frame, digits=digits), encoding="utf-8")
        else:
            raise ValueError(f"unknown table format {fmt!r}; use {', '.join(TABLE_FORMATS)}")
        written.append(path)
    return written
