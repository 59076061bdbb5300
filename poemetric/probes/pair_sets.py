"""Whether the scorers in a set of scores files were run on the same pairs (`probe report`,
and the run report's probes section).

Scores files made from different pairs files, or with `--limit` / `--tasks`, put accuracies
side by side that compare different data; only the `n` column hinted at it. A pair is known by
its id and, in files that keep it, its `pair_digest` (the digest of its two texts): two pairs
files built from another version of the poems, or with another `--rhyme-from`, can share ids
while their texts differ. Files written before the digest was kept are compared by id alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poemetric.probes.scorers.base import ScoreRecord
from poemetric.text.plural import counted, plural

PairKey = tuple[str, str | None]


@dataclass(frozen=True)
class ScorerPairs:
    """One scorer's pairs: the files it came from, how many pairs, how many not in every set."""

    scorer: str
    files: tuple[str, ...]
    pairs: int
    not_common: int


@dataclass(frozen=True)
class PairSets:
    """The scorers' pair sets compared; `differ` is False for one scorer or equal sets."""

    scorers: tuple[ScorerPairs, ...]
    common: frozenset[PairKey]
    #: Pairs whose id every scorer has but whose texts differ between scorers.
    changed: int
    #: Some file keeps no pair digest: pairs were compared by id alone.
    by_id_only: bool

    @property
    def differ(self) -> bool:
        return any(s.pairs != len(self.common) for s in self.scorers)

    def key(self, record: ScoreRecord) -> PairKey:
        return (record.pair_id, None if self.by_id_only else record.pair_digest)

    def headline(self) -> str:
        """What is wrong, in one line (before `details`)."""
        return (
            f"the {len(self.scorers)} scorers were not run on the same pairs, so their "
            "accuracies compare different data"
        )

    def details(self) -> list[str]:
        """A line per scorer (its files, its pairs, how many not every scorer scored), then how
        many pair ids name other texts and whether pairs were compared by id alone."""
        lines = [
            f"{scorer.scorer} ({', '.join(scorer.files)}): {counted(scorer.pairs, 'pair')}"
            f", {scorer.not_common} not scored by every scorer"
            for scorer in self.scorers
        ]
        if self.changed:
            lines.append(
                f"{counted(self.changed, 'pair id')} {plural(self.changed, 'names', 'name')} "
                "other texts in different files (pairs built from other poems or settings)"
            )
        if self.by_id_only:
            lines.append(
                "(a file written before scores kept their pair digest: pairs compared by id)"
            )
        return lines

    def warning(self) -> str:
        """`probe report`'s warning: the headline, then the details a line each, indented."""
        return "\n".join([f"{self.headline()}:", *(f"  {line}" for line in self.details())])


def compare_pair_sets(records: Sequence[ScoreRecord], files: Sequence[str]) -> PairSets:
    """The pair set of each scorer in `records`; `files[i]` is the file of `records[i]`."""
    by_id_only = any(record.pair_digest is None for record in records)
    keys: dict[str, set[PairKey]] = {}
    where: dict[str, dict[str, None]] = {}
    for record, file in zip(records, files, strict=True):
        digest = None if by_id_only else record.pair_digest
        keys.setdefault(record.scorer, set()).add((record.pair_id, digest))
        where.setdefault(record.scorer, {})[file] = None
    sets = list(keys.values())
    common = frozenset(set.intersection(*sets)) if sets else frozenset()
    ids = [{pair_id for pair_id, _ in pairs} for pairs in sets]
    common_ids = set.intersection(*ids) if ids else set()
    changed = len(common_ids - {pair_id for pair_id, _ in common})
    scorers = tuple(
        ScorerPairs(scorer, tuple(where[scorer]), len(pairs), len(pairs - common))
        for scorer, pairs in sorted(keys.items())
    )
    return PairSets(scorers, common, changed, by_id_only)
