"""What a figure function gets: the run's data for one judge, tables computed on first use
and shared by every figure of a command (`RunFrames`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar, cast

import pandas as pd
from pydantic import AfterValidator, Field

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
from poemetric.analysis.matched import experts_on_judged_poems, judged_as_rated
from poemetric.analysis.plotting import (
    COLUMN_WIDTHS,
    LABEL_LIMIT,
    LLM_COLOURS,
    LineStyle,
    author_colours,
    run_line_styles,
    run_palette,
)
from poemetric.analysis.poems_only import NOT_POEM_KINDS, not_poems_by_author, poems_only
from poemetric.analysis.scores import dimension_scores, form_check_scores, group_scores
from poemetric.hints import stage_command
from poemetric.questionnaire import DIMENSIONS_BY_KEY
from poemetric.store import RunStore
from poemetric.store.measure_cache import MeasureCache
from poemetric.suggest import did_you_mean
from poemetric.text.plural import plural

T = TypeVar("T")


class FigureSkipped(Exception):
    """The figure cannot be drawn from this run; the message says why."""


def known_dimensions(dimensions: list[str] | None) -> list[str] | None:
    """`dimensions` when each is a judge dimension's key; a `ValueError` naming those that
    are not."""
    unknown = [d for d in dimensions or [] if d not in DIMENSIONS_BY_KEY]
    if unknown:
        close = did_you_mean(unknown[0], DIMENSIONS_BY_KEY) if len(unknown) == 1 else ""
        raise ValueError(
            f"unknown {plural(len(unknown), 'dimension')} {', '.join(map(repr, unknown))}{close}; "
            f"use {', '.join(DIMENSIONS_BY_KEY)}"
        )
    return dimensions


#: The types of the parameters a recipe gives a figure (`k: 12`), in the figure functions'
#: signatures: a recipe is checked against them when it is read (a wrong value stopped the
#: command after the figures before it were drawn, or was a traceback).
Count = Annotated[int, Field(ge=1)]
ScoreGroup = Literal["basic", "advanced", "appraisal", "all"]
Dimensions = Annotated[list[str] | None, AfterValidator(known_dimensions)]


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
        notes += read_as  # each names the file: `FILE:LINE: ...` or `FILE: ...`
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
class RunFrames:
    """The tables computed from one run's data and expert ratings, each once per judge and set
    of authors, shared by every `FigureContext` of a command: `poemetric figures` draws each
    figure from a context of its own, and the lexical features of every poem were measured
    once per figure that showed them. `computed` counts what was computed, by table name.
    A context's tables are shared: figure functions must not change them in place.
    `measures`: the per-poem measures the run keeps between commands (the ghostwriting
    figure's), None to measure every poem."""

    data: RunData
    experts: pd.DataFrame | None = None
    measures: MeasureCache | None = None
    computed: Counter[str] = field(default_factory=Counter)
    _frames: dict[tuple[str, str | None, tuple[str, ...]], Any] = field(default_factory=dict)

    def get(self, name: str, judge: str | None, authors: list[str],
            compute: Callable[[], T]) -> T:  # fmt: skip
        """The table `name` for `judge` and `authors`, computed on first use (an exception,
        such as FigureSkipped, is raised again on the next use: nothing is kept)."""
        key = (name, judge, tuple(authors))
        if key not in self._frames:
            self._frames[key] = compute()
            self.computed[name] += 1
        return cast(T, self._frames[key])


@dataclass
class FigureContext:
    """The run's data for one judge (or none), at one printed width, for chosen authors.

    `authors`: the authors to show, in display order (default: every author of the run, human
    first); `selected_by`: what chose them, for messages (`--authors 'model-b'`), None when
    every author is shown. `experts`: expert ratings (`load_expert_ratings`), drawn as a second
    panel where a figure has one. `labels`: display names. `shared`: the tables of the other
    contexts of the command (the same `data` and `experts`); default: this context's own.
    """

    data: RunData
    judge: str | None = None
    authors: list[str] = field(default_factory=list)
    width: float = COLUMN_WIDTHS["two"]
    labels: Labels = field(default_factory=Labels)
    experts: pd.DataFrame | None = None
    selected_by: str | None = None
    shared: RunFrames | None = None

    def __post_init__(self) -> None:
        if not self.authors:
            self.authors = author_order(self.data.generations["author"].unique())
        # A name too long for the width is cut in the middle (it ran off the figure).
        self.labels = self.labels.shortened(LABEL_LIMIT)
        if self.shared is None:
            self.shared = RunFrames(self.data, self.experts)
        elif self.shared.data is not self.data or self.shared.experts is not self.experts:
            raise ValueError("shared tables of another run's data or expert ratings")

    def _table(self, name: str, compute: Callable[[], T], *, by_judge: bool = True) -> T:
        assert self.shared is not None  # set in __post_init__
        judge = self.judge if by_judge else None
        return self.shared.get(name, judge, self.authors, compute)

    @property
    def measures(self) -> MeasureCache | None:
        """The per-poem measures the run keeps between commands (`RunFrames.measures`)."""
        assert self.shared is not None  # set in __post_init__
        return self.shared.measures

    def _chosen(self, frame: pd.DataFrame) -> pd.DataFrame:
        return frame[frame["author"].isin(self.authors)]

    @property
    def judgments(self) -> pd.DataFrame:
        return self._table("judgments", self._judgments)

    def _judgments(self) -> pd.DataFrame:
        frame = self.data.judgments
        if self.judge is not None:
            frame = frame[frame["judge"] == self.judge]
        frame = self._chosen(frame)
        if frame.empty:
            raise FigureSkipped(f"no judgments (run `{stage_command('judge', self.data.run_dir)}`)")
        return frame

    @property
    def scores(self) -> pd.DataFrame:
        return self._table("scores", lambda: dimension_scores(self.judgments))

    @property
    def expert_scores(self) -> pd.DataFrame | None:
        """Per-author expert scores (judge = 'experts'), or None without expert ratings."""
        return self._table("expert_scores", self._expert_scores, by_judge=False)

    def _expert_scores(self) -> pd.DataFrame | None:
        chosen = self.experts_shown
        if chosen is None or chosen.empty:
            return None
        return dimension_scores(experts_as_judgments(chosen))

    @property
    def judge_on_expert_poems(self) -> pd.DataFrame | None:
        """The judge's per-author scores over the poems the experts rated (`judged_as_rated`),
        or None without expert ratings of the authors shown."""
        return self._table("judge_on_expert_poems", self._judge_on_expert_poems)

    def _judge_on_expert_poems(self) -> pd.DataFrame | None:
        chosen = self.experts_shown
        if chosen is None or chosen.empty:
            return None
        matched = judged_as_rated(self.judgments, chosen)
        return dimension_scores(matched) if not matched.empty else None

    @property
    def experts_on_judged_poems(self) -> pd.DataFrame | None:
        """The experts' per-author scores over the poems the judge scored too, with the poems
        left out (`matched.experts_on_judged_poems`), or None without expert ratings of the
        authors shown."""
        return self._table("experts_on_judged_poems", self._experts_on_judged_poems)

    def _experts_on_judged_poems(self) -> pd.DataFrame | None:
        chosen = self.experts_shown
        if chosen is None or chosen.empty:
            return None
        return experts_on_judged_poems(chosen, self.judgments.assign(judge=self.judge or "judge"))

    @cached_property
    def expert_count(self) -> int:
        """How many experts rated a poem of the authors shown."""
        shown = self.experts_shown
        return 0 if shown is None else int(shown["expert"].nunique())

    @property
    def experts_shown(self) -> pd.DataFrame | None:
        """The expert ratings of the authors shown, or None without expert ratings."""
        return None if self.experts is None else self._chosen(self.experts)

    @property
    def groups(self) -> pd.DataFrame:
        return self._table("groups", lambda: group_scores(self.judgments))

    @property
    def form_checks(self) -> pd.DataFrame:
        return self._table("form_checks", self._form_checks, by_judge=False)

    def _form_checks(self) -> pd.DataFrame:
        checks = self._chosen(self.data.form_checks)
        if checks.empty:
            raise FigureSkipped(
                f"no form checks (run `{stage_command('form', self.data.run_dir)}`)"
            )
        return form_check_scores(checks)

    @property
    def generations(self) -> pd.DataFrame:
        """The chosen authors' generations that are poems (`poems_only`): the lexical, word
        and ghostwriting figures measure poems, not refusals or one-line answers."""
        return self._table(
            "generations", lambda: poems_only(self._chosen(self.data.generations)), by_judge=False
        )

    def not_poems_sentence(self, left_out_of: str = "") -> str:
        """` Answers that are not poems (...) are left out: model-a 2 of 10.` for the captions
        of the figures over `generations` (`left_out_of`: " of TTR ..." where a panel keeps
        them), or "" when every answer shown is a poem."""
        listed = not_poems_by_author(self._chosen(self.data.generations), self.labels.author)
        if not listed:
            return ""
        return (
            f" Answers that are not poems ({NOT_POEM_KINDS}) are left out{left_out_of}: {listed}."
        )

    @property
    def lexical(self) -> pd.DataFrame:
        """Per-author lexical summary of the per-poem features (`poem_features`)."""
        return self._table(
            "lexical", lambda: lexical_summary(poem_features(self.generations)), by_judge=False
        )

    def ordered(self, present: pd.Series | pd.Index | list[str]) -> list[str]:
        wanted = set(present)
        return [a for a in self.authors if a in wanted]

    def label(self, author: str) -> str:
        return self.labels.author(author)

    @cached_property
    def _run_palette(self) -> dict[str, str]:
        """`run_palette` over every author of the run (not only those shown)."""
        return run_palette(self.data.generations["author"].unique())

    def colours(self, authors: Sequence[str]) -> dict[str, str]:
        """Colours of `authors`, the same in every figure of the run whichever authors it shows
        (`run_palette`: the case study's poem A took the first blue whoever wrote it, and
        `paper7` and another selection of a 30-model run coloured one model differently);
        more than 7 LLMs in one blue (`author_colours`). Per `authors` only where the run's
        palette would not tell them apart (past 30 LLMs, where its colours repeat)."""
        if all(a in self._run_palette for a in authors):
            shown = author_colours(authors, self._run_palette)
            llms = [shown[a] for a in authors if a != HUMAN_AUTHOR]
            if len(llms) > len(LLM_COLOURS) or len(set(llms)) == len(llms):
                return shown
        return author_colours(authors)

    @cached_property
    def _run_line_styles(self) -> dict[str, LineStyle]:
        """`run_line_styles` over every author of the run (not only those shown)."""
        return run_line_styles(self.data.generations["author"].unique())

    def line_styles(self, authors: Sequence[str]) -> dict[str, LineStyle]:
        """Line style and marker of `authors`, the same in every figure of the run whichever
        authors it shows, as their colours (`colours`)."""
        if all(a in self._run_line_styles for a in authors):
            return {a: self._run_line_styles[a] for a in authors}
        return run_line_styles(authors)

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
