"""Pipeline stage: rule-based form check of every successful generation in a run store.

Each generation is checked against the form, metre and rhyme pattern of the dataset poem its
prompt came from, and the verdict is stored in ``form_checks``. Re-running skips rows already
checked by the same `CHECKER_VERSION` (unless ``force``) and replaces older verdicts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from poemetric.form.checker import CHECKER_VERSION, DEFAULT_THRESHOLD, check_poem
from poemetric.store.db import RunStore

_PENDING_SQL = """
SELECT g.generation_id, g.author, g.poem, g.response_text, p.form, p.meter, p.rhyme,
       f.checker_version AS checked_version
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
    passed_by_author: Counter[str] = field(default_factory=Counter)
    total_by_author: Counter[str] = field(default_factory=Counter)

    def pass_rate(self, author: str) -> float:
        total = self.total_by_author[author]
        return self.passed_by_author[author] / total if total else 0.0


def run_form_stage(
    store: RunStore,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    progress: bool = True,
    force: bool = False,
) -> FormStageReport:
    """Check every 'ok' generation and save the verdicts; returns counts per author."""
    rows = store.query(_PENDING_SQL)
    report = FormStageReport()
    todo = []
    for row in rows:
        if not force and row["checked_version"] == CHECKER_VERSION:
            report.skipped += 1
        else:
            todo.append(row)
    with Progress(
        TextColumn("form check"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        disable=not progress,
    ) as bar:
        task = bar.add_task("form", total=len(todo))
        for row in todo:
            text = row["poem"] if row["poem"] is not None else row["response_text"]
            result = check_poem(
                text or "", row["form"], row["meter"], row["rhyme"], threshold=threshold
            )
            store.save_form_check(
                {
                    "generation_id": row["generation_id"],
                    "checker_version": CHECKER_VERSION,
                    "passed": None if result.error else int(result.passed),
                    "meter_score": result.meter_score,
                    "rhyme_score": result.rhyme_score,
                    "form_score": result.form_score,
                    "explanation": {
                        "summary": result.summary,
                        "issues": [issue.model_dump() for issue in result.explanation],
                        "facts": result.facts,
                        "threshold": threshold,
                    },
                    "error": result.error,
                }
            )
            report.checked += 1
            if result.error:
                report.errors += 1
            else:
                report.total_by_author[row["author"]] += 1
                report.passed_by_author[row["author"]] += int(result.passed)
            bar.advance(task)
    return report
