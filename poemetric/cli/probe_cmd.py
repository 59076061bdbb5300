"""`poemetric probe build|run|report`: the minimal-pair probes of BPoMP and the limerick paper."""

from __future__ import annotations

from contextlib import closing, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, cast

import typer
from rich.markup import escape

from poemetric.cli.app import app
from poemetric.cli.options import ProgressOption, error_exit, run_option, unknown_choice
from poemetric.cli.output_paths import folder_option, output_file, output_folder, output_option
from poemetric.cli.probe_last_line import AllCallsFailed, last_line_pairs
from poemetric.cli.probe_output import (
    console,
    no_pairs,
    not_the_other_kind,
    note,
    pair_request,
    say,
    show_tables,
    source_poems,
)
from poemetric.cli.probe_selection import build_tasks, pairs_of_tasks, poems_of_forms

if TYPE_CHECKING:
    from poemetric.probes.poem import RhymeSource

#: Choices of `probe build --rhyme-from` and `--search`.
RHYME_SOURCES = ("auto", "dataset", "checker")
SEARCHES = ("beam", "delayed_beam", "sample")
#: `--run` of `probe build` (last_line with an API generator) and `probe run` (chat scorers).
BUILD_RUN = run_option(
    Path("runs/probes"),
    "last_line with an API --generator: run store holding its answers and response cache (a "
    "repeated build asks nothing again; an interrupted one resumes).",
)
CHAT_RUN = run_option(Path("runs/probes"), "chat: run store holding the response cache.")

probe_app = typer.Typer(
    help=(
        "Minimal-pair probes: does a language model prefer an original poem to a minimally "
        "corrupted copy? (BPoMP, RANLP 2021; Limericks and Computational Poetics, JCLS 2022)\n\n"
        "  poemetric probe build lear-limericks --output pairs.jsonl\n\n"
        "  poemetric probe build my-poems.csv -o mine.jsonl   # columns text, rhyme\n\n"
        "  poemetric probe run pairs.jsonl --scorer ngram --output scores-ngram.jsonl\n\n"
        "  poemetric probe run pairs.jsonl --scorer hf:smollm2-135m -o smollm2.jsonl\n\n"
        "  poemetric probe report scores-*.jsonl --output probe-tables/\n\n"
        "`probe report` warns when the scorers were run on different pairs; --common-pairs "
        "compares them on the pairs they all scored."
    ),
    no_args_is_help=True,
    rich_markup_mode="markdown",
)
app.add_typer(probe_app, name="probe")


