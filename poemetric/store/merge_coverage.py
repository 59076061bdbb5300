"""What `merge` says of a stage that covers only part of the merged run: a judge run on one
store whose other stores' poems it never saw, a form check made before the other stores' poems
were merged, or, where no store recorded a stage's shards, a model that stopped partway.

The shard records (`poemetric.store.shards`) say which jobs each store ran through, of the
poems *that store* held: a judge run without `--shard` on a store holding one generation shard
records the whole judge stage, and merged with the other generation shards it covers half the
poems, which no record can tell. So after the rows are merged, the merged run itself is read:
for each evaluation stage and each of its models with results there, the poems (or, for
`judge recognise`, the human poems) it is to cover against those with a result of it, ok or
failed (a failed row is the stage's own business: its command retries it). Which poems a stage
covers is the stage's rule, above the store: `merge_runs` takes it as `coverage`
(`poemetric.stage_coverage.stage_gaps`).

Generation is checked by its shard records, and its poems are counted too, over the poems and
samples each model was asked for where its stores recorded them (`generate --limit`,
`--samples`: `poemetric.generation.coverage`), else over the merged run's prompts: where no
merged store records a shard of it (the only model of the first stage stopped partway, or a
store older than shard records) the records cannot tell; where they do, each store recorded the
model through over what it was asked *there*: its shards asked for different poems or samples
(or, unrecorded, a store prepared with a smaller `--limit`). A model sharded with `--shard K/N`
lacks part of a shard then; one run whole without a record may have been given fewer prompts on
purpose, which nothing records: it is named as unknown (`StageGap.selection_unknown`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from poemetric.store.db import RunStore
from poemetric.store.merge_started import StartedOnly, StoreActivity
from poemetric.store.probe_pairs import PairRequest
from poemetric.store.shards import (
    ANY_MODEL,
    MODEL_SHARDS_META_KEY,
    SHARDS_META_KEY,
    MissingShards,
    parse_model_shards,
    parse_shards,
    with_unattributed,
)

__all__ = ["FORM", "GENERATE", "PROBE", "StageCoverage", "StageGap", "sort_gaps"]

#: The stage whose shard records, where a store has them, decide what it lacks.
GENERATE = "generate"
#: The form check's name among the stages (`poemetric form run`; it has no model).
FORM = "form"
#: The probes' chat scorers (`probe run --scorer chat:MODEL`): their items are pairs, their
#: `authors` the pairs' tasks, their `model` the scorer (`chat:MODEL`).
PROBE = "probe"


@dataclass(frozen=True)
class StageGap:
    """Of the `total` items (poems; human poems for `judge recognise`; (prompt, sample) jobs
    for generation) a stage's `model` is to cover in a run, the `lacking` ones that hold no
    result of it, by author (`authors`: (author, count), in author order). `model` is None for the
    form check, which has no model."""

    stage: str
    model: str | None
    lacking: int
    total: int
    authors: tuple[tuple[str, int], ...] = ()
    #: Of the items that hold some result, those with fewer samples than the stage was asked
    #: for (`judge --samples`), by author, and the most samples asked of them.
    short: tuple[tuple[str, int], ...] = ()
    samples: int = 1
    #: Whether the items are those the stage was asked to cover (`poemetric.store.selections`):
    #: a gap among them is not one it was meant to leave; False for stores without the record.
    recorded: bool = False
    #: Options the stage's command must be given to cover only the lacking items, not all of them
    #: again (the form check's `--threshold` when its checks were made at another than the
    #: default), and a word on them ("" when none is needed).
    options: tuple[str, ...] = ()
    options_note: str = ""
    #: Generation: the options of each command that writes the lacking items, one per recorded
    #: selection that lacks some (`generate --limit 8` and `--limit 2 --samples 3`: one command
    #: with the widest of each would pay for poems nobody asked for); empty: `options`.
    commands: tuple[tuple[str, ...], ...] = ()
    #: The items were picked by a `--limit` in the store the stage ran in, which the same
    #: options do not pick in the merged run (its first poems are others): the gap is covered
    #: by running the stage's command there again and merging that store again.
    elsewhere: bool = False
    #: Set by `merge`: stores that hold results of the model but no shard record of the stage
    #: (it stopped partway there, or an older POEMetric wrote the store).
    unrecorded_in: tuple[Path, ...] = ()
    #: Set by `merge` for generation: every store that ran the model records it through (over
    #: the prompts and samples that store held), and `sharded` whether it ran with `--shard K/N`.
    through: bool = False
    sharded: bool = False
    #: Probes: a few of the lacking pairs' ids, and the `probe run`s that score them.
    examples: tuple[str, ...] = ()
    probe_runs: tuple[PairRequest, ...] = ()

    @property
    def selection_unknown(self) -> bool:
        """Whether the stage may have been meant to leave the lacking items, which nothing
        recorded tells: a judging stage's gap in stores written before selections were recorded
        (not one where it stopped partway, `unrecorded_in`), or a model generated whole (no
        `--shard`) and through over fewer prompts or samples than the merged run holds (a
        smaller `--limit`; not where its store recorded the poems it was asked for), or a probe
        scorer's pairs that it was not asked to score (or, in an older store, whether it was is
        unknown) but other scorers of the run hold. `merge` names it as a warning (exit 1 only
        with `--strict`)."""
        if self.stage == GENERATE:
            return self.through and not self.sharded and not self.recorded
        return self.model is not None and not self.recorded and not self.unrecorded_in


def removeprefix_chat(scorer: str | None) -> str | None:
    """The model name a chat scorer's shard and model records use (`chat:gpt-4o` -> `gpt-4o`)."""
    return None if scorer is None else scorer.removeprefix("chat:")


