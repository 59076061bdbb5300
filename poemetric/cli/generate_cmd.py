"""`poemetric generate`: every selected model writes a poem for every prompt of a run."""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.app import app
from poemetric.cli.interrupt import STOPPING_HELP, interruptible
from poemetric.cli.new_run import close_run, note_new_run, run_inside_run
from poemetric.cli.options import (
    DatasetOption,
    ModelsOption,
    ProgressOption,
    RunOption,
    dataset_warnings,
    error_exit,
)
from poemetric.cli.output_paths import output_folder
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
from poemetric.cli.run_limit import RunLimitOption, note_capped, note_held, poem_limit

if TYPE_CHECKING:
    from poemetric.data import Dataset, Poem
    from poemetric.pipeline import PoemLimit, PreparedRun
    from poemetric.prompts import RenderedPrompt
    from poemetric.providers.base import ModelSpec
    from poemetric.store import RunStore

console = Console(emoji=False)

TemplateOption = typer.Option(
    None,
    "--template",
    help="Generation prompt template: a file, or a name in prompts/ (default: the run's own "
    "template, or prompts/generation.jinja for a new run). Its sha256 is stored with every "
    "result; a run keeps one template, so try a variant in a new --run directory.",
)


def prepare_or_exit(
    store: RunStore,
    dataset: Dataset,
    limit: PoemLimit,
    template: str | None = None,
    command: str = "generate",
    rendered: Sequence[tuple[Poem, RenderedPrompt]] | None = None,
) -> PreparedRun:
    """`prepare_run` with a loaded dataset (and a new run's prompts, `rendered` already); its
    expected failures (a run prepared from another dataset or template, a template that does not
    render) printed as one clear error instead of a traceback."""
    from poemetric.pipeline import prepare_run
    from poemetric.prompts import PromptError
    from poemetric.store import StoreError

    try:
        return prepare_run(store, dataset, limit=limit, template=template, rendered=rendered)
    except StoreError as error:
        raise error_exit(f"{error}{_own_dataset_hint(store, dataset, command)}") from error
    except PromptError as error:
        raise error_exit(error) from error


def _own_dataset_hint(store: RunStore, dataset: Dataset, command: str = "generate") -> str:
    """For a run prepared from another dataset, how to go on with it: `--dataset` with the run's
    own (DATASET= under make, as the other hints name make's variables). The refusal said only
    "use another --run directory", also to a `generate` that left out --dataset (the bundled
    demo) to add a model to a run of the user's own file. `demo` (no --dataset; `make demo` no
    DATASET) is given the `generate` line: it was told `--dataset NAME`, no option of its own."""
    from poemetric.data.registry import dataset_registry
    from poemetric.hints import recorded_dataset, run_by_make, stage_command

    recorded = store.get_meta("dataset") or {}
    spec = recorded_dataset(store)
    if spec is None or recorded.get("name") in (None, dataset.name):
        return ""
    if command == "demo":
        line = stage_command("generate", store.run_dir, dataset=spec)
        return (
            f", or, to go on with this run, run `{line}` (the demo runs the bundled demo dataset "
            "only)"
        )
    option, command = ("DATASET=", "make generate") if run_by_make() else ("--dataset ", "generate")
    demo = dataset_registry().get("demo")
    default = (
        f" (without {option.strip(' =')}, `{command}` reads the bundled demo)"
        if demo is not None and Path(dataset.path) == Path(demo.path)
        else ""
    )
    return f", or, to go on with this run, give it its own: {option}{shlex.quote(spec)}{default}"


def open_prepared(
    run: Path,
    dataset: str,
    limit: PoemLimit,
    template: str | None = None,
    *,
    shown_as: Path | None = None,
    models: Sequence[ModelSpec] = (),
    command: str = "generate",
) -> tuple[RunStore, PreparedRun]:
    """The run's store (created when new), prepared by `prepare_or_exit`.

    Everything that can fail on this call's own arguments is tried before any folder or store
    exists: `run` must be a folder (or not exist yet, with no file in its way), the dataset and
    the template are read, and for a new run the template renders every prompt; then, where none
    of `models` can start, the command stops (`refuse_when_none_can_start`). So a mistyped or
    invalid one leaves nothing that could later look like a run. What can still fail once the
    store is open is a refusal because another process prepared the run first (another dataset
    or template: `prepare_run` checks and writes in one transaction) or an I/O error; the store
    is then only closed, never removed: it may be another process's, open there, and removing
    it made that process write on into deleted files. `shown_as` is the run that messages name
    when `run` is a scratch copy of it (`prepared_or_planned`); `command`, the one running.
    """
    from poemetric.data import DatasetError, load_dataset
    from poemetric.pipeline import head_limit, render_prompts
    from poemetric.prompts import GENERATION_TEMPLATE, PromptError, template_or_bundled
    from poemetric.store import RunStore, StoreError
    from poemetric.store.db import DB_NAME

    inside = run_inside_run(shown_as or run, command)
    if inside is not None:
        raise error_exit(inside)
    try:
        loaded = load_dataset(dataset)
        chosen = template_or_bundled(template, GENERATION_TEMPLATE)
        new_run = not (run / DB_NAME).exists()
        # A new run's prompts, rendered here and stored by prepare_run (an existing run's are
        # rendered there, from the template it keeps).
        rendered = render_prompts(loaded.head(head_limit(limit)), chosen) if new_run else None
    except (DatasetError, PromptError) as error:
        raise error_exit(error) from error
    if new_run:  # the run is prepared from this file once: say now what validate would
        dataset_warnings(loaded)
    output_folder(run, "--run")  # a file in the way: an error, not a traceback from mkdir
    refuse_when_none_can_start(models)
    try:
        store = RunStore(run)
    except StoreError as error:  # a damaged store, or one of a newer POEMetric
        message = str(error) if shown_as is None else str(error).replace(str(run), str(shown_as))
        raise error_exit(message) from None
    if shown_as is not None:
        store.run_dir = shown_as
    try:
        return store, prepare_or_exit(store, loaded, limit, template, command, rendered)
    except BaseException:
        store.close()
        raise