@probe_app.command(
    "build",
    epilog=(
        "Examples:\n\n"
        "  poemetric probe build lear-limericks --output pairs.jsonl\n\n"
        "  poemetric probe build my-poems.csv --output pairs.jsonl   # text,rhyme columns\n\n"
        "  poemetric probe build demo --tasks synonym --seed 3 --per-poem 2 -o p.jsonl\n\n"
        "  poemetric probe build demo -t last_line --search delayed_beam -o ll.jsonl\n\n"
        "  poemetric probe build demo -t last_line --generator gpt-4o -o ll.jsonl\n\n"
        "The last one asks an API model for the lines and keeps its answers in the run store "
        "--run (default runs/probes): built again, it asks nothing again."
    ),
)
def build(
    poems: str = typer.Argument(
        ...,
        help="Dataset name (lear-limericks, demo, poemetric), a dataset file, or a CSV/TSV/JSONL/"
        "Parquet file of just the poems: content (or text), optional rhyme_pattern (or rhyme), "
        "poem_id (or id) and form.",
    ),
    output: Path = output_option(
        ..., "--output", "Pairs file to write (JSONL).", file_name="pairs.jsonl"
    ),
    tasks: str = typer.Option(
        "offline",
        "--tasks",
        "-t",
        help="Comma-separated tasks, or 'offline' (all but last_line) or 'all': rhyme_word_swap,"
        " rhyme_line_swap, synonym, delete_{1,2,3}_{rhyming,nonrhyming}, last_line.",
    ),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed: same seed, same pairs."),
    per_poem: int = typer.Option(1, "--per-poem", min=1, help="Pairs per poem and task (at most)."),
    forms: str | None = typer.Option(
        None, "--forms", help="Only these forms, e.g. 'limerick' or 'limerick,ballad'."
    ),
    rhyme_from: str = typer.Option(
        "auto",
        "--rhyme-from",
        help="Rhyme pattern from the 'dataset' (or poems file), the form 'checker', or 'auto' "
        "(dataset when it fits the poem, else checker).",
    ),
    limit: int | None = typer.Option(None, "--limit", "-n", min=1, help="First N poems only."),
    generator: str = typer.Option(
        "smollm2-135m", "--generator", help="last_line: model file that writes the new lines."
    ),
    search: str = typer.Option(
        "beam", "--search", help="last_line with a local model: beam, delayed_beam or sample."
    ),
    attempts: int = typer.Option(4, "--attempts", min=1, help="last_line: samples per poem."),
    beams: int = typer.Option(8, "--beams", min=1, help="last_line: beam width (beam search)."),
    run_dir: Path = BUILD_RUN,
    progress: bool = ProgressOption,
) -> None:
    """Build seeded, deterministic minimal pairs from a set of rhymed poems."""
    from poemetric.cli.interrupt import nothing_written
    from poemetric.probes.builders import build_pairs
    from poemetric.probes.pairs import write_jsonl
    from poemetric.probes.poem_file import rhyme_misfits
    from poemetric.probes.thesaurus import ThesaurusUnavailable
    from poemetric.runner.runner import RunnerOptions
    from poemetric.text.plural import counted

    chosen = build_tasks(tasks)
    if rhyme_from not in RHYME_SOURCES:
        raise unknown_choice("--rhyme-from", rhyme_from, RHYME_SOURCES)
    if search not in SEARCHES:
        raise unknown_choice("--search", search, SEARCHES)
    output_file(output, "--output", source=Path(poems), loss="the poems would be replaced by pairs")
    not_the_other_kind(output, "scores", "the pairs would replace them")
    name, every = source_poems(poems, rhyme_from)
    sources = poems_of_forms(name, every, forms, limit)
    # A pattern that does not fit its poem, named by file:line (a file of just the poems says
    # it as it is read): the builders named its poem id alone, and the first only.
    misfits = rhyme_misfits(name, sources, "rhyme_pattern") if rhyme_from == "dataset" else None
    if misfits:
        raise error_exit(misfits)
    offline = [t for t in chosen if t != "last_line"]
    failed_calls: str | None = None
    why_none: str | None = None  # why last_line kept no line
    # Ctrl-C: an API generator's answers are kept in --run (last_line_pairs says how to resume);
    # anything else (a local model's beam search, the offline tasks) keeps nothing: say so.
    try:
        with nothing_written(output, "every pair is built"):
            pairs = build_pairs(
                sources,
                offline,
                seed=seed,
                per_poem=per_poem,
                rhyme_source=cast("RhymeSource", rhyme_from),
            )
            if "last_line" in chosen:
                generated, failed_calls, why_none = last_line_pairs(
                    sources,
                    generator,
                    search,
                    attempts,
                    beams,
                    seed,
                    per_poem,
                    rhyme_from,
                    options=RunnerOptions(progress=progress),
                    run_dir=run_dir,
                    say=say,
                )
                pairs += generated
    except (ThesaurusUnavailable, ValueError) as error:
        raise error_exit(str(error)) from error
    except AllCallsFailed as error:
        raise error_exit(str(error), code=1) from error
    if not pairs:
        raise no_pairs(
            output,
            f"{counted(len(sources), 'poem')} of {name}",
            offline,
            why_none,
            failed_calls,
        )
    count = write_jsonl(pairs, output)
    by_task: dict[str, int] = {}
    for pair in pairs:
        by_task[pair.task] = by_task.get(pair.task, 0) + 1
    pairs_word = "pair" if count == 1 else "pairs"
    poems_word = "poem" if len(sources) == 1 else "poems"
    say(f"{count} {pairs_word} from {len(sources)} {poems_word} of {name} -> {output}")
    for task in chosen:
        # last_line pairs are named by how they were generated (last_line_dbs, last_line_chat...)
        names = [t for t in by_task if t == task or t.startswith(f"{task}_")]
        console.print(f"  {task:22} {sum(by_task[t] for t in names)}")
    for reason in (why_none, failed_calls):
        if reason is not None:
            console.print(f"[yellow]{escape(reason)}[/yellow]", highlight=False, soft_wrap=True)
    if failed_calls is not None:
        raise typer.Exit(code=1)