#: A stage's rule of coverage: the gaps of every stage and model in a run store.
StageCoverage = Callable[[RunStore], list[StageGap]]


def sort_gaps(
    store: RunStore,
    gaps: Sequence[StageGap],
    named: Sequence[MissingShards | StartedOnly],
    destination: StoreActivity,
    sources: Sequence[StoreActivity],
) -> list[StageGap]:
    """The `gaps` of the merged store that `merge` names: not those of a (stage, model) named
    already (`named`: missing shards, models only started), nor a generation gap where a store
    records the stage's shards (they decide); each with the stores that hold results of its
    model without a shard record of its stage, the destination (as it was before the merge)
    only where no source does."""
    said = {(item.stage, item.model) for item in named}
    recorded = with_unattributed(
        parse_shards(store.get_meta(SHARDS_META_KEY)),
        parse_model_shards(store.get_meta(MODEL_SHARDS_META_KEY)),
    )
    kept: list[StageGap] = []
    for gap in gaps:
        if (gap.stage, gap.model) in said:
            continue
        # A chat scorer `chat:NAME` is model NAME in the shard records: stopped partway, its
        # missing shard was named already; pairs it was never asked for were not.
        if gap.stage == PROBE and gap.recorded and (PROBE, removeprefix_chat(gap.model)) in said:
            continue
        if gap.stage == GENERATE and gap.stage in recorded:
            # Through in every store that ran it, over the prompts each held: one held fewer.
            by_model = recorded[GENERATE]
            shards = [*by_model.get(str(gap.model), []), *by_model.get(ANY_MODEL, [])]
            sharded = any(not shard.endswith("/1") for shard in shards)
            kept.append(replace(gap, through=True, sharded=sharded))
            continue
        unrecorded: tuple[Path, ...] = ()
        if gap.model is not None and gap.stage not in recorded:
            key = (gap.stage, gap.model)
            unrecorded = tuple(s.path for s in sources if key in s.partway)
            if not unrecorded and key in destination.partway:
                unrecorded = (destination.path,)
        kept.append(replace(gap, unrecorded_in=unrecorded))
    return kept
