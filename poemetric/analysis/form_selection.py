"""A recipe entry's `forms:`: a figure drawn from the poems of some poem forms only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pandas as pd

from poemetric.analysis.context import RunFrames
from poemetric.analysis.data import RunData
from poemetric.suggest import did_you_mean


class FormSelectionError(ValueError):
    """The run has no poem of a form the recipe names; the message names the run's forms."""


def form_list(forms: str | Sequence[str] | None) -> list[str]:
    """`sonnet`, `sonnet, villanelle` or a YAML list, as a list of form names (lower case)."""
    if forms is None:
        return []
    tokens = forms.split(",") if isinstance(forms, str) else list(forms)
    return [token.strip().lower() for token in tokens if token.strip()]


def data_of_forms(data: RunData, forms: Sequence[str]) -> RunData:
    """The run's data for poems of `forms` only (the prompts' annotated form: every author's
    poem for a sonnet prompt counts as a sonnet); a FormSelectionError names a form the run
    has no poem of, with the forms it has."""
    present = sorted(set(data.generations["poem_form"].dropna().str.lower()))
    for form in forms:
        if form not in present:
            raise FormSelectionError(
                f"the run has no {form!r} poems{did_you_mean(form, present)}; its forms: "
                + ", ".join(present)
            )

    return replace(
        data,
        generations=_of_forms(data.generations, forms),
        form_checks=_of_forms(data.form_checks, forms),
        judgments=_of_forms(data.judgments, forms),
        notes=list(data.notes),
    )


def _of_forms(frame: pd.DataFrame, forms: Sequence[str]) -> pd.DataFrame:
    """The rows of `frame` for poems of `forms` (by its `poem_form`)."""
    if frame.empty or "poem_form" not in frame:
        return frame
    return frame[frame["poem_form"].str.lower().isin(forms)].reset_index(drop=True)


def frames_of_forms(frames: dict[tuple[str, ...], RunFrames], forms: tuple[str, ...]) -> RunFrames:
    """The shared tables of the poems of `forms`, made on first use; `frames[()]`: every poem's.
    The expert ratings are those of the poems of `forms` too (an empty frame where the experts
    rated none of them: the ratings were given, not of these poems); before, the experts' bars
    and their caption counted the poems of every form beside the judge's of `forms` only."""
    if forms not in frames:
        every = frames[()]
        experts = None if every.experts is None else _of_forms(every.experts, forms)
        frames[forms] = RunFrames(data_of_forms(every.data, forms), experts, every.measures)
    return frames[forms]


def forms_caption(caption: str, forms: Sequence[str]) -> str:
    """The caption of a figure drawn from some forms only, saying so."""
    named = " and ".join([", ".join(forms[:-1]), forms[-1]] if len(forms) > 1 else forms)
    return f"{caption} Only the {named} poems (the recipe's forms:)."