@probe_app.command(
    "run",
    epilog=(
        "Examples:\n\n"
        "  poemetric probe run pairs.jsonl --scorer ngram --output scores-ngram.jsonl\n\n"
        "  poemetric probe run pairs.jsonl --scorer hf:smollm2-135m -o smollm2.jsonl\n\n"
        "  poemetric probe run pairs.jsonl --scorer hf:/models/bert -o bert.jsonl\n\n"
        "  poemetric probe run pairs.jsonl --scorer chat:gpt-4o -o gpt4o.jsonl\n\n"
        "A masked model (BERT) is scored by pseudo-log-likelihood: --pll original or word_l2r."
    ),
)
def run(
    pairs_file: Path = typer.Argument(..., help="Pairs file from `probe build`."),
    output: Path = output_option(
        ..., "--output", "Scores file to write (JSONL).", file_name="scores.jsonl"
    ),
    scorer: str = typer.Option(
        "ngram", "--scorer", help="ngram[:N], hf:MODEL, vllm:MODEL or chat:MODEL."
    ),
    batch_size: int = typer.Option(8, "--batch-size", min=1, help="hf: texts per forward pass."),
    prefix_token: str | None = typer.Option(
        None,
        "--prefix-token",
        help="Token put before every text (default: the model's "
        "document separator, else BOS, else EOS).",
    ),
    pll: str = typer.Option("original", "--pll", help="Masked LMs: original or word_l2r."),
    chunk_size: int = typer.Option(64, "--chunk-size", min=1, help="Masked copies per pass."),
    device: str | None = typer.Option(
        None, "--device", help="hf: cpu, cuda, cuda:1 (default auto)."
    ),
    run_dir: Path = CHAT_RUN,
    seed: int = typer.Option(
        0, "--seed", help="chat: seed of each pair's answer order (a coin per pair id)."
    ),
    tasks: str | None = typer.Option(None, "--tasks", help="Only these tasks (comma-separated)."),
    limit: int | None = typer.Option(
        None, "--limit", "-n", min=1, help="Only the first N pairs (quick trials)."
    ),
    tables: Path | None = folder_option(
        None, "--tables", help="Also write the accuracy tables (CSV, LaTeX, Markdown) here."
    ),
    progress: bool = ProgressOption,
) -> None:
    """Score every pair (both texts) and print accuracy tables beside the papers' numbers."""
    from poemetric.cli.interrupt import interruptible, nothing_written
    from poemetric.cli.paid_stage import check_prices
    from poemetric.probes.pairs import PairFileError, read_pairs, write_jsonl
    from poemetric.probes.results import probe_table_rows
    from poemetric.probes.scorers import ScoreCache, ScorerOptions, make_scorer
    from poemetric.probes.scorers.chat import ChatScorer
    from poemetric.providers.base import ProviderError
    from poemetric.providers.model_source import LocalModelError
    from poemetric.runner.runner import RunnerOptions

    # Before the scoring, which may take long or cost money.
    output_file(output, "--output", source=pairs_file, loss="the pairs would be replaced by scores")
    not_the_other_kind(output, "pairs", "the scores would replace them")
    if tables is not None:
        output_folder(tables, "--tables")
    task_warnings: list[str] = []
    try:
        pairs = read_pairs(pairs_file, task_warnings)
    except PairFileError as error:
        raise error_exit(str(error)) from error
    for warning in task_warnings:
        typer.echo(f"warning: {warning}", err=True)
    everything = len(pairs)
    pairs = pairs_of_tasks(pairs_file, pairs, tasks)[:limit]
    # chat: answers are kept in --run; the others keep each scored text beside --output.
    chat = scorer.startswith("chat:")
    cache = None if chat else ScoreCache.beside(output)
    options = ScorerOptions(
        batch_size=batch_size,
        prefix_token=prefix_token,
        pll=pll,
        chunk_size=chunk_size,
        device=device,
        run_dir=run_dir,
        seed=seed,
        runner=RunnerOptions(progress=progress),
        cache=cache,
        request=pair_request(pairs_file, output, tasks, limit, seed) if chat else None,
    )
    stop = (
        interruptible(run_dir) if chat else nothing_written(output, "every pair is scored", cache)
    )
    try:
        with stop, closing(cache) if cache else nullcontext():
            chosen = make_scorer(scorer, options)
            if isinstance(chosen, ChatScorer):  # paid calls: a price its file lacks is unknown
                check_prices([chosen.spec], None)
            records = chosen.score(pairs)
    except ValueError as error:
        raise error_exit(str(error)) from error
    except (LocalModelError, ProviderError) as error:
        raise error_exit(f"{scorer}: {error}") from error
    write_jsonl(records, output)
    say(f"{len(records)} pairs scored by {chosen.name} -> {output}")
    # The scores file is whole; a run of some pairs keeps the texts of the others for their run.
    for line in cache.finish(keep_others=len(pairs) < everything) if cache else []:
        note(line)
    show_tables(probe_table_rows(records), tables)
    unanswered = getattr(chosen, "unanswered", 0)
    if unanswered:  # counted as 'unanswered' in the tables; said, or it looked like a result
        first = getattr(chosen, "first_error", None) or "not answered"
        typer.echo(
            f"{scorer}: {unanswered} of {len(records)} pairs unanswered (run again to retry "
            f"them; answers already stored are not asked again); first error: {first}",
            err=True,
        )
        raise typer.Exit(1)


