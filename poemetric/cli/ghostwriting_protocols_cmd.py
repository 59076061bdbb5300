"""`poemetric ghostwriting style-match | sheets | import-lines`: the two protocols of the
ghostwriting evaluation that need judges or annotators."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.beside_generate import generate_watched, say_generate_was_at_work
from poemetric.cli.ghostwriting_cmd import frame_table, ghostwriting_app
from poemetric.cli.interrupt import STOPPING_HELP, interruptible
from poemetric.cli.judging import (
    RefreshFailedParsesOption,
    check_authors,
    judge_spec,
    open_judged_run,
    split_names,
)
from poemetric.cli.options import ProgressOption, RunOption, error_exit, existing_run
from poemetric.cli.output_paths import output_folder, output_option
from poemetric.cli.paid_stage import (
    BatchOption,
    BatchRequestsOption,
    ConcurrencyOption,
    DryRunOption,
    MaxCostOption,
    ShardOption,
    refuse_when_none_can_start,
    runner_options,
    stage_header,
)
from poemetric.cli.run_limit import StageLimitOption
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.store import RunStore

# Paths and file:line messages are never hard-wrapped.
console = Console(emoji=False, soft_wrap=True)

AuthorsOption = typer.Option(
    None, "--authors", help="Only these authors' poems (comma-separated, e.g. human,gpt-4o)."
)


@ghostwriting_app.command(
    "style-match",
    epilog=(
        "Examples:\n\n"
        "  poemetric ghostwriting style-match --run runs/demo --judge gpt-4o --dry-run\n\n"
        "  poemetric ghostwriting style-match --run runs/paper --judge gpt-4o --batch\n\n"
        "  poemetric ghostwriting style-match --run runs/demo --judge gpt-4o --trials 8\n\n"
        "Each poem gets --trials trials; over each four the correct candidate stands once at "
        "A, B, C and D. Unparsable answers are stored as errors and re-parsed from the cache "
        "by the next run; --refresh-failed-parses pays for new answers.\n\n" + STOPPING_HELP
    ),
)
def style_match_command(
    run: Path = RunOption,
    judge_name: str = typer.Option(
        ...,
        "--judge",
        "-j",
        help="One judge from judges/ (e.g. 'gemini-2.5-pro'), not a group: run it once per judge.",
    ),
    authors: str | None = AuthorsOption,
    trials: int = typer.Option(
        4, "--trials", min=1, help="Trials per poem (4 = each letter once)."
    ),
    samples: int = typer.Option(1, "--samples", min=1, help="Answers per trial."),
    seed: int = typer.Option(0, "--seed", help="Seed of the candidate draw."),
    limit: int | None = StageLimitOption,
    dry_run: bool = DryRunOption,
    max_cost: float | None = MaxCostOption,
    shard: str | None = ShardOption,
    batch: bool = BatchOption,
    batch_requests: int | None = BatchRequestsOption,
    concurrency: int | None = ConcurrencyOption,
    refresh_failed_parses: bool = RefreshFailedParsesOption,
    progress: bool = ProgressOption,
) -> None:
    """Style matching by an LLM judge: for each poem, which of four human poems is by the poet
    it belongs to? Prints accuracy per author (Wilson CI); `poemetric analyze` writes it to
    RUN/analysis/style_matching.csv."""
    from poemetric.ghostwriting.style_scores import load_style_matches, style_accuracy
    from poemetric.style.stage import run_style_matching

    spec = judge_spec(judge_name, "ghostwriting style-match")
    options = runner_options(
        models=[spec],
        limit=limit,
        dry_run=dry_run,
        max_cost=max_cost,
        shard=shard,
        batch=batch,
        batch_requests=batch_requests,
        concurrency=concurrency,
        refresh_failed_parses=refresh_failed_parses,
        progress=progress,
    )
    author_list = split_names(authors)
    with (
        open_judged_run(run, author_list) as store,
        interruptible(run),
        generate_watched(store) as generating,
    ):
        if not dry_run:  # a plan prices the judge before its key is set
            refuse_when_none_can_start([spec])
        poems = _poems_matched(store, author_list)
        dataset = (store.get_meta("dataset") or {}).get("name")
        stage_header(run, dataset, min(poems, limit or poems), 1, samples, "judge", trials)
        report = run_style_matching(
            store,
            spec,
            options=options,
            authors=author_list,
            samples=samples,
            trials_per_poem=trials,
            seed=seed,
            console=console,
        )
        matches = load_style_matches(store)
    report.render(console)
    say_generate_was_at_work(generating, "judged", console)
    mine = matches[matches["judge"] == judge_name]
    if not mine.empty and not dry_run:
        columns = {"author": "author", "trials": "trials", "accuracy": "accuracy",
                   "ci_low": "CI low", "ci_high": "CI high", "unparsed": "unparsed"}  # fmt: skip
        console.print(frame_table(style_accuracy(mine), f"Style matching by {judge_name}", columns))
        console.print(  # the answers are stored; the tables are written by analyze, as for judge
            f"tables: `poemetric analyze --run {shlex.quote(str(run))}` writes "
            f"style_matching.csv and style_matching_positions.csv to {run / 'analysis'}",
            highlight=False,
            markup=False,
        )
    if report.incomplete and not dry_run:
        raise typer.Exit(code=1)


def _poems_matched(store: RunStore, authors: list[str] | None) -> int:
    """The dataset poems whose generations (of `authors`) get style-matching trials, before
    --limit (`poemetric.style.stage.style_trials`)."""
    among = f" AND author IN ({', '.join('?' * len(authors))})" if authors else ""
    ((poems,),) = store.query(
        "SELECT COUNT(DISTINCT poem_id) FROM generations WHERE status = 'ok' "
        f"AND poem IS NOT NULL{among}",
        tuple(authors or ()),
    )
    return int(poems)


@ghostwriting_app.command("sheets")
def sheets_command(
    run: Path = RunOption,
    out: Path = output_option(
        ..., "--out", "Folder for sheet.html, annotations.csv, task.json.", folder=True
    ),
    authors: str | None = AuthorsOption,
    per_author: int = typer.Option(5, "--per-author", min=1, help="Poems drawn per author."),
    seed: int = typer.Option(0, "--seed", help="Seed of the draw and of the poem order."),
) -> None:
    """Printable line-level fluency/coherence sheets (one poem per page, authors hidden) and the
    CSV template annotators fill in; import it with `poemetric ghostwriting import-lines`.

    Examples:

        poemetric ghostwriting sheets --run runs/demo --out sheets/

        poemetric ghostwriting sheets --run runs/paper --out sheets/ --per-author 10
    """
    from poemetric.annotation.sheets import FilledTemplateError, write_line_sheets
    from poemetric.annotation.task import build_line_task
    from poemetric.survey.tokens import load_secret

    output_folder(out)
    with existing_run(run) as store:
        check_authors(store, run, split_names(authors))  # a name left out silently
        task = build_line_task(
            store, authors=split_names(authors), per_author=per_author, seed=seed
        )
        run_dir = store.run_dir
    if not task.items:
        raise error_exit(f"no poems to annotate in {run} (authors: {authors or 'all'})")
    try:
        paths = write_line_sheets(task, out, load_secret(run_dir))
    except FilledTemplateError as error:
        raise error_exit(error) from error
    lines = sum(len(item.lines) for item in task.items)
    console.print(
        f"sheet {task.sheet_id}: {counted(len(task.items), 'poem')}, {counted(lines, 'line')}"
    )
    for path in paths:
        console.print(f"  {path}", highlight=False, markup=False)
    console.print(
        f"Print {paths[0].name} (or fill {paths[1].name} directly), then: "
        f"poemetric ghostwriting import-lines --run {shlex.quote(str(run))} FILE.csv",
        highlight=False,
        markup=False,
    )


@ghostwriting_app.command("import-lines")
def import_lines_command(
    files: list[Path] = typer.Argument(
        ..., help="Filled annotations.csv files (one per annotator or merged)."
    ),
    run: Path = RunOption,
) -> None:
    """Import filled line-annotation CSVs into the run store; every bad row is reported as
    file:line and nothing is imported from files with errors. Prints per-author scores.

    Examples:

        poemetric ghostwriting import-lines --run runs/demo sheets/ann1.csv

        poemetric ghostwriting import-lines --run runs/paper ann1.csv ann2.csv
    """
    from poemetric.annotation.importer import LineImportError, import_line_annotations
    from poemetric.ghostwriting.fluency import fluency_scores, load_line_annotations

    with existing_run(run) as store:
        try:
            report = import_line_annotations(store, files)
        except LineImportError as error:
            raise error_exit(f"nothing imported: {error}") from error
        scores = fluency_scores(load_line_annotations(store))
    for note in report.notes:  # a sheet read as Windows-1252 (Excel's "CSV" on Windows)
        typer.echo(f"warning: {note}", err=True)
    console.print(
        f"imported {counted(report.rows, 'line grade')} ({counted(len(report.poems), 'poem')}, annotators: "
        f"{', '.join(sorted(report.annotators))}); {report.skipped_blank} blank rows skipped",
        markup=False,  # annotators are named in the files: `[` in a name is text
    )
    columns = {"author": "author", "poems": "poems", "annotations": "grades",
               "fluency": "fluency", "coherence": "coherence",
               "fluency_agreement": "fluency agr.", "coherence_agreement": "coherence agr."}  # fmt: skip
    console.print(frame_table(scores, "Line-level fluency and coherence (1 / 0.5 / 0)", columns))
