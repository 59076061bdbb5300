"""CLI command: `report` (an HTML page with a poem browser: one self-contained file, or the page
and its folder of poems for a large run)."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.analyze_cmd import ExcludeFailedChecksOption, SurveySelectOption
from poemetric.cli.app import app
from poemetric.cli.markup import plain
from poemetric.cli.options import (
    BootstrapOption,
    JudgeOption,
    RunOption,
    SeedOption,
    as_typed,
    error_exit,
    existing_run,
    experts_option,
    unknown_choice,
)
from poemetric.cli.output_paths import output_file, output_option, writable_run
from poemetric.cli.survey_select import known_survey, one_expert_source

if TYPE_CHECKING:
    from poemetric.store import RunStore

console = Console(emoji=False)
REPORT_EXPERTS = experts_option("adds their scores and agreement with each judge.")


class ReportLayout(StrEnum):
    """`--layout` (poemetric.report.parts.Layout, not imported until the command runs)."""

    auto = "auto"
    file = "file"
    folder = "folder"


LayoutOption = typer.Option(
    ReportLayout.auto.value,
    "--layout",
    metavar="<auto|file|folder>",
    help="file: one self-contained HTML file; folder: a small page (index.html) and its poems in "
    "a folder beside it (index_files/), read as they are shown: quick to open at any size; "
    "auto: one file up to 10 MB of poem data (some 6,000 judged poems), else a folder.",
)


#: The names `--out` takes: the report is HTML whatever the name says.
HTML_SUFFIXES = (".html", ".htm")


def html_name(out: Path) -> None:
    """Refuse (exit 2) an `--out` not named .html or .htm: `--out r.pdf` wrote the HTML page into
    a file named .pdf without a word, which a PDF viewer then could not open."""
    if out.suffix.lower() in HTML_SUFFIXES:
        return
    what = f", not a {out.suffix} file" if out.suffix else ""
    raise error_exit(
        f"{as_typed('--out')} {out}: the report is an HTML page{what}; give a name ending in .html or .htm, "
        f"e.g. {out.with_name(f'{out.stem}.html')}"
    )


def _layout(name: str) -> ReportLayout:
    """`--layout` NAME, or the one-line error of every unknown choice: as an Enum option Typer
    answered "Invalid value for '--layout': Value error, 'fil' is not one of ..." in its box."""
    try:
        return ReportLayout(name)
    except ValueError:
        raise unknown_choice("--layout", name, [item.value for item in ReportLayout]) from None


@app.command()
def report(
    run: Path = RunOption,
    judge: str | None = JudgeOption,
    experts: Path | None = REPORT_EXPERTS,
    n_boot: int = BootstrapOption,
    seed: int = SeedOption,
    survey: str | None = SurveySelectOption,
    exclude_failed_checks: bool = ExcludeFailedChecksOption,
    out: Path | None = output_option(
        None,
        "--out",
        "Output file, named .html or .htm (default RUN/report/index.html); a folder report's "
        "poems go beside it, in NAME_files/.",
        file_name="index.html",
    ),
    layout_name: str = LayoutOption,
) -> None:
    """The run report: an HTML page (no network requests; charts as inline SVG) with the
    leaderboard and its CIs, per-dimension charts, the form checks, lexical features, the
    judges, ghostwriting measures, agreement with experts, minimal-pair probes (each when the
    run has it), run metadata and a poem browser (every author's poem beside the human original,
    with its form-check explanation and each judge's scores and comments). Open it in any
    browser from disk, or put it on a static site. A run of up to some 6,000 poems gives one
    self-contained file (send it by mail); a larger one gives the page and a folder of poems
    beside it, which opens quickly however many poems there are: keep the two together (zip
    the report folder to send it); --layout chooses. Its agreement CIs equal `analyze`'s for
    the same --bootstrap and --seed (their defaults are the same too).

    Examples:

        poemetric report --run runs/demo

        poemetric report --run runs/paper --experts ratings.csv --bootstrap 2000

        poemetric report --run runs/paper --judge gemini-2.5-pro --out report.html

        poemetric report --run runs/paper --survey experts --exclude-failed-checks

        poemetric report --run runs/paper --layout file --out paper-report.html
    """
    layout = _layout(layout_name)
    one_expert_source(experts, survey)
    from poemetric.analysis.experts import ExpertRatingsError
    from poemetric.report import build_report
    from poemetric.report.parts import parts_folder

    if out is not None:
        output_file(out)
        html_name(out)
    else:
        writable_run(run, "--out")
    from poemetric.cli.interrupt import file_interrupted
    from poemetric.report.build import report_path

    with (
        file_interrupted(report_path(run, out), "the report is built"),
        existing_run(run) as store,
        store.snapshot(),  # one moment of the run, however busy its writers
        console.status("building the report"),
    ):
        known_survey(store, survey)
        try:
            path = build_report(
                store,
                out,
                judge=judge,
                experts=experts,
                n_boot=n_boot,
                seed=seed,
                survey=survey,
                exclude_failed_checks=exclude_failed_checks,
                layout=layout.value,
            )
        except (ExpertRatingsError, ValueError) as exc:
            raise error_exit(exc) from exc
        missing = _missing_stages(store, run)
    size = path.stat().st_size / 1e6
    folder = parts_folder(path)
    if not folder.is_dir():
        line = f"wrote {path} ({size:.1f} MB); open it in a browser"
    else:
        files = list(folder.iterdir())
        poems = sum(f.stat().st_size for f in files) / 1e6
        line = (
            f"wrote {path} ({size:.1f} MB) and its poems in {folder}{os.sep} ({len(files)} "
            f"file{'' if len(files) == 1 else 's'}, {poems:.1f} MB); open {path.name} in a browser, and keep {folder.name} "
            "beside it (to send the report, zip the folder that holds both)"
        )
    console.print(line, highlight=False, markup=False)
    for note in missing:
        console.print(f"[yellow]note:[/yellow] {plain(note)}")


def _missing_stages(store: RunStore, run: Path) -> list[str]:
    """The stages whose sections the report left empty, each with the command that fills them:
    a report made right after `generate` was a page without form checks or judge scores, and
    the terminal said only where it was (analyze and figures name the missing stage)."""
    from poemetric.hints import stage_command

    notes = []
    if not store.count("form_checks"):
        notes.append(
            "no form checks: the report has no form-check results "
            f"(run `{stage_command('form', run)}`, then this command again)"
        )
    if not store.count("judgments", "status = 'ok'"):
        notes.append(
            "no successful judgments: the report has no judge scores "
            f"(run `{stage_command('judge', run)}`, then this command again)"
        )
    return notes
