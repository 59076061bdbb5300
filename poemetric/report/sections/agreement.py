"""Agreement of each judge with the human experts, and of the experts with each other (when
the run has expert ratings: a file given to the report, or the run's stored survey answers)."""

from __future__ import annotations

from poemetric.analysis.table_captions import AGREEMENT_CLIPPED
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render
from poemetric.report.sections_support import records


@section(70)
def agreement(run: ReportRun) -> Section | None:
    if run.experts is None:
        return None
    html = render(
        "agreement.html.j2",
        items=records(run, run.table("agreement")),
        panel=records(run, run.table("agreement_experts")),
        discrimination=records(run, run.table("discrimination"), rater="rater"),
        by_expert=records(run, run.table("agreement_by_expert")),
        experts=int(run.experts["expert"].nunique()),
        poems=int(run.experts["generation_id"].nunique()),
        resamples=f"{run.n_boot:,}" if run.n_boot > 0 else "",
        seed=run.seed,
        clipped=AGREEMENT_CLIPPED,
    )
    return Section("agreement", "Agreement with experts", html)
