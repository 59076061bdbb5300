"""What a section builder gets (the loaded run) and what it returns (a section of the page)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import pandas as pd
from markupsafe import Markup

from poemetric.analysis.data import RunData
from poemetric.analysis.labels import Labels
from poemetric.analysis.poems_only import not_poems_by_author
from poemetric.analysis.run import AnalysisResult, analyze_run
from poemetric.analysis.validation import AGREEMENT_BOOTSTRAP, BOOTSTRAP_SEED
from poemetric.store import RunStore


@dataclass(frozen=True)
class Section:
    """One part of the page. `html` must be escaped already (render it with
    `poemetric.report.render.render`, whose templates escape every value); `data` is put into
    the page's JSON under `sections[id]` for scripts; `script` is JavaScript run after the
    page's own, with `data` available as `POEMETRIC.sections[id]`. `parts` is data the page
    reads only when it needs it (the poem browser's poems, one part per prompt): part N of the
    section reaches a script through `POEMETRIC.part(id, N, done, fail)`, from the page itself
    in a one-file report or from a file beside it in a folder report (poemetric/report/parts.py).
    A part given as `bytes` is its JSON already (`render.json_for_html`'s text, UTF-8): a
    large section encodes each part as it makes it rather than hold them all as objects."""

    id: str
    title: str
    html: Markup
    data: Any = None
    script: str = ""
    parts: Sequence[Any] = ()


@dataclass
class ReportRun:
    """The run as the sections see it. Tables are computed once, on first use."""

    store: RunStore
    data: RunData
    labels: Labels
    judge: str | None = None
    experts_path: Path | None = None
    experts: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)
    n_boot: int = AGREEMENT_BOOTSTRAP
    seed: int = BOOTSTRAP_SEED
    survey: str | None = None
    exclude_failed_checks: bool = False

    @property
    def run_dir(self) -> Path:
        return self.store.run_dir

    @cached_property
    def analysis(self) -> AnalysisResult:
        return analyze_run(
            self.store,
            judge=self.judge,
            experts=self.experts_path,
            n_boot=self.n_boot,
            seed=self.seed,
            survey=self.survey,
            exclude_failed_checks=self.exclude_failed_checks,
            data=self.data,  # read once for the page (`load_report_run`), same judge
        )

    @cached_property
    def not_poems(self) -> str:
        """`Model A 2 of 10, ...`: per author, by display name, its answers that are not poems,
        which the judge, lexical and ghostwriting sections leave out ("" when none)."""
        return not_poems_by_author(self.data.generations, self.labels.author)

    def table(self, name: str) -> pd.DataFrame | None:
        return self.analysis.tables.get(name)
