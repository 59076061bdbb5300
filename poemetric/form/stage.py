"""Pipeline stage: rule-based form check of every successful generation in a run store.

Each generation is checked against the form, metre and rhyme pattern of the dataset poem its
prompt came from, and the verdict is stored in ``form_checks``. Re-running skips rows already
checked by the same checker version at the same threshold (unless ``force``) and replaces
older verdicts, verdicts made at another threshold, and rows the checker could not assess. The
version a verdict records is `CHECKER_VERSION`, with the digest of the user lexicon it was
made with, if any (`poemetric.form.user_lexicon.recorded_version`): verdicts made with another
lexicon, or with one when none is given now, are checked again.

A generation whose text is not a poem of the requested form at all (empty, a single line, not in
Latin script, e.g. a refusal) *fails* the check with scores 0: leaving it out as "unchecked" would
raise its author's pass rate. Only a request the checker cannot read (unknown form, unreadable
rhyme pattern) leaves `passed` NULL; a metre it cannot read leaves the metre unscored (since
form-2.10: it left the whole poem unchecked).

Human poems whose data row has a dataset erratum also get the verdict against the corrected
annotation, stored apart under `errata` in the explanation (`poemetric.form.errata_verdicts`);
the default verdict is always the one against the annotation as released.
"""

from __future__ import annotations

import math
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rich import get_console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from poemetric.data.errata import errata_for_run
from poemetric.form import user_lexicon
from poemetric.form.checker import CHECKER_VERSION, DEFAULT_THRESHOLD, check_poem
from poemetric.form.errata_verdicts import (
    CorrectedAnnotation,
    annotation_with_errata,
    errata_key,
    errata_verdict,
)
from poemetric.form.parallel import map_in_order, resolve_jobs
from poemetric.progress_lines import draws_bars, progress_lines, rich_counts
from poemetric.store.db import RunStore

if TYPE_CHECKING:
    from rich.console import Console

    from poemetric.form.user_lexicon import UserLexicon

_PENDING_SQL = """
SELECT g.generation_id, g.author, g.poem, g.response_text, p.form, p.meter, p.rhyme,
       p.position, p.content,
       f.checker_version AS checked_version, f.passed AS checked_passed,
       json_extract(f.explanation, '$.threshold') AS checked_threshold,
       json_extract(f.explanation, '$.error_kind') AS checked_error_kind,
       json_extract(f.explanation, '$.errata.key') AS checked_errata
FROM generations AS g
JOIN poems AS p ON p.poem_id = g.poem_id
LEFT JOIN form_checks AS f ON f.generation_id = g.generation_id
WHERE g.status = 'ok'
ORDER BY g.generation_id
"""


@dataclass
class FormStageReport:
    checked: int = 0
    skipped: int = 0
    errors: int = 0
    #: Rows checked again because their stored verdict was made with another user lexicon (or
    #: with one, and none is given now, or the other way round).
    other_lexicon: int = 0
    passed_by_author: Counter[str] = field(default_factory=Counter)
    total_by_author: Counter[str] = field(default_factory=Counter)

    def count(self, author: str, passed: int | None) -> None:
        """One verdict: `passed` None is a row left unchecked (an error), else 0 or 1."""
        self.checked += 1
        if passed is None:
            self.errors += 1
        else:
            self.total_by_author[author] += 1
            self.passed_by_author[author] += passed

    def pass_rate(self, author: str) -> float:
        total = self.total_by_author[author]
        return self.passed_by_author[author] / total if total else 0.0


