"""What a figure function gets: the run's data for one judge, tables computed on first use."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from poemetric.analysis.data import RunData, author_order
from poemetric.analysis.lexical import lexical_summary, poem_features
from poemetric.analysis.scores import dimension_scores, form_check_scores, group_scores


class FigureSkipped(Exception):
    """The figure cannot be drawn from this run; the message says why."""


@dataclass
class FigureContext:
    """The run's data for one judge (or none), with the tables computed on first use."""

    data: RunData
    judge: str | None = None
    authors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.authors:
            self.authors = author_order(self.data.generations["author"].unique())

    @cached_property
    def judgments(self) -> pd.DataFrame:
        frame = self.data.judgments
        if self.judge is not None:
            frame = frame[frame["judge"] == self.judge]
        if frame.empty:
            raise FigureSkipped("no judgments (run `poemetric judge`)")
        return frame

    @cached_property
    def scores(self) -> pd.DataFrame:
        return dimension_scores(self.judgments)

    @cached_property
    def groups(self) -> pd.DataFrame:
        return group_scores(self.judgments)

    @cached_property
    def form_checks(self) -> pd.DataFrame:
        if self.data.form_checks.empty:
            raise FigureSkipped("no form checks (run `poemetric form run`)")
        return form_check_scores(self.data.form_checks)

    @cached_property
    def lexical(self) -> pd.DataFrame:
        return lexical_summary(poem_features(self.data.generations))

    def ordered(self, present: pd.Series | list[str]) -> list[str]:
        wanted = set(present)
        return [a for a in self.authors if a in wanted]

    def title(self, text: str) -> str:
        return f"{text} (judge: {self.judge})" if self.judge else text
