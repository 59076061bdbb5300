"""The captions' words for the figures of the judge's scores (`poemetric.analysis.figures_scores`):
what is plotted, over how many poems, what the expert panel's bars are over and whom they leave
out, whom a radar chart names."""

from __future__ import annotations

import pandas as pd

from poemetric.analysis.author_kinds import model_word
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.matched import (
    left_out_poems,
    left_out_text,
    unscored_authors,
    unscored_text,
)
from poemetric.analysis.plotting import counted_poems
from poemetric.questionnaire import DIMENSIONS_BY_KEY
from poemetric.text.plural import counted

CI_NOTE = "whiskers: 95% CI of the mean over poems (Student t, clipped to 1-5)"
GROUP_TITLES = {
    "basic": "basic instruction-following abilities (form, theme)",
    "advanced": "advanced creative abilities",
    "appraisal": "general appraisal (overall quality, human authorship)",
    "all": "all ten dimensions",
}


def what_plotted(group: str, dimensions: list[str] | None) -> str:
    """What a caption says is plotted: the group, or the chosen dimensions in words
    (`overall quality`, not the key `overall_quality`)."""
    if not dimensions:
        return GROUP_TITLES.get(group, group)
    return ", ".join(key.replace("_", " ") for key in dimensions)


def na_note(keys: list[str], scores: pd.DataFrame | None = None) -> str:
    """` *Imagery and Devices: N/A answers left out of the mean.` for the items of `keys` that
    allow N/A; with the figure's `scores` (a `dimension_scores` frame), where some answer is
    N/A, how many poems those means are over: the caption's "over 163 poems each" counts
    every poem, and an imagery mean of the same figure was over 117 of them."""
    na = [k for k in keys if DIMENSIONS_BY_KEY[k].allows_na]
    if not na:
        return ""
    over = ""
    if scores is not None and not scores.empty:
        scored = scores[scores["dimension"].isin(na)]
        if len(scored) and (pd.to_numeric(scored["n_na"], errors="coerce") > 0).any():
            over = f", so those means are over {counted_poems(scored['n'])} per author"
    labels = " and ".join(DIMENSIONS_BY_KEY[k].label for k in na)
    return f" *{labels}: N/A answers left out of the mean{over}."


def poems_each(scores: pd.DataFrame) -> str:
    """`16 poems` (per author), `12-16 poems` when they differ, `1 poem`."""
    return counted_poems(scores.groupby("author")["n"].max())


def rated_counts(ctx: FigureContext, scores: pd.DataFrame, authors: list[str]) -> str:
    """`12 poems per author`, or each author's count (`per author: Human 12, GPT-4o 10`)."""
    counts = scores.groupby("author")["n"].max().reindex(authors).fillna(0).astype(int)
    if counts.nunique() == 1:
        return f"{counted_poems(int(counts.iloc[0]))} per author"
    return "per author: " + ", ".join(f"{ctx.label(str(a))} {n}" for a, n in counts.items())


#: The authors the experts did not rate that a caption names (then `and 23 more`).
NAMED_UNRATED = 5


def expert_text(ctx: FigureContext, authors: list[str], matched: bool) -> str:
    """What a caption says of the expert panel's bars and whom it leaves out."""
    shown = ctx.experts_shown
    assert shown is not None
    experts = f"Hatched grey bars: {counted(ctx.expert_count, 'human expert')}"
    if not matched:
        return (
            f" {experts} on the poems they rated "
            f"({counted_poems(int(shown['generation_id'].nunique()))}; authors without "
            f"expert ratings have no grey bar), not the poems of {ctx.judge_label}'s bars, which "
            "are over every poem."
        )
    beside = ctx.experts_on_judged_poems
    assert beside is not None  # with expert ratings of the authors shown
    unrated = [a for a in ctx.ordered(ctx.scores["author"]) if a not in set(beside["author"])]
    names = ctx.labels.author_list(unrated[:NAMED_UNRATED])
    more = f" and {len(unrated) - NAMED_UNRATED} more" if len(unrated) > NAMED_UNRATED else ""
    not_rated = (
        f" Not rated by the experts, so not shown: {', '.join(names)}{more}." if unrated else ""
    )
    left_out = left_out_text(left_out_poems(beside), ctx.judge_label, ctx.label)
    no_bar = unscored_text(unscored_authors(beside), ctx.judge_label, "No bars", ctx.label)
    return (
        f" {experts} on the same poems (on each item, those both an expert and "
        f"{ctx.judge_label} scored).{f' {left_out[0].upper()}{left_out[1:]}.' if left_out else ''}"
        f"{f' {no_bar}.' if no_bar else ''}{not_rated}"
    )


def radar_who(ctx: FigureContext, chosen: list[str], llms: int) -> str:
    """Whom a radar caption names: `the human poets and the best LLM by POEMetric score`
    (it said "the 1 best LLMs"); "models" where the Markov baseline is among them."""
    shown = [a for a in chosen if a != HUMAN_AUTHOR]
    shown_llms = len(shown)
    if shown_llms == 0:
        return "the human poets"
    word = model_word(ctx.data.generations, shown)
    if shown_llms == llms:  # every LLM shown: none was picked by score
        what = ctx.label(shown[0]) if llms == 1 else f"the {llms} {word}s shown"
    else:
        what = f"the best {word}" if shown_llms == 1 else f"the {shown_llms} best {word}s"
        what += " by POEMetric score"
    return f"the human poets and {what}" if HUMAN_AUTHOR in chosen else what
