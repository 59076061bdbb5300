"""Which of a run's (prompt, sample) jobs each model has no row for, ok or error: what `merge`
names of the generate stage (`poemetric.store.merge_coverage`; it decides by the shard records
where a store has them, these counts say how many and which command writes them).

A model whose store recorded what it was asked (`generate` records each model's `--limit`, the
poems it picked there and `--samples`: `poemetric.store.selections`) is counted over those
poems, each with the samples asked of it, the union of its selections in the merged stores (a
`--shard K/N` of a pilot `--limit 4` on a run of 8 poems is asked for 4 poems in every shard's
store); a selection without `--limit` over the merged run's prompts. A model with no record (a
store older than the record) is counted over the run's prompts times the samples it wrote (its
highest sample index, plus one).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from poemetric.generation.stage import STAGE, prompt_rows
from poemetric.hints import recorded_dataset
from poemetric.store import HUMAN_AUTHOR, RunStore
from poemetric.store.merge_coverage import StageGap
from poemetric.store.selections import Selection, stage_selections

__all__ = ["generation_gaps"]


@dataclass(frozen=True)
class _Prompts:
    """The run's prompts in dataset order, with their poems."""

    order: list[tuple[str, str]]  # (prompt_id, poem_id)
    #: `--dataset` for the run's own dataset (a plain `generate` reads the bundled demo).
    dataset: tuple[str, ...] = ()

    @property
    def poems(self) -> int:
        return len({poem for _, poem in self.order})

    def picked(self, selection: Selection) -> list[str]:
        """The prompts of `selection`: of the poems its `--limit` picked where it ran, else
        the first `--limit` poems here (every prompt without one)."""
        if selection.poems is not None:
            kept = set(selection.poems)
            return [prompt for prompt, poem in self.order if poem in kept]
        return self.first(selection.limit)

    def first(self, limit: int | None) -> list[str]:
        """The prompts `generate --limit N` picks here (every prompt with None)."""
        poems = list(dict.fromkeys(poem for _, poem in self.order))
        kept = set(poems if limit is None else poems[:limit])
        return [prompt for prompt, poem in self.order if poem in kept]

    def options(self, selection: Selection) -> tuple[str, ...]:
        """The options that ask for `selection` on this run (without `--limit`, its prompts:
        the run keeps them without it too, and a bigger --limit would widen it)."""
        if selection.limit is None:
            return (*self.dataset, f"--limit {self.poems}", *selection.options())
        return (*self.dataset, *selection.options())


def generation_gaps(store: RunStore) -> list[StageGap]:
    """Each model's (prompt, sample) jobs without a row, by the rule above, in name order."""
    spec = recorded_dataset(store)
    prompts = _Prompts(
        [(str(row["prompt_id"]), str(row["poem_id"])) for row in prompt_rows(store)],
        () if spec in (None, "demo") else (f"--dataset {shlex.quote(str(spec))}",),
    )
    held: dict[str, dict[str, set[int]]] = {}
    for row in store.query(
        "SELECT DISTINCT author, prompt_id, sample_index FROM generations WHERE author != ?",
        (HUMAN_AUTHOR,),
    ):
        by_prompt = held.setdefault(str(row["author"]), {})
        by_prompt.setdefault(str(row["prompt_id"]), set()).add(int(row["sample_index"]))
    chosen = stage_selections(store, STAGE)
    gaps = []
    for author in sorted(held):
        gap = (
            _recorded_gap(author, held[author], prompts, selections)
            if (selections := chosen.get(author))
            else _unrecorded_gap(author, held[author], prompts)
        )
        gaps += [gap] if gap else []
    return gaps


def _recorded_gap(
    author: str, done: dict[str, set[int]], prompts: _Prompts, selections: list[Selection]
) -> StageGap | None:
    """`author`'s gap over the poems and samples its `selections` asked for; the command of
    each selection that lacks some (one with the widest options would pay for others)."""
    wanted: dict[str, int] = {}
    lacking_in: list[Selection] = []
    for selection in selections:
        picked = prompts.picked(selection)
        for prompt in picked:
            wanted[prompt] = max(wanted.get(prompt, 0), selection.samples)
        if any(_missing(done, prompt, selection.samples) for prompt in picked):
            lacking_in.append(selection)
    lacking = sum(_missing(done, prompt, samples) for prompt, samples in wanted.items())
    if not lacking:
        return None
    commands = tuple(prompts.options(s) for s in lacking_in)
    # A --limit picks the first poems of the run it is given: here, others than where it ran
    # only if the merged run's first poems are others (not one run's shards).
    elsewhere = any(
        s.poems is not None and set(prompts.first(s.limit)) != set(prompts.picked(s))
        for s in lacking_in
    )
    total = sum(wanted.values())
    return StageGap(
        STAGE,
        author,
        lacking,
        total,
        ((author, lacking),),
        # a selection without --limit was asked for the prompts its store held, which may be
        # fewer than the merged run's on purpose: as unrecorded (`selection_unknown`)
        recorded=all(s.limit is not None for s in lacking_in),
        options=commands[0],
        commands=commands,
        elsewhere=elsewhere,
    )


def _unrecorded_gap(author: str, done: dict[str, set[int]], prompts: _Prompts) -> StageGap | None:
    """`author`'s gap over the run's prompts times the samples it wrote."""
    samples = 1 + max((max(indexes) for indexes in done.values()), default=0)
    total = len(prompts.order) * samples
    lacking = sum(_missing(done, prompt, samples) for prompt, _ in prompts.order)
    if not lacking:
        return None
    options = prompts.options(Selection(samples=samples))
    return StageGap(STAGE, author, lacking, total, ((author, lacking),), options=options)


def _missing(done: dict[str, set[int]], prompt: str, samples: int) -> int:
    """How many of samples 0..samples-1 of `prompt` have no row."""
    return samples - len({index for index in done.get(prompt, ()) if index < samples})
