"""`poemetric agree`: inter-rater agreement of any long-format ratings file."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.markup import plain
from poemetric.cli.options import error_exit, existing_file, file_warnings, unknown_choice
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.reliability import AgreementReport

console = Console(emoji=False)

LABELS = {
    "pao": "PAo (exact)",
    "adjacent": "adjacent (±1 step)",
    "alpha_nominal": "Krippendorff α nominal",
    "alpha_ordinal": "Krippendorff α ordinal",
    "alpha_interval": "Krippendorff α interval",
    "gwet_ac1": "Gwet AC1",
    "gwet_ac2_linear": "Gwet AC2 linear",
    "gwet_ac2_quadratic": "Gwet AC2 quadratic",
    "qwk": "QWK (pairwise mean)",
    "spearman": "Spearman ρ (pairwise mean)",
    "kendall": "Kendall τb (pairwise mean)",
}

EPILOG = """\
Examples:

  poemetric agree ratings.csv

  poemetric agree ratings.csv --format json --bootstrap 2000 > agreement.json

  poemetric agree krippendorff-2011 --na none

  poemetric agree runs/paper/export/survey_answers.csv

  poemetric agree judge_and_experts.csv --focus gemini-2.5-pro --scale 1-5

The file has one row per rating: unit (or poem, as in the sheets of poemetric survey sheets),
rater, item (optional), score; other columns are ignored. The file of poemetric export
survey_answers is read as it is (attention checks left out). A blank score is "not rated"; N/A (the --na value, or the words n/a, na) is a category
for PAo and adjacent agreement and missing for every other statistic. krippendorff-2011 (where
no file of that name is here) is the worked example of Krippendorff (2011), shipped with
POEMetric. Definitions: docs/agreement.md."""


def _ratings_file(path: Path) -> Path:
    """`path` to read; where no such file exists, the bundled example it names (`krippendorff-
    2011`): `poemetric agree docs/examples/krippendorff-2011.csv` worked only in a checkout."""
    from poemetric.reliability.io import bundled_example

    if not path.exists() and (example := bundled_example(str(path))) is not None:
        return example
    return existing_file(path, "ratings file")


def _default(ctx: typer.Context, name: str) -> bool:
    """Whether option `name` was left at its default (not given on the command line)."""
    source = ctx.get_parameter_source(name)
    return source is None or source.name == "DEFAULT"


def _number(value: float, digits: int = 3) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def scale_gap_note(seen: list[float]) -> str | None:
    """Without --scale the scale is the scores seen: whole-number scores with a point between
    them that nobody gave (1, 3, 4, 5) make 1 and 3 one step apart and leave Gwet's AC a category
    short, silently. Said so, with the --scale to give; None where the scores leave no gap."""
    if len(seen) < 2 or not all(float(v).is_integer() for v in seen):
        return None
    low, high = int(min(seen)), int(max(seen))
    missing = sorted(set(range(low, high + 1)) - {int(v) for v in seen})
    if not missing:
        return None
    shown = ", ".join(f"{v:g}" for v in seen)
    unused = ", ".join(map(str, missing))
    return (
        f"the scale is the scores seen, {shown}: {unused} never given, so adjacent agreement "
        f"takes the scores either side of a gap as one step apart and Gwet's AC counts "
        f"{len(seen)} categories; give --scale {low}-{high} if the scale has every point between"
    )


def percent(confidence: float) -> str:
    """A confidence level as the header names it: 95%, 97.5%, 99.9% (`:.0%` rounded 0.999 to
    "100%" and 0.975 to "98%")."""
    return f"{round(confidence * 100, 6):g}%"


def report_tables(
    report: AgreementReport, title: str, width: int, focus: str | None = None
) -> tuple[list[Table], str]:
    """Statistics as rows: pooled estimate with its CI, then each item's estimate. Items that do
    not fit in `width` beside the others go to further tables (each repeating the statistic
    column), so that every estimate is printed whole: rich would cut them to `0.…`. Returns the
    tables and their caption (counts, scale, focus, CIs), printed under the last one."""
    from poemetric.reliability import STATISTICS

    items = list(report.items) if len(report.items) > 1 else []
    confidence = report.settings["confidence"]
    overall = report.overall
    first = ["statistic", f"overall [{percent(confidence)} CI]"]
    columns: list[list[str]] = [[LABELS[name] for name in STATISTICS], []]
    for name in STATISTICS:
        low, high = overall.ci_low.get(name, math.nan), overall.ci_high.get(name, math.nan)
        ci = "" if math.isnan(low) else f" [{_number(low)}, {_number(high)}]"
        columns[1].append(_number(overall.estimates[name]) + ci)
    for item in items:
        columns.append([_number(report.items[item].estimates[name]) for name in STATISTICS])
    headers = first + [plain(item) for item in items]  # the file's item names
    widths = [max(len(h), *map(len, cells)) for h, cells in zip(headers, columns, strict=True)]
    # Each table: its first column, then as many as fit ("│ " before each cell, " │" at the end).
    groups: list[list[int]] = [[0, 1]]
    for index in range(2, len(headers)):
        used = sum(widths[i] + 3 for i in groups[-1]) + 1
        if used + widths[index] + 3 > width and len(groups[-1]) > 1:
            groups.append([0])
        groups[-1].append(index)
    tables = []
    for number, group in enumerate(groups):
        table = Table(title=title if number == 0 else None, header_style="bold")
        for index in group:
            table.add_column(
                headers[index], justify="right" if index > 1 else "left", no_wrap=index < 2
            )
        for row in range(len(STATISTICS)):
            table.add_row(*(columns[index][row] for index in group))
        tables.append(table)
    counts = overall.counts
    n_boot = report.settings["bootstrap"]
    scale = ", ".join(f"{v:g}" for v in report.settings["scale"])
    caption = (
        f"{counted(counts['n_units'], 'unit')}, {counted(counts['n_raters'], 'rater')}, "
        f"{counted(counts['n_ratings'], 'rating')} ({counts['n_na']} N/A), "
        f"{counted(counts['n_pairs'], 'paired rating')}; "
        + (f"scale {scale}. " if scale else "no score on a scale (every rating N/A). ")
        + (f"Pairwise statistics: {plain(focus)} against each other rater. " if focus else "")
        + (
            f"CIs: percentile bootstrap over units, {n_boot} resamples, seed "
            f"{report.settings['seed']}; per-item CIs: --format "
            "json or csv."
            if n_boot
            else "No CIs (--bootstrap 0)."
        )
    )
    return tables, caption


@app.command("agree", epilog=EPILOG)
def agree(
    ctx: typer.Context,
    ratings_file: Path = typer.Argument(
        ...,
        callback=_ratings_file,
        help="Ratings: CSV/TSV/JSONL/Parquet in long format, or krippendorff-2011 (bundled).",
    ),
    fmt: str = typer.Option("table", "--format", "-f", help="table, json or csv."),
    n_boot: int = typer.Option(
        1000, "--bootstrap", "-b", min=0, help="Bootstrap resamples of units for the CIs (0: none)."
    ),
    seed: int = typer.Option(0, "--seed", help="Random seed of the bootstrap."),
    confidence: float = typer.Option(
        0.95, "--confidence", min=0.5, max=0.999, help="Confidence level of the CIs."
    ),
    na: str = typer.Option(
        "0", "--na", help="Score that means N/A (POEMetric: 0); 'none' if every number is a score."
    ),
    scale: str | None = typer.Option(
        None,
        "--scale",
        help="The rating scale, e.g. 1-5 or 0,0.5,1 (default: the scores seen); a scale holding "
        "the --na value (0 by default) is refused: give --na none.",
    ),
    focus: str | None = typer.Option(
        None,
        "--focus",
        help="Pairwise statistics only between this rater and each other one (e.g. a judge).",
    ),
) -> None:
    """Inter-rater agreement per item and pooled over items, with bootstrap CIs over units:
    PAo, adjacent agreement, Krippendorff's α (nominal, ordinal, interval), Gwet's AC1 and AC2
    (linear, quadratic), quadratic-weighted kappa, Spearman and Kendall."""
    from poemetric.reliability import agreement_report, parse_scale
    from poemetric.reliability.io import RatingsFileError, na_reading_note, read_ratings

    if fmt not in ("table", "json", "csv"):
        raise unknown_choice("--format", fmt, ["table", "json", "csv"])
    try:
        na_value = None if na.strip().lower() == "none" else float(na)
    except ValueError as exc:
        raise error_exit(f"--na {na!r}: use a number or 'none'") from exc
    try:
        scale_values = parse_scale(scale) if scale is not None else None
    except ValueError as exc:
        raise error_exit(f"--scale: {exc}") from exc
    read_as: list[str] = []  # a Windows-1252 or `;`-separated file: said also when refused
    na_read: dict[str, int] = {}
    try:
        try:
            ratings = read_ratings(
                ratings_file,
                na_value=na_value,
                scale=scale_values,
                warnings=read_as,
                na_read=na_read,
            )
        finally:
            file_warnings(read_as)
        # The default --na 0, no --scale: a 0 that may be a score (a 0-4 scale) is said so.
        if na_value is not None and scale is None and _default(ctx, "na"):
            note = na_reading_note(na_read, na_value)
            file_warnings([f"{ratings_file}: {note}"] if note else [])
        if scale is None and (gap := scale_gap_note(ratings.scale.tolist())):
            file_warnings([f"{ratings_file}: {gap}"])
        report = agreement_report(
            ratings, focus=focus, n_boot=n_boot, seed=seed, confidence=confidence
        )
    except RatingsFileError as exc:
        raise error_exit(exc) from exc
    except ValueError as exc:
        raise error_exit(f"{ratings_file}: {exc}") from exc
    report.settings["na_value"] = na_value
    if fmt == "json":
        sys.stdout.write(json.dumps(report.as_dict(), indent=2) + "\n")
    elif fmt == "csv":
        import pandas as pd

        pd.DataFrame(report.rows()).to_csv(sys.stdout, index=False)
    else:
        tables, caption = report_tables(
            report, f"Agreement: {plain(ratings_file.name)}", console.width, focus
        )
        for table in tables:
            console.print(table)
        console.print(caption, highlight=False, markup=False)