@probe_app.command(
    "report",
    epilog=(
        "Examples:\n\n"
        "  poemetric probe report scores-ngram.jsonl scores-smollm2.jsonl\n\n"
        "  poemetric probe report scores-*.jsonl --output probe-tables/\n\n"
        "  poemetric probe report s-ngram.jsonl s-smol.jsonl --common-pairs\n\n"
        "Scorers run on different pairs (another pairs file, --limit, --tasks) are named in a "
        "warning, with how many pairs differ; --common-pairs compares them on the pairs every "
        "scorer scored."
    ),
)
def report(
    scores: list[Path] = typer.Argument(..., help="Scores files from `probe run`."),
    output: Path | None = output_option(
        None, "--output", "Write the tables (CSV, LaTeX, Markdown) into this folder.", folder=True
    ),
    common_pairs: bool = typer.Option(
        False,
        "--common-pairs",
        help="Only the pairs every scorer scored (same pair id and texts), when the scorers were "
        "run on different pairs; without it each scorer is reported on all of its pairs.",
    ),
) -> None:
    """Accuracy tables of one or more scores files, beside the papers' published numbers."""
    from poemetric.probes.pair_sets import compare_pair_sets
    from poemetric.probes.pairs import PairFileError
    from poemetric.probes.results import probe_table_rows
    from poemetric.probes.scorers import read_scores

    if output is not None:
        output_folder(output, "--output")
    records = []
    files: list[str] = []
    seen: dict[tuple[str, str], str] = {}  # a pair scored twice would be counted twice
    try:
        for path in scores:
            read = read_scores(str(path), seen)
            records += read
            files += [str(path)] * len(read)
    except PairFileError as error:
        raise error_exit(str(error)) from error
    if not records:
        raise error_exit(
            f"no scores in {', '.join(map(str, scores))}; write them with `poemetric probe run`"
        )
    sets = compare_pair_sets(records, files)
    if sets.differ:  # only the n column told it: models compared on different data
        typer.echo(f"warning: {sets.warning()}", err=True)
        if common_pairs and not sets.common:
            raise error_exit("--common-pairs: no pair was scored by every scorer")
        if common_pairs:
            records = [r for r in records if sets.key(r) in sets.common]
            done = f"only the {len(sets.common)} pairs every scorer scored (--common-pairs)"
        else:
            done = (
                "each scorer on all of its pairs; --common-pairs keeps the "
                f"{len(sets.common)} pairs every scorer scored"
            )
        say(f"Pairs differ between scorers (warning on stderr): {done}.\n")
    show_tables(probe_table_rows(records), output)
