"""Ghostwriting measures (Potash et al.; docs/ghostwriting.md): rhyme density, Raplyzer rhyme
factor and uniqueness per author, the near-copies with their nearest reference poem, and, when the
run has them, style-matching accuracy per judge and line-level fluency / coherence grades."""

from __future__ import annotations

from typing import Any

from poemetric.analysis.poems_only import NOT_POEM_KINDS
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render

#: At most this many near-copies are listed (all are in ghostwriting_poems.csv).
NEAR_COPIES_SHOWN = 50


def _labelled(run: ReportRun, name: str, key: str = "author") -> list[dict[Any, Any]]:
    table = run.table(name)
    if table is None or table.empty:
        return []
    label = run.labels.judge if key == "judge" else run.labels.author
    return [{**row, "label": label(str(row[key]))} for row in table.to_dict("records")]


@section(65)
def ghostwriting(run: ReportRun) -> Section | None:
    from poemetric.ghostwriting.uniqueness import NEAR_COPY_THRESHOLD

    authors = _labelled(run, "ghostwriting")
    if not authors:
        return None
    poems = run.table("ghostwriting_poems")
    copies: list[dict[Any, Any]] = []
    if poems is not None and not poems.empty:
        flagged = poems[poems["near_copy"].astype(bool)].sort_values("uniqueness", ascending=False)
        copies = [
            {**row, "label": run.labels.author(str(row["author"]))}
            for row in flagged.head(NEAR_COPIES_SHOWN).to_dict("records")
        ]
        n_copies = len(flagged)
    else:
        n_copies = 0
    style = _labelled(run, "style_matching")
    for row in style:
        row["judge_label"] = run.labels.judge(str(row["judge"]))
    html = render(
        "ghostwriting.html.j2",
        authors=authors,
        copies=copies,
        n_copies=n_copies,
        threshold=NEAR_COPY_THRESHOLD,
        style=style,
        fluency=_labelled(run, "fluency_coherence"),
        left_out=run.not_poems,
        not_poem_kinds=NOT_POEM_KINDS,
    )
    return Section("ghostwriting", "Ghostwriting measures", html)
