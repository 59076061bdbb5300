"""What a figure function gets: the run's data for one judge, tables computed on first use."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import pandas as pd

from poemetric.analysis.attention import (
    failed_checks,
    refuse_file_screening,
    screen_raters,
    unjudged_checks,
)
from poemetric.analysis.data import HUMAN_AUTHOR, RunData, author_order
from poemetric.analysis.experts import (
    EXPERTS_JUDGE,
    experts_as_judgments,
    load_expert_ratings,
    stored_expert_ratings,
)
from poemetric.analysis.features import lexical_summary, poem_features
from poemetric.analysis.labels import Labels
from poemetric.analysis.plotting import COLUMN_WIDTHS, LABEL_LIMIT
from poemetric.analysis.scores import dimension_scores, form_check_scores, group_scores
from poemetric.hints import stage_command
from poemetric.store import RunStore


class FigureSkipped(Exception):
    """The figure cannot be drawn from this run; the message says why."""


def expert_ratings(
    store: RunStore,
    path: str | Path | None = None,
    *,
    survey: str | None = None,
    exclude_failed_checks: bool = False,
) -> pd.DataFrame | None:
    """Expert ratings from `path` when given, else the run's stored survey answers (as
    `analyze_run` reads them: those of `survey`, else of every survey, without the raters who
    failed an attention check when `exclude_failed_checks`); None when there are none."""
    return screened_expert_ratings(
        store, path, survey=survey, exclude_failed_checks=exclude_failed_checks
    )[0]


def screened_expert_ratings(
    store: RunStore,
    path: str | Path | None = None,
    *,
    survey: str | None = None,
    exclude_failed_checks: bool = False,
    where: str = "the expert tables",
) -> tuple[pd.DataFrame | None, list[str]]:
    """`expert_ratings`, and the notes `analyze` writes about the raters who failed an
    attention check: who was left out with `exclude_failed_checks`, else who failed and is kept
    in `where`; and that none is left when every rater failed."""
    notes: list[str] = []
    if path is not None:
        refuse_file_screening(path, exclude_failed_checks)
        read_as: list[str] = []  # a Windows-1252 or `;`-separated file: said in the notes
        ratings = load_expert_ratings(path, store, read_as)
        notes += [f"{path}: {warning}" for warning in read_as]
    else:
        ratings = stored_expert_ratings(store, survey)
        if not ratings.empty:
            failed = failed_checks(store, survey)
            ratings, notes = screen_raters(
                ratings,
                failed,
                exclude=exclude_failed_checks,
                where=where,
                unjudged=unjudged_checks(store, survey),
            )
            if ratings.empty:
                notes.append(f"{where} left out: every rater failed an attention check")
    return (None if ratings.empty else ratings), notes


@dataclass
class FigureContext:
    """The run's data for one judge (or none), at one printed width, for chosen authors.

    `authors`: the authors to show, in display order (default: every author of the run, human
    first); `selected_by`: what chose them, for messages (`--authors 'model-b'`), None when
    every author is shown. `experts`: expert ratings (`load_expert_ratings`), drawn as a second
    panel where a figure has one. `labels`: display names.
    """

    data: RunData
    judge: str | None = None
    authors: list[str] = field(default_factory=list)
    width: float = COLUMN_WIDTHS["two"]
    labels: Labels = field(default_factory=Labels)
    experts: pd.DataFrame | None = None
    selected_by: str | None = None

    def __post_init__(self) -> None:
        if not self.authors:
            self.authors = author_order(self.data.generations["author"].unique())
        # A name too long for the width is cut in the middle (it ran off the figure).
        self.labels = self.labels.shortened(LABEL_LIMIT)

    def _chosen(self, frame: pd.DataFrame) -> pd.DataFrame:
        return frame[frame["author"].isin(self.authors)]

    @cached_property
    def judgments(self) -> pd.DataFrame:
        frame = self.data.judgments
        if self.judge is not None:
            frame = frame[frame["judge"] == self.judge]
        frame = self._chosen(frame)
        if frame.empty:
            raise FigureSkipped(f"no judgments (run `{stage_command('judge', self.data.run_dir)}`)")
        return frame

    @cached_property
    def scores(self) -> pd.DataFrame:
        return dimension_scores(self.judgments)

    @cached_property
    def expert_scores(self) -> pd.DataFrame | None:
        """Per-author expert scores (judge = 'experts'), or None without expert ratings."""
        if self.experts is None or self.experts.empty:
            return None
        chosen = self._chosen(self.experts)
        return dimension_scores(experts_as_judgments(chosen)) if not chosen.empty else None

    @cached_property
    def expert_count(self) -> int:
        return 0 if self.experts is None else int(self.experts["expert"].nunique())

    @cached_property
    def groups(self) -> pd.DataFrame:
        return group_scores(self.judgments)

    @cached_property
    def form_checks(self) -> pd.DataFrame:
        checks = self._chosen(self.data.form_checks)
        if checks.empty:
            raise FigureSkipped(
                f"no form checks (run `{stage_command('form', self.data.run_dir)}`)"
            )
        return form_check_scores(checks)

    @cached_property
    def generations(self) -> pd.DataFrame:
        return self._chosen(self.data.generations)

    @cached_property
    def lexical(self) -> pd.DataFrame:
        return lexical_summary(poem_features(self.generations))

    def ordered(self, present: pd.Series | pd.Index | list[str]) -> list[str]:
        wanted = set(present)
        return [a for a in self.authors if a in wanted]

    def label(self, author: str) -> str:
        return self.labels.author(author)

    @property
    def judge_label(self) -> str:
        return self.labels.judge(self.judge) if self.judge else "the LLM judge"

    @property
    def human_label(self) -> str:
        return self.labels.author(HUMAN_AUTHOR)

    @property
    def experts_label(self) -> str:
        return self.labels.judge(EXPERTS_JUDGE)

    @property
    def narrow(self) -> bool:
        return self.width < 5.0
