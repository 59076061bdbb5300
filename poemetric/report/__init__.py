"""The run report: an HTML page that opens from disk (no network fetches, charts as inline SVG)
with the leaderboard, per-dimension charts, form checks, judges, agreement with experts, run
metadata and a poem browser. One self-contained file, or, for a large run, the page and its
poems in a folder beside it (`layout=`, poemetric/report/parts.py).

    from poemetric.report import build_report
    with RunStore("runs/demo", create=False) as store:
        path = build_report(store)          # runs/demo/report/index.html

The page is a list of sections. A section is a function that takes the loaded run
(`ReportRun`) and returns a `Section` (an HTML fragment, plus data for the page's scripts) or
None when the run has nothing for it. Add one by dropping a module into
`poemetric/report/sections/` that decorates its builder with `@section(order)`, or from another
package through the `poemetric.report_sections` entry-point group. See docs/report.md.
"""

from poemetric.report.build import build_report
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section, section_builders

__all__ = ["ReportRun", "Section", "build_report", "section", "section_builders"]
