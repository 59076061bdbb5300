"""`probe build --tasks last_line`: pairs whose last line a generator model writes (the
limerick paper's task), through the batch runner for API models."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, cast

from poemetric.cli.options import output_folder

if TYPE_CHECKING:
    from poemetric.probes.builders import SourcePoem
    from poemetric.probes.last_line import Search
    from poemetric.probes.pairs import Pair
    from poemetric.probes.poem import RhymeSource
    from poemetric.runner.runner import RunnerOptions


class AllCallsFailed(Exception):
    """Every call to the last_line generator failed: no line was written."""


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
) -> tuple[list[Pair], str | None]:
    """The pairs, and a line saying how many generator calls failed (None when none did);
    `AllCallsFailed` when every one did. An API model's calls go through the batch runner,
    stored in `run_dir`: Ctrl-C or SIGTERM says how to resume (exit 130 or 143)."""
    from poemetric.cli.interrupt import interruptible
    from poemetric.probes.last_line import build_last_line_pairs, generator_for
    from poemetric.providers.base import ProviderError
    from poemetric.providers.transformers_engine import LocalModelError
    from poemetric.roster import get_model

    # An unknown name, a file or provider that cannot be used: a RosterError, a ValueError.
    spec = get_model(generator)
    suffix = {"beam": "", "delayed_beam": "_dbs", "sample": "_sample"}[search]
    api = spec.provider != "transformers"
    if api:
        suffix = "_chat"
        output_folder(run_dir, "--run")
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
            )
    except (LocalModelError, ProviderError) as error:
        raise ValueError(f"last_line: {error}") from error
    report = getattr(line_generator, "report", None)
    if report is not None:
        stored = report.already_done + report.from_cache
        say(
            f"last_line: {report.jobs} line(s) from {generator}: {stored} already in "
            f"{run_dir}, {report.called} asked now, ${report.cost_usd:.4f}"
        )
    # Failed calls gave no candidate line: said here, or the command reported "0 pairs" alone.
    failed, calls = getattr(line_generator, "failed", 0), getattr(line_generator, "calls", 0)
    if not failed:
        return pairs, None
    first = getattr(line_generator, "first_error", None)
    if failed == calls:
        raise AllCallsFailed(
            f"last_line: all {calls} calls to {generator} failed, no line was written; "
            f"first error: {first}"
        )
    return pairs, (
        f"last_line: {failed} of {calls} calls to {generator} failed, their poems got fewer "
        f"candidate lines; first error: {first}"
    )
