"""What `analyze` (and `demo`) print in the terminal: the summary table of the authors (form
check, lexical features, judge scores) and a line per agreement with the experts; the files in
RUN/analysis/ hold the rest. pandas is imported only for type checking, so that a command that
imports this starts quickly (tests/test_cli_startup.py)."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.table import Table

from poemetric.cli.markup import plain, plain_cells
from poemetric.text.ordering import author_order
from poemetric.text.plural import counted

if TYPE_CHECKING:
    import pandas as pd

    from poemetric.analysis import AnalysisResult

#: Summary columns: group averages (per-dimension means are in RUN/analysis/dimension_scores.*).
PARTS = ("basic", "advanced", "quality", "appraisal")
PART_HEADERS = {"basic": "basic", "advanced": "adv.", "quality": "qual.", "appraisal": "appr."}


def _fmt(value: object, digits: int = 2) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def _with_ci(row: Mapping[Hashable, Any], key: str) -> str:
    """`0.175 [0.122, 0.225]`: the estimate of `key`, and its interval when it has one."""
    low, high = row[key + "_ci_low"], row[key + "_ci_high"]
    ci = "" if math.isnan(low) or math.isnan(high) else f" [{low:.3f}, {high:.3f}]"
    return _fmt(float(row[key]), 3) + ci


def summary_tables(result: AnalysisResult, width: int) -> list[Table]:
    """The summary as one table when it fits `width` columns; otherwise the form-check and
    lexical columns per author, then the judge scores, one table per judge (one wide table had
    its numbers cut to `0.9…` at 80 columns). None without a lexical table (no poem to
    measure): the summary's rows start from it."""
    from rich.console import Console
    from rich.measure import Measurement

    if "lexical" not in result.tables:
        return []
    whole = summary_table(result)
    if "dimension_scores" not in result.tables:
        return [whole]
    # A measurement is clipped to the width it is given. Its natural width, not its least: rich
    # measured a table whose headers could wrap ("form" / "pass") as fitting 80 columns, then
    # drew it with the score header cut to "sco…" (or the right border cut off).
    measuring = Console(emoji=False, width=10_000)
    if Measurement.get(measuring, measuring.options, whole).maximum <= width:
        return [whole]
    judges = sorted(result.tables["dimension_scores"]["judge"].unique())
    return [
        summary_table(result, scores=False),
        *(summary_table(result, lexical=False, judge=str(judge)) for judge in judges),
    ]


def summary_table(
    result: AnalysisResult, *, lexical: bool = True, scores: bool = True, judge: str | None = None
) -> Table:
    """Authors x (form check, lexical, judge dimensions, POEMetric score); `lexical=False` or
    `scores=False` leaves out the first group of columns or the judges'; `judge` keeps one."""
    title = "POEMetric summary (means; judge scores 1-5; score = POEMetric ranking score)"
    if not scores or "dimension_scores" not in result.tables:  # no judge columns
        title = "POEMetric summary (means)"
    elif not lexical:
        who = f"{plain(result.labels.judge(judge))}: " if judge is not None else ""
        title = f"Judge scores, {who}means (1-5; score = POEMetric ranking score)"
    table = Table(title=title, header_style="bold")
    frames: dict[str, pd.DataFrame] = {}
    if "form_checks" in result.tables:
        frames["form"] = result.tables["form_checks"].set_index("author")
    features = result.tables["lexical"].set_index("author")
    dimensions = result.tables.get("dimension_scores")
    groups = result.tables.get("group_scores")
    judges = sorted(dimensions["judge"].unique()) if dimensions is not None and scores else []
    judges = [j for j in judges if judge is None or j == judge]
    authors = summary_authors(result, judges)
    # Never wrapped, so its least width is the longest name: rich's measured minimum let it wrap
    # ("Markov" / "baseline"), kept one table that did not fit, and cut a header to "sco…".
    names = [plain(result.labels.author(a)) for a in authors]
    table.add_column("author", no_wrap=True, min_width=max(map(cell_len, ["author", *names])))
    if judges and len(judges) > 1:
        table.add_column("judge")
    if lexical:
        table.add_column("poems", justify="right")
        if "form" in frames:
            table.add_column("form pass", justify="right")
        table.add_column("MATTR", justify="right")
        table.add_column("rep.", justify="right")
    for part in PARTS if judges else ():
        table.add_column(PART_HEADERS[part], justify="right")
    if judges:
        table.add_column("score", justify="right", style="bold")
    for author in authors:
        base = [result.labels.author(author)]
        style = "bold dark_orange" if author == "human" else None
        for current in judges or [None]:
            row = [*base]
            if len(judges) > 1:
                row.append(result.labels.judge(str(current)))
            if lexical:
                # An author none of whose answers is a poem (it refused every prompt) has no
                # lexical row: 0 poems, its failed form checks still shown.
                measured = author in features.index
                row.append(_fmt(features.at[author, "n"]) if measured else "0")
                if "form" in frames:
                    form = frames["form"]
                    row.append(_fmt(form.at[author, "pass_rate"]) if author in form.index else "–")
                row.append(_fmt(features.at[author, "mattr_mean"], 3) if measured else "–")
                row.append(_fmt(features.at[author, "repetition_all_mean"]) if measured else "–")
            if current is not None and groups is not None:
                mine = groups[(groups["judge"] == current) & (groups["author"] == author)]
                means = dict(zip(mine["part"], mine["mean"], strict=True))
                row += [_fmt(means.get(part, math.nan)) for part in (*PARTS, "poemetric")]
            table.add_row(*plain_cells(*row), style=style)  # a display name `GPT-4o [2024]`
    return table


def summary_authors(result: AnalysisResult, judges: list[str]) -> list[str]:
    """The summary's rows: every author of the lexical, form-check and (for `judges`) judge
    tables, in the standard order. The lexical table's alone left out an author none of whose
    answers is a poem (a model that refused every prompt), whose form checks all failed."""
    names = set(result.tables["lexical"]["author"])
    if "form_checks" in result.tables:
        names |= set(result.tables["form_checks"]["author"])
    groups = result.tables.get("group_scores")
    if groups is not None:
        names |= set(groups.loc[groups["judge"].isin(judges), "author"])
    return author_order([str(name) for name in names])


def agreement_lines(result: AnalysisResult, n_boot: int) -> list[str]:
    """A line per judge vs the experts, then the experts among themselves, over all items:
    `judge x vs experts (all items, 40 poems, 120 paired ratings): PAo 0.412 [0.350, 0.470], ...`,
    the judge named as the tables name it. Text, not markup: "[0.12, 0.23]" read as a tag
    vanished."""
    lines = []
    for name, who in (
        ("agreement", "judge {judge} vs experts"),
        ("agreement_experts", "experts"),
    ):
        if name not in result.tables:
            continue
        table = result.tables[name]
        for row in table[table["item"] == "all"].to_dict("records"):
            lines.append(
                who.format(judge=result.labels.judge(str(row.get("judge"))))
                + f" (all items, {counted(int(row['n_poems']), 'poem')}, "
                + f"{counted(int(row['n_pairs']), 'paired rating')}): "
                + ", ".join(
                    f"{label} {_with_ci(row, key)}"
                    for key, label in (
                        ("pao", "PAo"),
                        ("qwk", "QWK"),
                        ("alpha_interval", "alpha interval"),
                    )
                )
                + (" (no CIs: --bootstrap 0)" if n_boot == 0 else "")
            )
    return lines
