"""Drawing a survey: a sample stratified by author and form, and overlapping assignments.

Everything is drawn from one seeded `random.Random`, after sorting the candidates, so the same
run, options and seed give the same survey.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

LIKERT_VALUES = (1, 2, 3, 4, 5)


class DesignError(ValueError):
    """The requested sizes cannot be met; the message says which option to change."""


@dataclass(frozen=True)
class Candidate:
    generation_id: str
    author: str
    form: str


@dataclass(frozen=True)
class Sizes:
    poems: int
    raters: int
    per_poem: int

    @property
    def loads(self) -> tuple[int, int]:
        """Fewest and most poems a rater gets."""
        total = self.poems * self.per_poem
        return total // self.raters, -(-total // self.raters)


def resolve_sizes(
    raters: int, per_poem: int, poems: int | None, per_rater: int | None, available: int
) -> Sizes:
    """Sizes from two of (poems, per_rater) and (raters, per_poem); poems x per_poem is spread
    over the raters as evenly as possible."""
    if per_poem < 2:
        raise DesignError("--per-poem must be at least 2: agreement needs overlapping raters")
    if per_poem > raters:
        raise DesignError(f"--per-poem {per_poem} needs at least {per_poem} raters, got {raters}")
    if poems is None and per_rater is None:
        raise DesignError("give --poems or --per-rater")
    if poems is None:
        assert per_rater is not None
        poems = raters * per_rater // per_poem
    elif per_rater is not None and poems * per_poem != raters * per_rater:
        raise DesignError(
            f"{poems} poems x {per_poem} raters each = {poems * per_poem} ratings, but "
            f"{raters} raters x {per_rater} poems = {raters * per_rater}; drop one of "
            "--poems / --per-rater"
        )
    if poems < 1:
        raise DesignError("the survey would have no poem; raise --per-rater or --poems")
    if poems > available:
        raise DesignError(
            f"{poems} poems requested, only {available} successful poems to draw from"
        )
    return Sizes(poems, raters, per_poem)


def stratified_sample(candidates: list[Candidate], n: int, rng: random.Random) -> list[Candidate]:
    """n poems, authors taking turns (so their counts differ by at most one while they have
    poems left); each author's turn takes the form drawn least so far, overall then by them."""
    by_author: dict[str, list[Candidate]] = {}
    for candidate in sorted(candidates, key=lambda c: c.generation_id):
        by_author.setdefault(candidate.author, []).append(candidate)
    for pool in by_author.values():
        rng.shuffle(pool)
    authors = sorted(by_author)
    rng.shuffle(authors)
    chosen: list[Candidate] = []
    form_count: Counter[str] = Counter()
    author_form: Counter[tuple[str, str]] = Counter()
    while len(chosen) < n:
        for author in authors:
            pool = by_author[author]
            if not pool or len(chosen) == n:
                continue
            pick = min(
                range(len(pool)),
                key=lambda i: (form_count[pool[i].form], author_form[(author, pool[i].form)], i),
            )
            candidate = pool.pop(pick)
            chosen.append(candidate)
            form_count[candidate.form] += 1
            author_form[(author, candidate.form)] += 1
    return chosen


def assign(
    poems: list[str], raters: list[str], per_poem: int, rng: random.Random
) -> dict[str, list[str]]:
    """Each poem to `per_poem` distinct raters: the least loaded first, then the one that has
    shared fewest poems with those already chosen (so every pair of raters overlaps, which
    rater-vs-rater agreement needs). Each rater's poems come in their own random order."""
    load: Counter[str] = Counter()
    together: Counter[frozenset[str]] = Counter()
    assigned: dict[str, list[str]] = {r: [] for r in raters}
    order = list(poems)
    rng.shuffle(order)
    for poem in order:
        chosen: list[str] = []
        for _ in range(per_poem):
            tiebreak = {r: rng.random() for r in raters}
            best = min(
                (r for r in raters if r not in chosen),
                key=lambda r: (
                    load[r],
                    sum(together[frozenset((r, c))] for c in chosen),
                    tiebreak[r],
                ),
            )
            chosen.append(best)
        for rater in chosen:
            load[rater] += 1
            assigned[rater].append(poem)
        for pair in combinations(chosen, 2):
            together[frozenset(pair)] += 1
    for rater in raters:
        rng.shuffle(assigned[rater])
    return assigned


def attention_checks(
    assigned: dict[str, list[str]], per_rater: int, rng: random.Random
) -> dict[tuple[str, int], int]:
    """(rater, position) -> the instructed answer, on `per_rater` random pages of each rater."""
    checks: dict[tuple[str, int], int] = {}
    for rater, poems in assigned.items():
        if per_rater > len(poems):
            raise DesignError(
                f"--attention-checks {per_rater} exceeds the {len(poems)} poems of rater {rater}"
            )
        for position in sorted(rng.sample(range(1, len(poems) + 1), per_rater)):
            checks[(rater, position)] = rng.choice(LIKERT_VALUES)
    return checks


def overlap(assigned: dict[str, list[str]]) -> dict[tuple[str, str], int]:
    """Poems shared by each pair of raters."""
    sets = {r: set(p) for r, p in assigned.items()}
    return {(a, b): len(sets[a] & sets[b]) for a, b in combinations(sorted(sets), 2)}
