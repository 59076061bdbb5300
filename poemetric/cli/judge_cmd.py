"""`poemetric judge`: LLM judges score every stored poem with the POEMetric questionnaire;
`judge parse` / `judge reparse` read answers without calling anyone. `judge recognise`, which
asks the judges whether they know the human poems, is in judge_recognise_cmd."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape

from poemetric.cli.app import app
from poemetric.cli.beside_generate import generate_watched, say_generate_was_at_work
from poemetric.cli.command_groups import JudgeGroup
from poemetric.cli.interrupt import STOPPING_HELP, interruptible
from poemetric.cli.judging import (
    LOCAL_JUDGE,
    RefreshFailedParsesOption,
    load_judges,
    local_judge_commands,
    open_judged_run,
    split_names,
)
from poemetric.cli.options import (
    ProgressOption,
    RunOption,
    error_exit,
    existing_run,
    given_as,
    not_standard_output,
    run_by_make,
)
from poemetric.cli.output import OutputError, replaced_on_success
from poemetric.cli.output_paths import not_the_input, output_option
from poemetric.cli.paid_stage import (
    BatchOption,
    BatchRequestsOption,
    ConcurrencyOption,
    DryRunOption,
    MaxCostOption,
    ShardOption,
    refuse_when_none_can_start,
    runner_options,
    say_notes,
    stage_header,
)
from poemetric.cli.run_limit import StageLimitOption
from poemetric.hints import stage_command
from poemetric.roster import roster_directories
from poemetric.suggest import did_you_mean
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.providers.base import ModelSpec
    from poemetric.store import RunStore

console = Console(emoji=False)
err_console = Console(emoji=False, stderr=True)

NO_JUDGE = """\
No judge given. Choose one with {choose}, for example:

  • the paper's judge, Gemini-2.5-Pro (Google AI Studio key):
        export GEMINI_API_KEY=...
        {paper}