def run_form_stage(
    store: RunStore,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    progress: bool = True,
    force: bool = False,
    jobs: int = 1,
    console: Console | None = None,
    lexicon: UserLexicon | None = None,
) -> FormStageReport:
    """Check every 'ok' generation and save the verdicts; returns counts per author.

    `jobs`: worker processes (0 = one per 1,000 pending rows, up to the CPUs; 1 = this process;
    see `poemetric.form.parallel`). Verdicts are saved as they arrive, in generation order.
    `progress`: a progress bar on `console` (default: rich's) while rows are being checked, or
    where no bar can be drawn (a log file) a line now and then (`poemetric.progress_lines`).
    `lexicon`: a user lexicon to check with (`poemetric.form.user_lexicon`; default: the one in
    use, if any).
    """
    if lexicon is not None:
        with user_lexicon.using(lexicon):
            return run_form_stage(
                store,
                threshold=threshold,
                progress=progress,
                force=force,
                jobs=jobs,
                console=console,
            )
    version = user_lexicon.recorded_version()
    rows = store.query(_PENDING_SQL)
    errata = errata_for_run(store)
    report = FormStageReport()
    tasks: list[_Task] = []
    authors: dict[str, str] = {}
    for row in rows:
        fixed = annotation_with_errata(errata, row)
        errata_current = fixed is None or row["checked_errata"] == errata_key(fixed)
        if not force and errata_current and _is_current(row, threshold, version):
            report.skipped += 1
            continue
        report.other_lexicon += _other_lexicon(row["checked_version"], version)
        text = row["poem"] if row["poem"] is not None else row["response_text"] or ""
        tasks.append(
            _Task(
                row["generation_id"],
                text,
                row["form"],
                row["meter"],
                row["rhyme"],
                threshold,
                fixed,
            )
        )
        authors[row["generation_id"]] = row["author"]
    workers = resolve_jobs(jobs, len(tasks))
    console = console or get_console()
    shown = progress and bool(tasks)
    bar = Progress(
        TextColumn("form check" + (f" ({workers} processes)" if workers > 1 else "")),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not shown or not draws_bars(console),
    )
    # In a log file: a line now and then instead of the bar.
    lines = progress_lines(console, rich_counts(bar), enabled=shown)
    with bar, lines:
        task = bar.add_task("form check", total=len(tasks))
        for verdict in map_in_order(_verdict, tasks, jobs=workers):
            store.save_form_check(verdict)
            report.count(authors[verdict["generation_id"]], verdict["passed"])
            bar.advance(task)
    return report


def stored_report(store: RunStore) -> FormStageReport:
    """The verdicts stored for the run's 'ok' generations, counted as `run_form_stage` counts the
    rows it checks (`checked` = rows with a stored verdict; `errors` = those left unchecked)."""
    report = FormStageReport()
    for row in store.query(
        "SELECT g.author, f.passed FROM generations AS g "
        "JOIN form_checks AS f ON f.generation_id = g.generation_id WHERE g.status = 'ok'"
    ):
        report.count(row["author"], row["passed"])
    return report


@dataclass(frozen=True)
class _Task:
    """What a worker needs to check one generation (plain data: it crosses processes)."""

    generation_id: str
    text: str
    form: str
    meter: str | None
    rhyme: str | None
    threshold: float
    fixed: CorrectedAnnotation | None


def _verdict(task: _Task) -> dict[str, Any]:
    """The `form_checks` record of one generation."""
    result = check_poem(task.text, task.form, task.meter, task.rhyme, threshold=task.threshold)
    unassessable = result.error is not None and result.error_kind != "text"
    return {
        "generation_id": task.generation_id,
        "checker_version": result.checker_version,  # with the user lexicon's digest
        "passed": None if unassessable else int(result.passed),
        # A text that is not a poem scores 0.0 in `check_poem` itself, as in `form check`.
        "meter_score": result.meter_score,
        "rhyme_score": result.rhyme_score,
        "form_score": result.form_score,
        "explanation": {
            "summary": result.summary,
            "issues": [issue.model_dump() for issue in result.explanation],
            "facts": result.facts,
            "threshold": task.threshold,
            "error_kind": result.error_kind,
            **(
                {"errata": errata_verdict(task.text, task.fixed, task.threshold)}
                if task.fixed is not None
                else {}
            ),
        },
        "error": result.error,
    }


def _other_lexicon(stored: str | None, version: str) -> bool:
    """Whether a stored verdict of this checker was made with another user lexicon (or none)."""
    return stored is not None and stored != version and stored.split("+")[0] == CHECKER_VERSION


def _is_current(row: sqlite3.Row, threshold: float, version: str) -> bool:
    """A stored verdict this run would repeat: same checker version (user lexicon included)
    and threshold.

    A NULL verdict stored before errors had a kind (an empty or one-line text left unchecked
    instead of failed) is not current either.
    """
    stored_threshold = row["checked_threshold"]
    return (
        row["checked_version"] == version
        and (row["checked_passed"] is not None or row["checked_error_kind"] is not None)
        and stored_threshold is not None
        and math.isclose(float(stored_threshold), threshold)
    )
