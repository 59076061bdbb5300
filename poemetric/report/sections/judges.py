"""Judges: how many answers each judge gave and failed, its score spread, its cost."""

from __future__ import annotations

from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render


@section(60)
def judges(run: ReportRun) -> Section | None:
    rows = run.store.query(
        """
        SELECT judge, COUNT(*) AS total, SUM(status = 'ok') AS ok, SUM(status != 'ok') AS failed,
               SUM(COALESCE(cost_usd, 0)) AS cost, SUM(COALESCE(input_tokens, 0)) AS input_tokens,
               SUM(COALESCE(output_tokens, 0)) AS output_tokens,
               AVG(CASE WHEN status = 'ok' THEN overall_quality END) AS quality_mean,
               AVG(CASE WHEN status = 'ok' THEN imagery = 0 END) AS imagery_na,
               AVG(CASE WHEN status = 'ok' THEN literary_devices = 0 END) AS devices_na,
               MIN(created_at) AS first, MAX(created_at) AS last,
               (SELECT error FROM judgments e WHERE e.judge = j.judge AND e.status != 'ok'
                ORDER BY e.created_at LIMIT 1) AS first_error
        FROM judgments j GROUP BY judge ORDER BY judge
        """
    )
    if not rows:
        return None
    judgments = run.data.judgments
    sds: dict[str, float] = {}
    if len(judgments):
        spread = judgments.groupby("judge")["overall_quality"].std()
        sds = {str(judge): float(sd) for judge, sd in spread.items()}
    entries = [
        {**dict(row), "label": run.labels.judge(str(row["judge"])),
         "quality_sd": sds.get(str(row["judge"]), float("nan"))}
        for row in rows
    ]  # fmt: skip
    return Section("judges", "Judges", render("judges.html.j2", entries=entries))
