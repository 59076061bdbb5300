"""Every ghostwriting table of a run, for `analyze`, `poemetric ghostwriting metrics` and the
run report: `ghostwriting_tables(store)` returns them with their captions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import pandas as pd

from poemetric.analysis.labels import run_labels
from poemetric.analysis.poems_only import not_poems_note, poems_only, poems_only_caption
from poemetric.analysis.table_captions import FIXED_INTERVALS
from poemetric.ghostwriting.captions import GHOSTWRITING_CAPTIONS
from poemetric.ghostwriting.fluency import fluency_scores, load_line_annotations
from poemetric.ghostwriting.metrics import (
    DEFAULT_OPTIONS,
    GhostwritingOptions,
    author_measures,
    coverage_note,
    near_copy_note,
    not_english_note,
    poem_measures,
)
from poemetric.ghostwriting.references import dataset_references
from poemetric.ghostwriting.style_scores import load_style_matches, style_accuracy, style_positions
from poemetric.store import RunStore
from poemetric.store.measure_cache import MeasureCache
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.progress_lines import StepProgress

#: The step `ghostwriting_tables` reports to its `progress`.
MEASURES_STEP = "ghostwriting measures"


@dataclass
class GhostwritingTables:
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def load_generations(store: RunStore) -> pd.DataFrame:
    """Ok generations with a text (poems or not: `ghostwriting_tables` screens them):
    generation_id, author, poem_id, poem_form, poem."""
    return pd.read_sql_query(
        "SELECT g.generation_id, g.author, g.poem_id, p.form AS poem_form, g.poem "
        "FROM generations g JOIN poems p ON p.poem_id = g.poem_id "
        "WHERE g.status = 'ok' AND g.poem IS NOT NULL ORDER BY p.position, g.author, g.sample_index",
        store.conn,
    )


def ghostwriting_caption(name: str, left_out: str) -> str:
    """The caption of the ghostwriting table `name`, in `analyze` and `ghostwriting metrics`:
    the per-author table's with the answers it leaves out as not poems (`left_out`:
    `not_poems_by_author`, named as its rows are), and its intervals."""
    caption = GHOSTWRITING_CAPTIONS[name]
    if name == "ghostwriting":
        caption = poems_only_caption(caption, left_out)
    if note := FIXED_INTERVALS.get(name):
        caption = f"{caption}; {note}"
    return caption


def ghostwriting_tables(
    store: RunStore,
    generations: pd.DataFrame | None = None,
    options: GhostwritingOptions = DEFAULT_OPTIONS,
    progress: StepProgress | None = None,
    *,
    cache: bool = True,
    label: Callable[[str], str] | None = None,
) -> GhostwritingTables:
    """The ghostwriting tables of a run (see GHOSTWRITING_CAPTIONS); `generations` defaults to
    every ok generation of the run (`load_generations`); `progress` is told of every poem
    measured (`MEASURES_STEP`). `cache`: read the per-poem measures the run keeps
    (`poemetric.store.measure_cache`) and keep those measured here; False measures every poem,
    to the same values. `label`: each author's name in the notes, as the tables show it
    (default: the run's display names, `run_labels`)."""
    author = run_labels(store).author if label is None else label
    result = GhostwritingTables()
    generations = load_generations(store) if generations is None else generations
    # Answers that are not poems (a refusal, an empty or one-line answer) are left out, as the
    # judge stage leaves them unjudged: a refusal's rhyme density is no poem's.
    poems = poems_only(generations)
    if note := not_poems_note(generations, "the ghostwriting tables", author):
        result.notes.append(note)
    if not poems.empty:
        dataset = dataset_references(store)
        references = [*(dataset if options.dataset_references else []), *options.extra_references]
        originals = {reference.id: reference.text for reference in dataset}
        advance = partial(progress, MEASURES_STEP) if progress is not None else None
        kept = MeasureCache(store) if cache else None
        measured = poem_measures(poems, references, options, originals, advance, kept)
        result.notes += measured.notes
        result.tables["ghostwriting"] = author_measures(measured.frame)
        result.tables["ghostwriting_poems"] = measured.frame
        for note in (
            near_copy_note(measured.frame, options.threshold, author),
            not_english_note(measured.frame, author),
            coverage_note(measured.frame, generations, author),
        ):
            if note:
                result.notes.append(note)
    matches = load_style_matches(store)
    if not matches.empty:
        result.tables["style_matching"] = style_accuracy(matches)
        result.tables["style_matching_positions"] = style_positions(matches)
        unparsed = int((matches["status"] != "ok").sum())
        if unparsed:
            result.notes.append(
                f"{counted(unparsed, 'style-matching answer')} failed to parse or call and "
                f"{plural(unparsed, 'is', 'are')} left out"
            )
    annotations = load_line_annotations(store)
    if not annotations.empty:
        result.tables["fluency_coherence"] = fluency_scores(annotations)
    return result
