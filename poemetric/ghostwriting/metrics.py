"""Per-poem and per-author ghostwriting measures of a run: rhyme density (paper and Raplyzer
variants) and uniqueness against a reference corpus, with the near-copy flag."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from poemetric.ghostwriting.cached_measures import nearest_references, text_measures
from poemetric.ghostwriting.raplyzer import Phonetics
from poemetric.ghostwriting.rhyme_density import DEFAULT_WINDOW_LINES
from poemetric.ghostwriting.uniqueness import NEAR_COPY_THRESHOLD, ReferenceText, is_near_copy
from poemetric.stats import summarize
from poemetric.store import HUMAN_AUTHOR
from poemetric.text.ordering import author_order
from poemetric.text.plural import counted, plural
from poemetric.text.tokens import tokenize

if TYPE_CHECKING:
    from poemetric.progress_lines import Advance
    from poemetric.store.measure_cache import MeasureCache

POEM_COLUMNS = (
    "generation_id",
    "author",
    "poem_id",
    "poem_form",
    "syllables",
    "rhymed_syllables",
    "rhyme_density_unweighted",
    "entropy_weight",
    "rhyme_density",
    "rhyme_density_raplyzer",
    "uniqueness",
    "nearest_reference",
    "nearest_reference_id",
    "near_copy",
    "english",
)


@dataclass(frozen=True)
class GhostwritingOptions:
    """How the measures are computed; the defaults are documented in docs/ghostwriting.md."""

    #: Extra reference texts (e.g. a training-data sample) besides the dataset's human poems.
    extra_references: tuple[ReferenceText, ...] = ()
    #: Include the run's dataset poems in the reference corpus.
    dataset_references: bool = True
    #: Leave a generated poem's own original out of its reference corpus. A human poem is always
    #: compared with the other texts only.
    exclude_original: bool = False
    threshold: float = NEAR_COPY_THRESHOLD
    raplyzer_phonetics: Phonetics = "cmu"
    window_lines: int = DEFAULT_WINDOW_LINES


DEFAULT_OPTIONS = GhostwritingOptions()


@dataclass
class PoemMeasures:
    frame: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def excluded_references(
    generations: pd.DataFrame,
    references: Sequence[ReferenceText],
    options: GhostwritingOptions = DEFAULT_OPTIONS,
    originals: Mapping[str, str] | None = None,
) -> list[set[str]]:
    """The reference ids each poem is not compared with: for a human poem (and, with
    `exclude_original`, a generated one) its original — the reference with its poem id and any
    reference with the same words, such as the dataset file given again as `--reference` or a
    corpus that holds the poem. `originals` (poem id -> text) adds to the human rows' texts."""
    texts = dict(originals or {})
    for author, poem_id, poem in zip(
        generations["author"], generations["poem_id"], generations["poem"], strict=True
    ):
        if author == HUMAN_AUTHOR:
            texts.setdefault(str(poem_id), str(poem))
    by_words: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for reference in references:
        by_words[tuple(tokenize(reference.text))].add(reference.id)
    excluded: list[set[str]] = []
    for author, poem_id in zip(generations["author"], generations["poem_id"], strict=True):
        if author != HUMAN_AUTHOR and not options.exclude_original:
            excluded.append(set())
            continue
        original = texts.get(str(poem_id))
        same = by_words.get(tuple(tokenize(original)), set()) if original else set()
        excluded.append({str(poem_id), *same})
    return excluded


def poem_measures(
    generations: pd.DataFrame,
    references: Sequence[ReferenceText],
    options: GhostwritingOptions = DEFAULT_OPTIONS,
    originals: Mapping[str, str] | None = None,
    advance: Advance | None = None,
    cache: MeasureCache | None = None,
) -> PoemMeasures:
    """One row per poem (`generations`: generation_id, author, poem_id, poem_form, poem);
    `originals` (poem id -> human text) as for `excluded_references`; `advance(done, total)`
    after each poem's rhyme densities (most of the time: 6,090 poems take seconds). `cache`:
    the run's kept measures (`cached_measures`), read first and added to; the values are the
    same either way."""
    notes: list[str] = []
    texts = [str(text) for text in generations["poem"]]
    measured = text_measures(texts, options, cache, advance)
    rows: list[dict[str, object]] = [
        {
            "generation_id": poem.generation_id,
            "author": poem.author,
            "poem_id": poem.poem_id,
            "poem_form": poem.poem_form,
            "syllables": measures.syllables,
            "rhymed_syllables": measures.rhymed_syllables,
            "rhyme_density_unweighted": measures.rhyme_density_unweighted,
            "entropy_weight": measures.entropy_weight,
            "rhyme_density": measures.rhyme_density,
            "rhyme_density_raplyzer": measures.rhyme_density_raplyzer,
        }
        for poem, measures in zip(generations.itertuples(index=False), measured, strict=True)
    ]
    frame = pd.DataFrame(rows, columns=list(POEM_COLUMNS[:10]))
    if references:
        exclude = excluded_references(generations, references, options, originals)
        nearest = nearest_references(texts, exclude, references, cache)
        frame["uniqueness"] = [n.similarity for n in nearest]
        frame["nearest_reference"] = [n.reference_label for n in nearest]
        frame["nearest_reference_id"] = [n.reference_id for n in nearest]
    else:
        notes.append("uniqueness skipped: the reference corpus is empty")
        frame["uniqueness"] = math.nan
        frame["nearest_reference"] = None
        frame["nearest_reference_id"] = None
    frame["near_copy"] = [is_near_copy(s, options.threshold) for s in frame["uniqueness"]]
    # Both densities assume English pronunciations: a poem in another language is flagged.
    frame["english"] = [measures.english for measures in measured]
    return PoemMeasures(frame[list(POEM_COLUMNS)], notes)


