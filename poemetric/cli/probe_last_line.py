"""`probe build --tasks last_line`: pairs whose last line a generator model writes (the
limerick paper's task), through the batch runner for API models."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast

from poemetric.cli.output_paths import output_folder
from poemetric.text.plural import counted

if TYPE_CHECKING:
    from poemetric.probes.builders import SourcePoem
    from poemetric.probes.last_line import Search
    from poemetric.probes.pairs import Pair
    from poemetric.probes.poem import RhymeSource
    from poemetric.runner.runner import RunnerOptions


class AllCallsFailed(Exception):
    """Every call to the last_line generator failed: no line was written."""


class LastLinePairs(NamedTuple):
    pairs: list[Pair]
    #: How many generator calls failed, and why the first did (None when none did).
    failed_calls: str | None
    #: Why no line was kept (None when a pair was made).
    why_none: str | None


def last_line_pairs(
    sources: list[SourcePoem],
    generator: str,
    search: str,
    attempts: int,
    beams: int,
    seed: int,
    per_poem: int,
    rhyme_from: str,
    options: RunnerOptions,
    run_dir: Path,
    say: Callable[[str], None],
) -> LastLinePairs:
    """The pairs, a line saying how many generator calls failed and one saying why no line was
    kept (each None when there is nothing to say); `AllCallsFailed` when every call failed. An API model's calls go through the batch runner,
    stored in `run_dir`: Ctrl-C or SIGTERM says how to resume (exit 130 or 143)."""
    from poemetric.cli.interrupt import interruptible
    from poemetric.cli.paid_stage import check_prices
    from poemetric.probes.last_line import LastLineTally, build_last_line_pairs, generator_for
    from poemetric.providers.base import ProviderError
    from poemetric.providers.model_source import LocalModelError
    from poemetric.roster import get_model

    # An unknown name, a file or provider that cannot be used: a RosterError, a ValueError.
    spec = get_model(generator)
    suffix = {"beam": "", "delayed_beam": "_dbs", "sample": "_sample"}[search]
    api = spec.provider != "transformers"
    tally = LastLineTally()
    if api:
        suffix = "_chat"
        output_folder(run_dir, "--run")
        check_prices([spec], None)  # paid calls: a price its file lacks is unknown, not $0
    try:
        line_generator = generator_for(
            spec,
            search=cast("Search", search),
            attempts=attempts,
            beams=beams,
            run_dir=run_dir,
            options=options,
        )
        with interruptible(run_dir) if api else nullcontext():
            pairs = build_last_line_pairs(
                sources,
                line_generator,
                seed=seed,
                per_poem=per_poem,
                rhyme_source=cast("RhymeSource", rhyme_from),
                task=f"last_line{suffix}",
                tally=tally,
            )
    except (LocalModelError, ProviderError) as error:
        raise ValueError(f"last_line: {error}") from error
    report = getattr(line_generator, "report", None)
    if report is not None:
        stored = report.already_done + report.from_cache
        say(
            f"last_line: {counted(report.jobs, 'line')} from {generator}: {stored} already in "
            f"{run_dir}, {report.called} asked now, ${report.cost_usd:.4f}"
        )
    # Failed calls gave no candidate line: said here, or the command reported "0 pairs" alone.
    why_none = None
    if not pairs:
        wider = "a wider --beams" if search == "beam" and not api else "more --attempts"
        hint = f" ({wider} may find one)" if tally.verdicts else ""
        why_none = f"last_line: {tally.why_none()}{hint}"
    failed, calls = getattr(line_generator, "failed", 0), getattr(line_generator, "calls", 0)
    if not failed:
        return LastLinePairs(pairs, None, why_none)
    first = getattr(line_generator, "first_error", None)
    if failed == calls:
        raise AllCallsFailed(
            f"last_line: all {calls} calls to {generator} failed, no line was written; "
            f"first error: {first}"
        )
    failed_calls = (
        f"last_line: {failed} of {calls} calls to {generator} failed, their poems got fewer "
        f"candidate lines; first error: {first}"
    )
    return LastLinePairs(pairs, failed_calls, why_none)
