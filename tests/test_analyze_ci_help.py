"""`analyze --ci` switches the intervals of every table in `MEAN_TABLES`; its help named only
dimension_scores, group_scores and expert_scores, though dimension_scores_by_form,
judge_on_expert_poems and experts_on_judged_poems follow it too."""

from __future__ import annotations

import re

import typer.main

from poemetric.analysis.table_captions import MEAN_TABLES
from poemetric.cli import app


def test_the_ci_help_names_every_table_whose_intervals_it_switches() -> None:
    root = typer.main.get_command(app)
    analyze = root.get_command(typer.Context(root), "analyze")  # type: ignore[attr-defined]
    (ci,) = [p for p in analyze.params if "--ci" in getattr(p, "opts", [])]
    listed = re.search(r"\(([^)]*)\)", ci.help).group(1)  # type: ignore[union-attr]
    assert listed.split(", ") == list(MEAN_TABLES)
