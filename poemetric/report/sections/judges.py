"""Judges: how each judge behaved (the `judges` analysis table: parse failures, call errors,
refusals, re-asks, non-poems not judged, the SD of overall quality, cost), its N/A shares and
tokens, and, after `judge recognise`, how often it recognised the human poems."""

from __future__ import annotations

from poemetric.hints import stage_command
from poemetric.judge.pending import judge_option, judgment_errors
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render


@section(60)
def judges(run: ReportRun) -> Section | None:
    report = run.table("judges")
    if report is None or report.empty:
        return None
    extra = {
        str(row["judge"]): {**dict(row), "first_error": None}
        for row in run.store.query(
            """
            SELECT judge, SUM(COALESCE(input_tokens, 0)) AS input_tokens,
                   SUM(COALESCE(output_tokens, 0)) AS output_tokens,
                   AVG(CASE WHEN status = 'ok' THEN imagery = 0 END) AS imagery_na,
                   AVG(CASE WHEN status = 'ok' THEN literary_devices = 0 END) AS devices_na
            FROM judgments j GROUP BY judge
            """
        )
    }
    for error in reversed(judgment_errors(run.store).failed):  # not those pending a re-ask
        extra[str(error["judge"])]["first_error"] = error["error"]
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
    pending = [str(e["judge"]) for e in entries if int(e.get("pending_reasks", 0) or 0)]
    finish = stage_command("judge", run.run_dir, judge_option(pending))
    html = render(
        "judges.html.j2", entries=entries, recognised=recognised, pending=pending, finish=finish
    )
    return Section("judges", "Judges", html)
