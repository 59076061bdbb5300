"""The lines under a stage's summary table: what was left undone and why (models that could
not run, jobs held by another process, answers not sent or not re-asked yet, errors)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape

from poemetric.runner.batch_problems import render_batch_problems
from poemetric.runner.not_run_lines import not_run_lines
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.runner.report import ModelReport, StageReport

#: Stages whose command has `--refresh-failed-parses` (named under the summary).
REFRESHING_STAGES = ("judge", "style-match")


def render_problems(report: StageReport, console: Console) -> None:
    """What was left undone and why: models that could not run, jobs held by another
    process, answers that were not sent, errors (the lines under the summary table)."""
    cannot_run = []
    for m in report.not_run:
        left = m.left_pending or m.pending
        if m.auth_status is not None or m.stopped_mid_run:
            console.print(
                f"{m.model}: {m.not_run}; {counted(left, 'job')} left for the next run",
                style="red",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
            continue
        cannot_run.append((m.model, left, m.not_run or ""))
    for line in not_run_lines(cannot_run):  # one line per cause, not one per model
        console.print(
            f"[red]{escape(line.head())}:[/red] " + escape(line.reason),  # hints: [extras]
            highlight=False,
            soft_wrap=True,
        )
    for m in report.models:
        if held := m.held_elsewhere:
            console.print(
                f"[yellow]{m.model}: {counted(held, 'job')} {plural(held, 'is', 'are')} being run "
                f"by another process on this run and {plural(held, 'was', 'were')} left to it "
                f"({escape(m.held_by or '')}). Nothing is bought "
                "twice; run the command again once it ends to pick up what it left.[/yellow]",
                highlight=False,
                soft_wrap=True,
            )
        for note in m.notes:
            console.print(f"{m.model}: {note}", highlight=False, markup=False, soft_wrap=True)
        for warning in m.warnings:
            console.print(
                f"{m.model}: warning: {warning}",
                style="yellow",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
        if not report.dry_run and (retried := retries_line(m)):
            console.print(retried, highlight=False, markup=False, soft_wrap=True)
        if m.reasks_left:
            console.print(
                f"{m.model}: {counted(m.reasks_left, 'unusable answer')} not re-asked yet: "
                f"stored as {plural(m.reasks_left, 'an error', 'errors')}, the next run "
                f"re-asks {plural(m.reasks_left, 'it', 'them')} (the answers so far from the "
                "cache, not paid again).",
                highlight=False,
                markup=False,
            )
        if empty := m.empty_answers:
            console.print(
                f"{m.model}: warning: {counted(empty, 'answer')} came back with no text "
                f"(an empty Completion.text) and {plural(empty, 'is', 'are')} stored as done: "
                "the form check and judges skip an empty poem as not a poem, and later runs do "
                "not ask again. If the service did answer, its adapter is not reading the "
                "answer's text; a model that spends its max_tokens on reasoning answers so too.",
                style="yellow",
                highlight=False,
                markup=False,
                soft_wrap=True,
            )
        if m.not_sent:
            console.print(
                f"{m.model}: {counted(m.not_sent, 'answer')} "
                f"{plural(m.not_sent, 'is not a poem', 'are not poems')} (empty, a refusal, a "
                "single line or not in Latin script): "
                "stored as not judged, not sent.",
                highlight=False,
            )
    if not report.dry_run and report.errors:
        unparsable = int(report.total("unparsable"))
        batched = int(report.total("download_failed") + report.total("abandoned"))
        ended = report.errors - unparsable - batched
        if (for_good := min(ended, int(report.total("not_retryable")))) > 0:
            console.print(
                f"[yellow]{counted(for_good, 'job')} failed with an error that sending again "
                "does not change (e.g. an HTTP 400 bad request, a refused setting); "
                f"{plural(for_good, 'it is', 'they are')} stored with "
                f"{plural(for_good, 'its', 'their')} error, and the next run sends "
                f"{plural(for_good, 'it', 'them')} again as {plural(for_good, 'it is', 'they are')}"
                ": change what the error names (the model file, its settings) first.[/yellow]"
            )
        if (transient := ended - for_good) > 0:
            console.print(
                f"[yellow]{counted(transient, 'job')} still failed after "
                f"{plural(transient, 'its', 'their')} retries (a timeout, rate limit or "
                f"server error); {plural(transient, 'it is', 'they are')} stored with "
                f"{plural(transient, 'its', 'their')} error and sent again by the next "
                "run.[/yellow]"
            )
        render_batch_problems(report, console)
        if unparsable:
            # They were "retried by the next run", which only re-parses them from the cache.
            refresh = report.stage in REFRESHING_STAGES
            console.print(
                f"[yellow]{counted(unparsable, 'answer')} could not be parsed; "
                f"{plural(unparsable, 'it is', 'they are')} stored with "
                f"the raw response, and the next run re-parses {plural(unparsable, 'it', 'them')} "
                "from the cache without "
                "asking again"
                + ("; --refresh-failed-parses pays for new answers" if refresh else "")
                + ".[/yellow]"
            )
        for m in report.models:
            if m.errors and m.first_error:
                console.print(
                    f"  {m.model}: {counted(m.errors, 'error')}, first: {m.first_error}",
                    highlight=False,
                    markup=False,
                    soft_wrap=True,
                )


def retries_line(m: ModelReport) -> str | None:
    """How often the server made the runner wait to send a call again (429s, 5xx, timeouts),
    and where the adaptive rate ended; None when it never did. The summary and the progress
    bar said nothing of it, so a throttled or failing server looked like a slow model."""
    parts = []
    if n := m.rate_limited_retries:
        parts.append(f"{counted(n, 'call')} {plural(n, 'was', 'were')} rate-limited (HTTP 429)")
    if n := m.transient_retries:
        parts.append(
            f"{counted(n, 'call')} failed transiently (HTTP 5xx, a timeout or a dropped connection)"
        )
    if not parts:
        return None
    # Counted when the wait began (the progress bar shows them meanwhile): a stop during the
    # wait (Ctrl-C, a model stopped) leaves the call for the next run, never sent again.
    line = f"{m.model}: {' and '.join(parts)}; each waited to be sent again"
    if m.rate_decreases and m.final_rate_per_s:
        per_minute = max(1, int(m.final_rate_per_s * 60))
        line += (
            f"; the request rate was lowered {counted(m.rate_decreases, 'time')}, to "
            f"{m.final_rate_per_s:.2g} requests/s (limits: requests_per_minute: {per_minute} in "
            "the model's file starts there)"
        )
    return line + "."
