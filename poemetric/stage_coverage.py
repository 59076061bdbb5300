"""What each stage of a run covers, by the stage's own rule, and which of its poems hold no
result of it: `merge` names a stage that covers only part of the merged run (a judge run on one
store, whose other stores' poems it never saw; `poemetric.store.merge_coverage`).

A poem counts as covered by any row of the stage and model, ok or failed: a failed row is named
by the stage's own summary and retried by its command. A judging stage's poems are those its
recorded selections asked of the judge (`poemetric.store.selections`: `--authors` picked again
in the merged run, `--limit` as the poems it picked in the store it ran in), a judge's poem
covered once it has the `--samples` asked of it; a store without the record counts every poem,
one sample. Per stage:

* judge: each judge, over the poems `poemetric judge` gives it (every ok generation,
  `judgeable_generations`), at least one judgment (or a 'not_judged' row: not a poem);
* judge recognise: each judge, over the human poems (`human_poems`);
* ghostwriting style-match: each judge, over the poems that can have a trial (`style_trials`:
  their poet has another poem in a dataset of four poets or more), each poem asked its
  `--trials` times `--samples` answers (one, where the store did not record them);
* form check (no model): every ok generation, as `form run` checks them, once any is checked
  (the command carries the `--threshold` the stored checks were made at);
* generate: each model (not the human author), over the poems and samples its recorded
  selections asked of it (`--limit` as the poems it picked where it ran), else over the run's
  prompts times the samples it wrote (`poemetric.generation.coverage`).

* probe: each chat scorer (`probe run --scorer chat:MODEL`), over the pairs it was asked to
  score and the pairs the run's other scorers were (`poemetric.probes.coverage`).

The probes' last lines (`probe build --tasks last_line --generator MODEL`) answer a set of
poems given to `probe build`, not the run's: nothing of the merged run says what they are to
cover, so they are not checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from math import isclose
from typing import Any

from poemetric.generation.coverage import generation_gaps
from poemetric.judge.recognise import STAGE as RECOGNISE
from poemetric.judge.recognise import human_poems
from poemetric.judge.stage import STAGE as JUDGE
from poemetric.judge.stage import judgeable_generations
from poemetric.probes.coverage import probe_gaps
from poemetric.store import HUMAN_AUTHOR, RunStore
from poemetric.store.merge_coverage import FORM, StageGap
from poemetric.store.selections import Selection, stage_selections
from poemetric.style.stage import STAGE as STYLE_MATCH
from poemetric.style.stage import style_trials
from poemetric.text.ordering import author_order

__all__ = ["stage_gaps"]


def stage_gaps(store: RunStore) -> list[StageGap]:
    """The gaps of every stage and model with results in `store`, in the order above."""
    gaps: list[StageGap] = []
    rows = store.query("SELECT generation_id, author, poem_id FROM generations")
    authors = {str(row["generation_id"]): str(row["author"]) for row in rows}
    poem_of = {str(row["generation_id"]): str(row["poem_id"]) for row in rows}
    if judges := _owners(store, "judgments"):

        def judged(selection: Selection) -> list[str]:
            chosen = judgeable_generations(store, authors=selection.authors, limit=selection.limit)
            return [str(g["generation_id"]) for g in chosen]

        # each judge's selection is listed again by `picked` and `again`; judges share them
        picks = _Picks(cache(judged), poem_of.__getitem__)
        chosen = stage_selections(store, JUDGE)
        for judge in judges:
            done = _samples(store, "generation_id", "judgments", judge)
            gaps += picks.gap(JUDGE, judge, done, authors, chosen.get(judge))
    if judges := _owners(store, "recognitions"):
        human = [str(row["poem_id"]) for row in human_poems(store)]
        picks = _Picks(lambda s: human[: s.limit] if s.limit else human, str)
        chosen = stage_selections(store, RECOGNISE)
        for judge in judges:
            done = _samples(store, "poem_id", "recognitions", judge)
            by = dict.fromkeys(human, HUMAN_AUTHOR)
            gaps += picks.gap(RECOGNISE, judge, done, by, chosen.get(judge))
    if judges := _owners(store, "style_matches"):

        def eligible(selection: Selection) -> list[str]:  # the poems that can have a trial
            plan = style_trials(
                store, authors=selection.authors, limit=selection.limit, trials_per_poem=1
            )
            return list(dict.fromkeys(trial.generation_id for trial in plan.trials))

        # a poem is asked --trials trials of --samples answers each (one, where not recorded)
        picks = _Picks(cache(eligible), poem_of.__getitem__, trials=True)
        chosen = stage_selections(store, STYLE_MATCH)
        for judge in judges:
            done = _samples(
                store, "generation_id", "style_matches", judge, "trial_index || '/' || "
            )
            gaps += picks.gap(STYLE_MATCH, judge, done, authors, chosen.get(judge))
    if store.count("form_checks"):
        ok = store.query("SELECT generation_id FROM generations WHERE status = 'ok'")
        checked = {str(r[0]): 1 for r in store.query("SELECT generation_id FROM form_checks")}
        wanted = dict.fromkeys((str(r[0]) for r in ok), 1)
        form = _gap(FORM, None, wanted, checked, authors, None)
        gaps += [replace(gap, **_threshold_options(store)) for gap in form]
    return gaps + generation_gaps(store) + probe_gaps(store)


@dataclass(frozen=True)
class _Picks:
    """A judging stage's rule: the items (generations; human poems for recognise) a selection
    picks in the run read, and the poem of an item."""

    items: Callable[[Selection], list[str]]
    poem: Callable[[str], str]
    #: Each item asked `trials` times `samples` answers (style-match).
    trials: bool = False

    def picked(self, selection: Selection) -> list[str]:
        """The items of `selection`: with the poems its `--limit` picked where it ran, the items
        of its authors among those poems; else as its options pick them here."""
        if selection.poems is None:
            return self.items(selection)
        kept = set(selection.poems)
        return [i for i in self.items(replace(selection, limit=None)) if self.poem(i) in kept]

    def again(self, selection: Selection) -> bool:
        """Whether the selection's options pick the same poems in the run read as where it
        ran (false for a `--limit` run on one shard: the merged run's first poems are others)."""
        if selection.poems is None:
            return True
        return {self.poem(i) for i in self.items(selection)} == set(selection.poems)

    def gap(
        self,
        stage: str,
        model: str,
        done: dict[str, int],
        authors: dict[str, str],
        selections: list[Selection] | None,
    ) -> list[StageGap]:
        """The gap of `model` over the items of its recorded `selections` (none recorded: every
        item, one sample), each asked its highest `--samples`."""
        wanted: dict[str, int] = {}
        for selection in selections or [Selection()]:
            samples = selection.samples * (selection.trials if self.trials else 1)
            for item in self.picked(selection):
                wanted[item] = max(wanted.get(item, 0), samples)
        gaps = _gap(stage, model, wanted, done, authors, selections)
        if not selections or all(self.again(s) for s in selections):
            return gaps
        if len(selections) == 1:
            return [replace(gap, elsewhere=True) for gap in gaps]
        where = (
            "; a --limit of them picked poems of the store it ran in, not the first poems of this "
            "run: run that one there again and merge that store again"
        )
        return [replace(gap, options_note=gap.options_note + where) for gap in gaps]


def _threshold_options(store: RunStore) -> dict[str, Any]:
    """`form run`'s `--threshold` for the stored checks: a plain `form run` (0.7) checks every
    row made at another threshold again, not only the missing ones."""
    from poemetric.form_defaults import DEFAULT_THRESHOLD

    rows = store.query(
        "SELECT DISTINCT json_extract(explanation, '$.threshold') FROM form_checks "
        "WHERE json_valid(explanation) AND json_extract(explanation, '$.threshold') IS NOT NULL"
    )
    thresholds = sorted({float(row[0]) for row in rows})
    if not thresholds or (len(thresholds) == 1 and isclose(thresholds[0], DEFAULT_THRESHOLD)):
        return {}
    if len(thresholds) == 1:
        return {"options": (f"--threshold {thresholds[0]:g}",)}
    made = " and ".join(f"{t:g}" for t in thresholds)
    note = (
        f"its checks were made at thresholds {made}: add --threshold with the one wanted (the "
        "checks made at another are checked again too)"
    )
    return {"options_note": note}


def _owners(store: RunStore, table: str) -> list[str]:
    """The judges with rows in `table`, sorted."""
    return [str(r[0]) for r in store.query(f"SELECT DISTINCT judge FROM {table} ORDER BY judge")]


def _samples(
    store: RunStore, column: str, table: str, judge: str, within: str = ""
) -> dict[str, int]:
    """The values of `column` in the rows of `judge` in `table`, with their samples (of each
    value `within` names: style-match's trials, `trial_index || '/' || `)."""
    sql = (
        f"SELECT {column}, COUNT(DISTINCT {within}sample_index) FROM {table} WHERE judge = ? "
        f"GROUP BY {column}"
    )
    return {str(r[0]): int(r[1]) for r in store.query(sql, (judge,))}


def _gap(
    stage: str,
    model: str | None,
    wanted: dict[str, int],
    done: dict[str, int],
    authors: dict[str, str],
    selections: list[Selection] | None,
) -> list[StageGap]:
    """The gap of `model` in `stage` over the `wanted` items (item -> samples asked; none if
    every item has as many in `done`), with the options that ask for its `selections`."""
    lacking = Counter(authors.get(item, "?") for item in wanted if item not in done)
    few = {item: n for item, n in wanted.items() if 0 < done.get(item, 0) < n}
    short = Counter(authors.get(item, "?") for item in few)
    if not lacking and not short:
        return []
    gap = StageGap(
        stage,
        model,
        sum(lacking.values()),
        len(wanted),
        tuple((author, lacking[author]) for author in author_order(lacking)),
        short=tuple((author, short[author]) for author in author_order(short)),
        samples=max(few.values(), default=1),
        recorded=bool(selections),
    )
    if not selections:
        return [gap]
    asked = [selection.options(samples=stage in (JUDGE, STYLE_MATCH)) for selection in selections]
    if len(asked) == 1:
        return [replace(gap, options=asked[0])]
    each = "; ".join(" ".join(options) or "without --authors and --limit" for options in asked)
    note = f"it was run with several selections ({each}): run the command with each"
    return [replace(gap, options_note=note)]
