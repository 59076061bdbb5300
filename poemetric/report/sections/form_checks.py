"""The rule-based form check per author, and per author and form."""

from __future__ import annotations

from collections.abc import Hashable

import pandas as pd

from poemetric.analysis.form_threshold import pass_rule
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render


@section(40)
def form_checks(run: ReportRun) -> Section | None:
    table = run.table("form_checks")
    if table is None or table.empty:
        return None
    rows = [
        {**row, "label": run.labels.author(str(row["author"]))} for row in table.to_dict("records")
    ]
    by_form = run.table("form_checks_by_form")
    matrix = (
        by_form.pivot_table(index="author", columns="poem_form", values="pass_rate")
        if by_form is not None
        else None
    )
    forms = [str(c) for c in matrix.columns] if matrix is not None else []
    grid = [
        {"label": run.labels.author(str(a)), "human": a == "human",
         "cells": [matrix.at[a, f] if matrix is not None else None for f in forms]}
        for a in (table["author"] if matrix is not None else [])
        if matrix is not None and a in matrix.index
    ]  # fmt: skip
    html = render(
        "form_checks.html.j2",
        pass_rule=pass_rule(run.data.form_checks),
        rows=rows,
        forms=forms,
        grid=grid,
        errata=_records(run.table("form_checks_errata")),
        errata_rows=_records(run.table("form_checks_errata_rows")),
    )
    return Section("form-checks", "Form checks", html)


def _records(frame: pd.DataFrame | None) -> list[dict[Hashable, object]]:
    return [] if frame is None else frame.to_dict("records")
