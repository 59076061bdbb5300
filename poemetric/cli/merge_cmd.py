"""CLI commands: `poemetric merge`, combining run stores (e.g. the shards of one run)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.markup import plain
from poemetric.cli.merge_gaps import gap_label, gap_line, listed_stores
from poemetric.cli.options import error_exit
from poemetric.cli.output_paths import output_folder, output_option
from poemetric.hints import stage_command
from poemetric.runner.table_fit import column_groups, fitting_columns
from poemetric.store.connect import StoreWriteError
from poemetric.store.db import StoreError
from poemetric.store.merge import MergeReport
from poemetric.store.merge_checks import MixedModel
from poemetric.store.merge_started import StartedOnly
from poemetric.store.merge_surveys import SURVEY_TABLES, SurveyConflict
from poemetric.store.merge_tables import MERGED_TABLES
from poemetric.store.shards import MissingShards
from poemetric.survey.tokens import SECRET_FILE
from poemetric.text.plural import counted, plural

_COLUMNS = (
    ("copied", "new"),
    ("identical", "same"),
    ("replaced_error", "ok>error"),
    ("kept_ok", "kept ok"),
    ("kept_error", "both err"),
    ("updated", "updated"),
    ("conflicts", "conflicts"),
    ("skipped", "skipped"),
)
_SHOWN_CONFLICTS = 20


@app.command()
def merge(
    sources: list[Path] = typer.Argument(
        ..., help="Run directories to merge (e.g. runs/x-shard1 runs/x-shard2 ...)."
    ),
    into: Path = output_option(
        ...,
        "--into",
        "Destination run directory (created if new; may be one of the sources).",
        folder=True,
    ),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Exit with status 1 when any conflict was found, a judge's gap in a store "
        "older than selection records (whether it was asked for those poems is unknown), or "
        "form checks made by different checker versions or thresholds.",
    ),
) -> None:
    """Merge run stores, e.g. the shards of a run made with `generate --shard K/N`.

    Rows missing from the destination are copied and identical rows are kept once (so is one answer
    bought in two stores: alike but for the provider's response ids); a successful result replaces a
    failed one; two different successful results for the same prompt, author and sample are reported
    as conflicts and the destination's is kept. When the stores hold shards of `--shard K/N` and
    some shard of a stage is in none of them for some model (e.g. an array task run with other
    `--models`), or a model of a stage run without `--shard` is not through in any of them (stopped
    partway, or still at work in a store), the merge is still written, what is missing is named with
    its stage, model and stores, and the exit status is 1; so too when a model name ran with another
    model id, settings, provider or engine options (options:, vllm:, structured:) or judge template
    in another store (mixed). A model that stored nothing in any store (a judge tried without its
    key) is named as not run, with what to do: the merged run holds none of it and is complete. A
    judge (or recognise, style-match, the form check) that covers only part of the merged run's
    poems it was asked for (its --authors, --limit and, for judge, --samples), e.g. one run on a
    single generation shard, is named with the command that covers the rest, and the exit status is
    1; in a store written before the poems asked for were recorded, whether it was asked for them is
    unknown: it is named as such, and the exit status is 1 only with `--strict`. A probe chat scorer
    (`probe run --scorer chat:`) that lacks pairs it was asked to score is named so too, with its
    `probe run` command (exit 1); one run on other pairs than the run's other scorers is named as
    `other pairs` (exit 1 only with `--strict`). Of two form checks of one poem made by different
    checker versions, the one `form run` would make now is kept: with the user lexicon that
    $POEMETRIC_LEXICON names, or with none when it is unset (merge has no `--lexicon`: set the
    variable to keep the checks made with that file); checks made with two other lexicons are
    conflicts; checks of different poems made by different checker versions or thresholds are all
    kept and named as mixed (exit status 1 only with `--strict`): `form run` on the merged run
    re-checks them alike. Stores prepared from other datasets or generation templates are refused.
    Surveys are merged too: a survey left out (built otherwise under the same name in two stores) or
    a rater's answers that differ in two stores are named with what to do, and the exit status is 1.

    Examples:

        poemetric merge runs/part0 runs/part1 runs/part2 --into runs/paper
    """
    console = Console(emoji=False, highlight=False, soft_wrap=True)
    output_folder(into, "--into")
    # The survey's rule of a complete page and the stages' of what they cover, when merging.
    from poemetric.merging import merge_stores

    try:
        report = merge_stores(sources, into)
    except StoreWriteError as error:  # a write lock held past the timeout: as every command says it
        raise error_exit(error, code=1) from error
    except StoreError as error:
        raise error_exit(error) from error
    _print_report(console, report)
    for missing in report.missing_shards:
        console.print(f"[yellow]incomplete: {_missing_line(missing, into)}[/yellow]")
    unknown = [gap for gap in report.uncovered if gap.selection_unknown]
    for gap in report.uncovered:  # a stage that covers part of the merged run's poems
        console.print(f"[yellow]{gap_label(gap)}: {plain(gap_line(gap, into))}[/yellow]")
    for started in report.started_only:  # nothing of it is merged: not incomplete
        console.print(f"not run: {_started_line(started, into)}", markup=False)
    for mixed in report.mixed_models:
        console.print(f"[yellow]mixed: {_mixed_line(mixed, into)}[/yellow]")
    if report.form_rules:
        rules = "; ".join(rule.describe() for rule in report.form_rules)
        console.print(
            f"[yellow]mixed: the form checks of {plain(into)} were made by different rules "
            f"({plain(rules)}), and its form tables and figures would compare poems by both; run "
            f"`{plain(stage_command('form', into))}` to re-check them alike[/yellow]"
        )
    for conflict in report.survey_conflicts:
        console.print(f"[yellow]survey: {_survey_line(conflict, into)}[/yellow]")
    for survey, folder in report.relinked:
        console.print(
            plain(
                f"survey {survey}: the rater links made in {folder} do not open {into} (its "
                f"{SECRET_FILE} is another); send the raters new links: poemetric survey links "
                f"--run {into} --survey {survey}"
            )
        )
    uncovered = len(report.uncovered) > len(unknown)
    failed = report.missing_shards or uncovered or report.mixed_models or report.survey_conflicts
    # Mixed form rules: `form run`, free and the usual next step, makes them one.
    if failed or ((report.conflicts or unknown or report.form_rules) and strict):
        raise typer.Exit(1)


def _survey_line(conflict: SurveyConflict, into: Path) -> str:
    """Markup: a survey of a source not merged whole, and what to do about it."""
    survey, source = conflict.survey_id, conflict.source
    if conflict.whole and conflict.poems:
        return plain(
            f"{survey} of {source} was left out: {conflict.reason}, and its answers rate the "
            f"poems of {source}. To keep them, merge {source} first, in the other order, into a "
            "new --into folder (its poems and survey are kept there, and the other versions "
            "named as conflicts)"
        )
    if conflict.whole:
        return plain(
            f"{survey} of {source} was left out: {conflict.reason}; {into} keeps its own survey "
            f"{survey}. To keep the answers of {source}'s, export them (poemetric export "
            f"survey_answers --run {source} --to DIR), keep the rows of survey_id {survey}, and "
            f"import them under another name (poemetric survey import DIR/survey_answers.csv "
            f"--run {into} --survey NEW-NAME --new)"
        )
    return plain(
        f"{survey}: {counted(conflict.answers, 'answer')} of {source} "
        f"{plural(conflict.answers, 'differs', 'differ')} from those "
        f"{into} holds, which were kept ({conflict.reason}). To keep {source}'s instead, merge "
        "in the other order into a new --into folder, or import the rater's sheet again "
        f"(poemetric survey import FILE --run {into} --survey {survey}: it replaces answers)"
    )


def _mixed_line(mixed: MixedModel, into: Path) -> str:
    """Markup: which configurations a model's results in `into` come from, and what to do."""
    ran = "; ".join(f"{what} in {store}" for store, what in mixed.versions)
    return plain(
        f"{mixed.stage} of model {mixed.model} ran in other configurations under one name ({ran}), "
        f"and {into} now holds the results of all of them under that name; the merge was "
        "written. If they are one model, ignore this; to compare them, give each configuration "
        "its own model file name and run it again, or merge only the stores of one "
        "configuration into a new --into folder"
    )


def _missing_line(missing: MissingShards, into: Path) -> str:
    """Markup: what `missing` lacks, where it stopped, and what to do about it."""
    ran = f"{missing.stage} of model {missing.model}" if missing.model else missing.stage
    where = _stores_left(missing)
    if missing.count == 1:  # the stage ran whole (no --shard), this model not through
        why = where or (
            " (refused, stopped, cut at --max-cost, or still running there)"  # an older store
        )
        lacking = (
            # At work: whether it runs with --shard K/N is recorded once it is through.
            f"{ran} is not through in any of the merged stores{why}"
            if missing.busy_in
            else f"{ran} was run on the whole stage (no --shard K/N) but is not through in any of "
            f"the merged stores{why}"
        )
        redo = "run the same command there again (a resume pays for nothing stored)"
        what = f"{redo}, and merge that store into {into} too"
    else:
        numbers = ", ".join(f"{k}/{missing.count}" for k in missing.indexes)
        many = len(missing.indexes)
        lacking = (
            f"{ran} ran with --shard K/{missing.count}, but {plural(many, 'shard')} {numbers} "
            f"{plural(many, 'is', 'are')} in none of the merged stores{where}"
        )
        what = (
            f"run the missing {plural(many, 'shard')} (where a shard stopped, its command again: "
            f"a resume pays for nothing stored) and merge {plural(many, 'it', 'them')} into "
            f"{into} too"
        )
    if missing.busy_in:
        what = (
            "let it finish there (or, if it was killed, run its command there again), and "
            f"merge {listed_stores(missing.busy_in)} into {into} again"
        )
    return plain(f"{lacking}; the merge was written: {what}")


def _stores_left(missing: MissingShards) -> str:
    """Where the stores merged left the model: stopped partway, only started, or at work."""
    parts = []
    if missing.partway_in:
        parts.append(f"it stopped partway in {listed_stores(missing.partway_in)} (part of its results "
                     "are stored there)")  # fmt: skip
    if missing.started_in:
        parts.append(
            f"it was started in {listed_stores(missing.started_in)} but stored nothing there (refused, "
            "or stopped or cut at --max-cost before its first answer: see that command's output)"
        )
    if missing.busy_in:
        parts.append(
            f"a process was at work on the {missing.stage} stage in {listed_stores(missing.busy_in)} "
            "as it was merged (it holds job leases there)"
        )
    return f": {'; '.join(parts)}" if parts else ""


#: How to run a stage with one model on the merged run, by stage (others: "its command").
_RUN_ON = {
    "generate": "poemetric generate --run {into} --models {model}",
    "judge": "poemetric judge --run {into} --judge {model}",
}


def _started_line(started: StartedOnly, into: Path) -> str:
    """Plain text: a model a stage was only started with, and what to do if it is wanted."""
    ran = f"{started.stage} of model {started.model}"
    example = _RUN_ON.get(started.stage, "").format(into=into, model=started.model)
    how = f"run its command on {into} (without --shard: it holds every shard)" + (
        f", e.g. {example}" if example else ""
    )
    return (
        f"{ran} was started in {listed_stores(started.stores)} but stored nothing there (refused, or "
        "stopped or cut at --max-cost before its first answer), nor in any other merged store: "
        f"{into} holds nothing of it and is complete without it. To have its results, {how}; "
        "if it was not meant to run, ignore this"
    )


def _print_report(console: Console, report: MergeReport) -> None:
    merged = [s for s in report.sources if s not in report.skipped_sources]
    console.print(
        f"Merged {counted(len(merged), 'store')} into [bold]{plain(report.destination)}[/bold]"
    )
    for skipped in report.skipped_sources:
        console.print(f"  skipped {skipped}: it is the destination", markup=False)
    rows = [
        [name, *(f"{getattr(report.tables[name], attr):,}" for attr, _ in _COLUMNS)]
        for name in (*MERGED_TABLES, *SURVEY_TABLES)
        if name in report.tables
    ]
    headers = ["table", *(header for _, header in _COLUMNS)]
    # A log file is 80 columns wide: headers wrap, then the columns that are 0 for every table
    # are left out, rather than cut every header to "confl…". Columns that still do not fit go
    # to a second table (with the table names again), as in the run summaries: the lines ran
    # over 80 columns. A minimum width, not a fixed one, which rich would shrink.
    shown, zeros = fitting_columns(headers, rows, console.width, edge=False)
    for number, group in enumerate(column_groups(shown, console.width, edge=False)):
        table = Table(show_edge=False, pad_edge=False)
        for index in group:
            width = shown[index]
            table.add_column(
                headers[index],
                justify="left" if index == 0 else "right",
                min_width=width,
                max_width=width,
                no_wrap=index == 0,
            )
        for row in rows:
            table.add_row(*(row[index] for index in group))
        if number:
            console.print()
        console.print(table)
    if zeros:
        console.print(f"(0 for every table, left out at this width: {', '.join(zeros)})")
    console.print(
        "new: copied; same: already there; ok>error: a success replaced a failure; kept ok: a "
        "failure was ignored; both err: both failed; updated: a newer version replaced the older "
        "(batches, line annotations, form checks by this POEMetric's checker, completed survey "
        "pages, answer edit times); conflicts: two different successes (or survey answers), the "
        "destination's kept; skipped: depends on a conflicting generation"
    )
    if twice := sum(t.bought_twice for t in report.tables.values()):
        console.print(
            f"{counted(twice, 'answer')} {plural(twice, 'was', 'were')} bought in two stores: the "
            "same request answered alike (only the provider's response ids and times differ), "
            "kept once, the destination's (counted as 'same'; no conflict). The job ran on two "
            "machines (overlapping --models or shards) and was paid twice.",
            markup=False,
        )
    if report.conflicts:
        console.print(
            f"[yellow]{counted(len(report.conflicts), 'conflict')}: the destination's rows were "
            "kept, and the form checks and judgments of the other versions left out. The same "
            "job ran in two stores (overlapping --models or shards) and answered differently; "
            "either version is a valid answer: to keep the other store's instead, merge in the "
            "other order into a new --into folder (--strict: exit 1 on conflicts).[/yellow]"
        )
        for conflict in report.conflicts[:_SHOWN_CONFLICTS]:
            # `generations [prompt_id=...] from runs/b`: the key in brackets was read as a tag
            console.print(f"  {conflict.describe()}", markup=False)
        if len(report.conflicts) > _SHOWN_CONFLICTS:
            console.print(f"  ... and {len(report.conflicts) - _SHOWN_CONFLICTS} more")
