"""Judges: how each judge behaved (the `judges` analysis table: parse failures, call errors,
refusals, re-asks, non-poems not judged, the SD of overall quality, cost), its N/A shares and
tokens, and, after `judge recognise`, how often it recognised the human poems."""

from __future__ import annotations

from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render


@section(60)
def judges(run: ReportRun) -> Section | None:
    report = run.table("judges")
    if report is None or report.empty:
        return None
    extra = {
        str(row["judge"]): dict(row)
        for row in run.store.query(
            """
            SELECT judge, SUM(COALESCE(input_tokens, 0)) AS input_tokens,
                   SUM(COALESCE(output_tokens, 0)) AS output_tokens,
                   AVG(CASE WHEN status = 'ok' THEN imagery = 0 END) AS imagery_na,
                   AVG(CASE WHEN status = 'ok' THEN literary_devices = 0 END) AS devices_na,
                   (SELECT error FROM judgments e WHERE e.judge = j.judge AND e.status = 'error'
                    ORDER BY e.created_at LIMIT 1) AS first_error
            FROM judgments j GROUP BY judge
            """
        )
    }
    entries = [
        {**row, **extra.get(str(row["judge"]), {}), "label": run.labels.judge(str(row["judge"]))}
        for row in report.to_dict("records")
    ]
    recognition = run.table("recognition")
    recognised = (
        [
            {**row, "label": run.labels.judge(str(row["judge"]))}
            for row in recognition.to_dict("records")
        ]
        if recognition is not None and not recognition.empty
        else []
    )
    html = render("judges.html.j2", entries=entries, recognised=recognised)
    return Section("judges", "Judges", html)
