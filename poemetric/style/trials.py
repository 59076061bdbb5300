"""Style-matching trials (Potash, Romanov & Rumshisky, Sec. 4.1), adapted to poems.

A trial shows a judge one evaluated poem (the *reference*) and four candidates, all human poems
of the dataset: one by the poet the reference belongs to (for a generated poem, the poet of the
human original it was prompted with; for a human poem, its own poet) and three by three other
poets. The judge picks the candidate by the same poet.

* The same-poet candidate is never the reference's own original: matching a poem to its source
  would test topic recall, not style. A poem whose poet has no other poem is left out.
* Each poem gets `trials_per_poem` trials (default 4, as in the paper) with different
  candidates: the same-poet candidate rotates through the poet's other poems, and the distractor
  poets rotate so that, over the trials, the poem meets as many other poets as possible.
* Position balance: over the four trials of a poem the correct candidate stands once at A, B, C
  and D (the starting letter is drawn per poem), so a judge that prefers a letter gains nothing.
* Distractors are taken, where the other poet has one, from poems of the same form as the
  reference's original, so that form alone does not give the answer away.
* Everything is drawn from a seeded generator keyed by the poem: the same run and seed always
  give the same trials (and so the same cached answers).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from poemetric.store import stable_id
from poemetric.text.plural import counted

CHOICES = ("A", "B", "C", "D")
DEFAULT_TRIALS_PER_POEM = 4


@dataclass(frozen=True)
class PoolPoem:
    """A human poem of the dataset that can be a candidate."""

    poem_id: str
    poet: str
    form: str
    text: str


@dataclass(frozen=True)
class EvaluatedPoem:
    generation_id: str
    author: str
    poem_id: str
    text: str


@dataclass(frozen=True)
class Trial:
    trial_id: str
    generation_id: str
    trial_index: int
    target_poet: str
    reference: str
    candidates: tuple[PoolPoem, ...]
    correct_choice: str


@dataclass
class TrialPlan:
    trials: list[Trial]
    #: Evaluated poems without trials, and why.
    skipped: dict[str, str]


def trial_id_for(generation_id: str, trial_index: int, seed: int) -> str:
    return stable_id("style-trial", generation_id, trial_index, seed)


def plan_trials(
    evaluated: Sequence[EvaluatedPoem],
    pool: Sequence[PoolPoem],
    *,
    trials_per_poem: int = DEFAULT_TRIALS_PER_POEM,
    seed: int = 0,
) -> TrialPlan:
    """The trials of every evaluated poem (see the module docstring)."""
    by_id = {poem.poem_id: poem for poem in pool}
    by_poet: dict[str, list[PoolPoem]] = defaultdict(list)
    for candidate in pool:
        by_poet[candidate.poet].append(candidate)
    plan = TrialPlan([], {})
    for poem in evaluated:
        source = by_id.get(poem.poem_id)
        if source is None:
            plan.skipped[poem.generation_id] = "its original has no known poet"
            continue
        same = [p for p in by_poet[source.poet] if p.poem_id != source.poem_id]
        others = sorted(poet for poet in by_poet if poet != source.poet)
        if not same:
            plan.skipped[poem.generation_id] = f"{source.poet} has no other poem in the dataset"
            continue
        if len(others) < len(CHOICES) - 1:
            plan.skipped[poem.generation_id] = (
                f"the dataset has {counted(len(others) + 1, 'poet')}; style matching needs at least 4"
            )
            continue
        rng = random.Random(stable_id("style-plan", poem.generation_id, seed))
        rng.shuffle(others)
        start = rng.randrange(len(CHOICES))
        same_offset = rng.randrange(len(same))
        for index in range(trials_per_poem):
            distractors = [
                _pick(by_poet[others[(3 * index + k) % len(others)]], source.form, index, rng)
                for k in range(len(CHOICES) - 1)
            ]
            correct = (start + index) % len(CHOICES)
            candidates = list(distractors)
            candidates.insert(correct, same[(same_offset + index) % len(same)])
            plan.trials.append(
                Trial(
                    trial_id=trial_id_for(poem.generation_id, index, seed),
                    generation_id=poem.generation_id,
                    trial_index=index,
                    target_poet=source.poet,
                    reference=poem.text,
                    candidates=tuple(candidates),
                    correct_choice=CHOICES[correct],
                )
            )
    return plan


def _pick(poems: list[PoolPoem], form: str, index: int, rng: random.Random) -> PoolPoem:
    """One of a distractor poet's poems, of the reference's form where possible."""
    same_form = [p for p in poems if p.form == form] or poems
    return same_form[(index + rng.randrange(len(same_form))) % len(same_form)]