def author_measures(poems: pd.DataFrame) -> pd.DataFrame:
    """Per author: means of the measures (t 95% CI of the paper's rhyme density) and near-copy
    counts."""
    rows: list[dict[str, object]] = []
    for author in author_order(poems["author"].unique()):
        mine = poems[poems["author"] == author]
        summary = summarize(mine["rhyme_density"].to_numpy(), domain=(0.0, 1.0))
        uniqueness = pd.to_numeric(mine["uniqueness"], errors="coerce")
        near = int(mine["near_copy"].sum())
        rows.append(
            {
                "author": author,
                "poems": len(mine),
                "rhyme_density": summary.mean,
                "rhyme_density_ci_low": summary.ci_low,
                "rhyme_density_ci_high": summary.ci_high,
                "rhyme_density_unweighted": mine["rhyme_density_unweighted"].mean(),
                "rhyme_density_raplyzer": mine["rhyme_density_raplyzer"].mean(),
                "uniqueness": uniqueness.mean(),
                "uniqueness_max": uniqueness.max(),
                "near_copies": near,
                "near_copy_share": near / len(mine) if len(mine) else math.nan,
            }
        )
    return pd.DataFrame(rows)


def _per_author(flagged: pd.DataFrame, label: Callable[[str], str]) -> str:
    """`Human 2, GPT-4o 1`: how many of the flagged poems each author (named by `label`, as the
    tables name it) has, in author order."""
    by_author = flagged["author"].value_counts()
    return ", ".join(f"{label(str(a))} {by_author[a]}" for a in author_order(by_author.index))


def not_english_note(poems: pd.DataFrame, label: Callable[[str], str] = str) -> str | None:
    """A one-line warning naming the authors (by `label`) with poems that are mostly not
    English, or None."""
    flagged = poems[~poems["english"].astype(bool)]
    if flagged.empty:
        return None
    return (
        f"{counted(len(flagged), 'poem')} {plural(len(flagged), 'is', 'are')} mostly not English: "
        f"{_per_author(flagged, label)}; both rhyme densities read every word with English "
        f"pronunciations, so {plural(len(flagged), 'its densities', 'theirs')} say little about "
        "rhyme (column "
        "`english` of ghostwriting_poems.csv; docs/ghostwriting.md)"
    )


def near_copy_note(
    poems: pd.DataFrame, threshold: float, label: Callable[[str], str] = str
) -> str | None:
    """A one-line warning naming the authors (by `label`) with near-copies, or None."""
    flagged = poems[poems["near_copy"]]
    if flagged.empty:
        return None
    return (
        f"{counted(len(flagged), 'poem')} {plural(len(flagged), 'is a near-copy', 'are near-copies')} "
        f"of a reference text (tf-idf similarity >= "
        f"{threshold:g}): {_per_author(flagged, label)}; see ghostwriting_poems.csv for the nearest texts"
    )


def coverage_note(
    poems: pd.DataFrame, answers: pd.DataFrame | None = None, label: Callable[[str], str] = str
) -> str | None:
    """A note naming the authors (by `label`) with poems for fewer of the prompts than the human row has:
    each row's means are over its own poems, so such an author (`demo --local` writes 4 sonnets
    beside 16 human poems of four forms, whose rhyme densities differ by form) was set beside
    human poems it never imitated, with nothing saying so. `answers`: every answer the poems
    were screened from (`poems_only`), so that a prompt answered only by what is not a poem (a
    refusal) is told from one not answered; it was counted as not answered ("bot 12" of a
    model that answered all 15)."""
    human = set(poems.loc[poems["author"] == HUMAN_AUTHOR, "poem_id"])
    answered = poems if answers is None else answers
    short = []
    for author in author_order(poems["author"].unique()):
        if author == HUMAN_AUTHOR:
            continue
        mine = set(poems.loc[poems["author"] == author, "poem_id"]) & human
        if len(mine) < len(human):
            asked = set(answered.loc[answered["author"] == author, "poem_id"]) & human
            why = [
                f"{len(asked - mine)} answered with no poem" if asked - mine else "",
                f"{len(human - asked - mine)} not answered" if human - asked - mine else "",
            ]
            short.append(f"{label(str(author))} {len(mine)} ({', '.join(w for w in why if w)})")
    if not short:
        return None
    return (
        f"poems for fewer of the {len(human)} prompts than the human row: {'; '.join(short)}; "
        "each author's means are over its own poems, so compare such an author with the human "
        "poems of the same prompts (ghostwriting_poems.csv, by poem_id)"
    )