@contextmanager
def prepared_or_planned(
    run: Path,
    dataset: str,
    limit: PoemLimit,
    template: str | None,
    *,
    dry_run: bool,
    models: Sequence[ModelSpec] = (),
) -> Iterator[tuple[RunStore, PreparedRun]]:
    """The prepared run's store, open; with `dry_run`, a prepared scratch copy of it instead,
    so that a plan writes nothing: the run is left byte for byte as it was, and a run that does
    not exist yet is not made. Without `dry_run`, the command stops before it writes to the run
    when none of `models` can start (a plan prices them before their keys are set)."""
    from poemetric.store import StoreError
    from poemetric.store.scratch import scratch_copy

    with ExitStack() as stack:
        if dry_run:
            output_folder(run, "--run")
            try:
                folder = stack.enter_context(scratch_copy(run))
            except StoreError as error:
                raise error_exit(error) from None
            store, prepared = open_prepared(folder, dataset, limit, template, shown_as=run)
        else:
            store, prepared = open_prepared(run, dataset, limit, template, models=models)
        with store:
            yield store, prepared


def note_kept_template(run_template_hash: str, chosen: str | None) -> None:
    """Say so when a run keeps a generation template other than today's bundled one."""
    from poemetric.prompts import GENERATION_TEMPLATE, bundled_template

    if chosen is None and run_template_hash != bundled_template(GENERATION_TEMPLATE).sha256:
        console.print(
            f"[dim]note: this run keeps the generation template it was prepared with (sha256 "
            f"{run_template_hash[:12]}…), not today's prompts/{GENERATION_TEMPLATE}; "
            "docs/changelog.md lists prompt changes.[/dim]"
        )


@app.command(
    "generate",
    epilog=(
        "Examples:\n\n"
        "  poemetric generate --run runs/trial --models markov --limit 5\n\n"
        "  poemetric generate --run runs/trial --models markov --limit all\n\n"
        "  poemetric generate --run runs/paper --dataset poemetric --dry-run\n\n"
        "  poemetric generate --run runs/paper --models paper30 --max-cost 20\n\n"
        "  poemetric generate --run runs/paper --models gpt-4o,gemini-2.5-pro --batch\n\n"
        "  poemetric generate --run runs/variant --template my-prompt.jinja\n\n"
        "  poemetric generate --run runs/part$K --models open --shard $K/4\n\n"
        "The last one runs shard K of 4 (e.g. K=$SLURM_ARRAY_TASK_ID in an sbatch --array=0-3 "
        "job); `poemetric merge` combines the parts (docs/scaling.md).\n\n"
        "Interrupted runs resume where they stopped: stored results and cached responses are "
        "never paid for twice. A run keeps the prompts it holds: without --limit, the command "
        "again (a resume) asks for no new poem; the second example widens the first's run to "
        "every poem.\n\n" + STOPPING_HELP
    ),
)
def generate(
    run: Path = RunOption,
    dataset: str = DatasetOption,
    models: str = ModelsOption,
    limit_text: str | None = RunLimitOption,
    samples: int = typer.Option(1, "--samples", min=1, help="Poems per prompt and model."),
    dry_run: bool = DryRunOption,
    max_cost: float | None = MaxCostOption,
    shard: str | None = ShardOption,
    batch: bool = BatchOption,
    batch_requests: int | None = BatchRequestsOption,
    concurrency: int | None = ConcurrencyOption,
    progress: bool = ProgressOption,
    template: str | None = TemplateOption,
) -> None:
    """Generate poems: each model answers each prompt of the run's dataset (x --samples).

    The run is prepared first (dataset snapshot, prompts and the human poems; --dry-run plans
    from a throwaway copy and leaves the run as it was); then every
    (prompt, model, sample) job not yet stored is called, concurrently within each model's rate
    limits, with retries. Failures are stored as errors and retried by the next run.
    """
    from poemetric.generation.stage import run_generation
    from poemetric.pipeline import head_limit
    from poemetric.roster import RosterError, select_models

    notes: list[str] = []
    try:
        specs = select_models(models, notes=notes)
    except RosterError as error:  # not Typer's usage box: it cut the file's path across lines
        raise error_exit(error) from None
    say_notes(notes)
    limit = poem_limit(limit_text)
    options = runner_options(
        models=specs,
        samples=samples,
        limit=head_limit(limit),
        dry_run=dry_run,
        max_cost=max_cost,
        shard=shard,
        batch=batch,
        batch_requests=batch_requests,
        concurrency=concurrency,
        progress=progress,
    )
    near = close_run(run)  # before the run is made: a mistyped --run of a run to resume
    planned = prepared_or_planned(run, dataset, limit, template, dry_run=dry_run, models=specs)
    with interruptible(run, "generations", [s.name for s in specs]), planned as (store, prepared):
        note_kept_template(prepared.template_hash, template)
        stage_header(run, prepared.dataset.name, len(prepared.dataset), len(specs), samples)
        note_new_run(console, run, near)
        note_capped(console, limit, prepared)
        note_held(console, prepared)
        report = run_generation(store, specs, options=options, console=console)
    report.render(console)
    if report.incomplete and not dry_run:
        raise typer.Exit(code=1)
