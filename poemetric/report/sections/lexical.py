"""Lexical features per author: diversity, repetition of the original against chance, imagery."""

from __future__ import annotations

from poemetric.analysis.author_kinds import generated_poem
from poemetric.analysis.lexical import MATTR_WINDOW
from poemetric.analysis.poems_only import NOT_POEM_KINDS
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render


@section(50)
def lexical(run: ReportRun) -> Section | None:
    table = run.table("lexical")
    if table is None or table.empty:
        return None
    imagery = run.table("imagery")
    images: dict[str, str] = {}
    if imagery is not None and not imagery.empty:
        for author, ranked in imagery.groupby("author", sort=False):
            top = ranked.sort_values("rank").head(6)
            images[str(author)] = ", ".join(
                f"{image} {100 * float(share):.0f}%"
                for image, share in zip(top["image"], top["poem_share"], strict=True)
            )
    rows = [
        {**row, "label": run.labels.author(str(row["author"])), "images": images.get(str(row["author"]), "")}
        for row in table.to_dict("records")
    ]  # fmt: skip
    # The table is over the answers that are poems: say which were left out, per author.
    return Section("lexical", "Lexical features",
                   render("lexical.html.j2", rows=rows, window=MATTR_WINDOW, left_out=run.not_poems,
                          not_poem_kinds=NOT_POEM_KINDS,
                          generated_poem=generated_poem(run.data.generations)))  # fmt: skip