{local}
Available judges (files in {folders}): {available}"""

JudgeNameOption = typer.Option(
    None,
    "--judge",
    "-j",
    envvar="POEMETRIC_JUDGE",
    help="Judges or judge groups from judges/, comma-separated (e.g. 'gemini-2.5-pro' or "
    "'gpt-4o,claude-3.7-sonnet' or 'pilot'). 'all': every judge but those whose file says "
    "`in_all: false` (the demo judge smollm2-135m, which runs only when named).",
)

judge_app = typer.Typer(
    cls=JudgeGroup,  # options before `recognise` are refused, not dropped (command_groups)
    help="LLM-as-a-judge: score poems with the POEMetric questionnaire, parse answers, probe "
    "memorisation.",
    no_args_is_help=False,
)
app.add_typer(judge_app, name="judge")


def select_judges(selection: str, given_as: str | None = None) -> list[ModelSpec]:
    """Judges and judge groups, comma-separated (a panel). `given_as` names where an unknown
    name came from (`POEMETRIC_JUDGE (set in the environment)`), for the error."""
    from poemetric.roster import RosterError, UnusableModelError, select_models

    notes: list[str] = []
    try:
        judges = select_models(selection, kind="judges", notes=notes)
    except UnusableModelError as error:  # a known judge: its file or its provider is broken
        raise error_exit(error) from None
    except RosterError as error:
        available = ", ".join(load_judges())  # a broken file: load_judges names it and exits
        where = f"{given_as}: " if given_as else ""
        raise error_exit(f"{where}{error}; judges: {available}") from None
    say_notes(notes)
    return judges


@judge_app.callback(
    invoke_without_command=True,
    # The stage runs without a command: the usage line said `judge [OPTIONS] COMMAND [ARGS]...`.
    subcommand_metavar="[COMMAND [ARGS]...]",
    epilog=(
        "Examples:\n\n"
        "  poemetric judge --run runs/demo --judge gemini-2.5-pro --dry-run\n\n"
        "  poemetric judge --run runs/paper --judge gemini-2.5-pro --batch --max-cost 50\n\n"
        "  poemetric judge --run runs/paper --judge pilot --samples 3\n\n"
        "  poemetric judge --run runs/paper --judge local-openai --authors human,gpt-4o\n\n"
        "`--judge pilot --samples 3` asks each judge of the `pilot` group (judges/groups.yaml) "
        "3 times per poem, with varied seeds.\n\n"
        "Commands: `judge parse` and `judge reparse` read answers without calling anyone; "
        "`judge recognise` asks the judges whether they know the human poems.\n\n"
        "An unparsable answer is re-asked once (the judge file's `reask`), telling the judge "
        "why; one that stays unparsable is stored as an error with the raw response, re-parsed "
        "for free by the next run; --refresh-failed-parses pays for a new answer to its last "
        "turn. A generation "
        "that is no poem (empty, a refusal, one line, not in Latin script) is not sent to the "
        "judge: it is stored as not judged, at no cost. See docs/judging.md.\n\n" + STOPPING_HELP
    ),
)
def judge(
    ctx: typer.Context,
    run: Path = RunOption,
    judge_name: str | None = JudgeNameOption,
    judge_template: Path | None = typer.Option(
        None,
        "--judge-template",
        help="Judge prompt template file instead of each judge's own (default prompts/judge.md);"
        " a judge keeps one template per run.",
    ),
    authors: str | None = typer.Option(
        None, "--authors", help="Only these authors' poems (comma-separated, e.g. human,gpt-4o)."
    ),
    limit: int | None = StageLimitOption,
    samples: int = typer.Option(
        1, "--samples", min=1, help="Judgments per poem and judge (the seed varies per sample)."
    ),
    reask: int | None = typer.Option(
        None,
        "--reask",
        min=0,
        max=5,
        help="Follow-up turns for an unparsable answer "
        "(overrides the judge files' `reask`, default 1).",
    ),
    dry_run: bool = DryRunOption,
    max_cost: float | None = MaxCostOption,
    shard: str | None = ShardOption,
    batch: bool = BatchOption,
    batch_requests: int | None = BatchRequestsOption,
    concurrency: int | None = ConcurrencyOption,
    refresh_failed_parses: bool = RefreshFailedParsesOption,
    progress: bool = ProgressOption,
) -> None:
    """Score every ok generation with one or more LLM judges (blind to the author).

    The judge sees only the generation prompt and the poem. Answers are parsed into the ten
    POEMetric scores and three comments; the raw response is kept with each judgment.
    """
    if ctx.invoked_subcommand is not None:
        return
    from poemetric.judge.stage import JudgeStageError, run_judging
    from poemetric.prompts import PromptError

    if not judge_name:
        roster = load_judges()
        local = ""
        if LOCAL_JUDGE in roster:
            commands = local_judge_commands(roster[LOCAL_JUDGE], run)
            local = "  • a local model behind an OpenAI-compatible server (no cost):\n" + "".join(
                f"        {command}\n" for command in commands
            )
        choose = "JUDGE=NAME" if run_by_make() else "--judge NAME (or set POEMETRIC_JUDGE=NAME)"
        text = NO_JUDGE.format(
            choose=choose,
            paper=stage_command("judge", run, "gemini-2.5-pro"),
            local=local,
            available=", ".join(roster),
            # the bundled folder and POEMETRIC_JUDGES_DIR's: "(judges/)" named only the first
            folders=", ".join(str(folder) for folder in roster_directories("judges")),
        )
        console.print(
            text,
            highlight=False,
            markup=False,  # a run folder `runs/[exp1]` or a `[`-name is text
            soft_wrap=True,
        )
        raise typer.Exit(code=2)
    source = given_as(ctx, "judge_name", "--judge")
    judges = select_judges(judge_name, None if source == "--judge" else source)
    if reask is not None:
        judges = [j.model_copy(update={"reask": reask}) for j in judges]
    options = runner_options(
        models=judges,
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
        interruptible(run, "judgments", [j.name for j in judges]),
        generate_watched(store) as generating,
    ):
        if not dry_run:  # a plan prices judges before their keys are set
            refuse_when_none_can_start(judges)
        ((poems,),) = store.query(  # those with poems to judge, as --limit counts them
            "SELECT COUNT(DISTINCT poem_id) FROM generations WHERE status = 'ok'"
        )
        dataset = (store.get_meta("dataset") or {}).get("name")
        stage_header(run, dataset, min(poems, limit or poems), len(judges), samples, "judge")
        try:
            report = run_judging(
                store,
                judges,
                options=options,
                authors=author_list,
                samples=samples,
                template=judge_template,
                console=console,
            )
        except (JudgeStageError, PromptError) as error:
            raise error_exit(error) from error
    report.render(console)
    say_generate_was_at_work(generating, "judged", console)
    if report.incomplete and not dry_run:
        raise typer.Exit(code=1)


@judge_app.command("parse")
def parse_command(
    input_path: Path = typer.Argument(
        ..., help='JSONL input, one {"id": ..., "response": "<the judge\'s raw answer>"} a line.'
    ),
    output: Path = output_option(
        ..., "--output", "JSONL output, one line per input line.", file_name="parsed.jsonl"
    ),
) -> None:
    """Parse judge answers from a file, with the parser the judge stage uses (no call).

    Each output line is {"id", "ok", "scores": {"1": 4, ..., "12": 2}, "comments": {"9": ...},
    "error", "notes"}: scores keyed by question number, 0 for N/A on items 7 and 8. Exit status
    0 when every answer was read, 1 when some were rejected (the error names the item), 2 when
    the input cannot be read (missing, empty, not UTF-8) or some lines are not {"id", "response"}
    objects.

    Example:

        poemetric judge parse answers.jsonl --output parsed.jsonl
    """
    from poemetric.judge.reparse import ParseInputError, parse_file

    why = "judge parse writes its lines to a file and its summary to the terminal"
    not_standard_output(output, "--output", why=why)
    not_the_input(
        output, input_path, "--output", "the answers would be replaced by the parsed output"
    )
    try:
        with replaced_on_success(output) as handle:
            summary = parse_file(input_path, handle)
    except (ParseInputError, OutputError) as error:
        raise error_exit(error) from None
    console.print(
        f"{counted(summary.lines, 'answer')}: {summary.ok} read, {summary.rejected} rejected, "
        f"{counted(len(summary.unreadable), 'unreadable line')} -> {output}",
        highlight=False,
        markup=False,
    )
    for problem in summary.unreadable[:10]:
        err_console.print(
            f"[red]unreadable:[/red] {escape(problem)}", highlight=False, soft_wrap=True
        )
    raise typer.Exit(code=summary.exit_code)


@judge_app.command("reparse")
def reparse_command(
    run: Path = RunOption,
    judge_name: str | None = typer.Option(
        None, "--judge", "-j", help="Only these judges (comma-separated); default all."
    ),
) -> None:
    """Re-parse a run's stored judge answers after a parser change (no call) and report what
    changed: answers now read, answers now rejected (their old values were a misreading) and
    values that changed.

    Example:

        poemetric judge reparse --run runs/paper
    """
    from poemetric.judge.reparse import reparse_run

    names = split_names(judge_name)
    with existing_run(run) as store:
        if names:
            _check_judged_by(store, run, names)
        result = reparse_run(store, names)
    console.print(
        f"{counted(result.rows, 'stored answer')} re-parsed: {result.unchanged} unchanged, "
        f"{len(result.now_ok)} now read, {len(result.now_rejected)} now rejected, "
        f"{len(result.values_changed)} with changed values, {result.still_rejected} still "
        "rejected.",
        highlight=False,
    )
    for identifier, reason in result.now_rejected[:20]:
        console.print(f"  now rejected {identifier}: {reason}", highlight=False, markup=False)
    for identifier, changes in result.values_changed[:20]:
        console.print(
            f"  changed {identifier}: {', '.join(changes)}", highlight=False, markup=False
        )
    if result.now_rejected:
        from poemetric.judge.pending import judge_option

        again = stage_command("judge", run, judge_option(result.rejected_judges))
        console.print(
            f"Rejected answers are now errors: `{again}` re-asks or re-parses them.",
            highlight=False,
            markup=False,
        )


def _check_judged_by(store: RunStore, run: Path, names: list[str]) -> None:
    """`--judge` of `reparse` names judges with answers in the run: a mistyped one re-parsed
    nothing and said so as a success."""
    known = [r[0] for r in store.query("SELECT DISTINCT judge FROM judgments ORDER BY judge")]
    unknown = [name for name in names if name not in known]
    if not unknown:
        return
    if not known:
        from poemetric.analysis.data import no_judgments_yet

        raise error_exit(no_judgments_yet(run, unknown[0]))
    each = ", ".join(f"{name!r}{did_you_mean(name, known)}" for name in unknown)
    raise error_exit(f"no judgments by judge {each} in the run; judges: {', '.join(known)}")
