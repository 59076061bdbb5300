"""Distinct poems for speed and memory benchmarks: no poem, and almost no line, is repeated.

`distinct_poems(gold, n, seed)` returns the 163 gold poems first, then poems written by the
project's Markov baseline (`poemetric.markov`, an order-1 word model trained on the lines of the
gold poems and of the public-domain evaluation corpus) for the gold poems' requests in turn
(form, metre, rhyme pattern), one new seed per poem, as a run of many generators would produce:
new lines made of the same vocabulary. Poems are generated once per (n, seed) and kept in the
user cache directory (generation is not what is measured). `line_reuse(poems)` reports how many
lines occur in more than one poem, so a benchmark can say how distinct its input really is.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from form_corpus import load_corpus
from mutations import GoldPoem

from poemetric.form.table_store import cache_dir
from poemetric.markov import MarkovModel, write_poem


@dataclass(frozen=True)
class Poem:
    id: str
    text: str
    form: str
    meter: str | None
    rhyme: str | None


def distinct_poems(gold: list[GoldPoem], n: int, seed: int = 0) -> list[Poem]:
    path = cache_dir() / f"bench-distinct-poems-{len(gold)}-{n}-{seed}.jsonl"
    if path.is_file():
        return [Poem(**json.loads(line)) for line in path.read_text().splitlines()]
    poems = [Poem(f"gold-{p.row}", p.text, p.form, p.meter, p.rhyme) for p in gold][:n]
    lines = [line for p in gold for line in p.text.splitlines() if line.strip()]
    lines += [line for c in load_corpus() for line in c.text.splitlines() if line.strip()]
    model = MarkovModel(lines, order=1)
    rng = random.Random(seed)
    k = 0
    while len(poems) < n:
        request = gold[k % len(gold)]
        text = write_poem(model, request.form, request.rhyme, request.meter, rng, candidates=6)
        poems.append(Poem(f"markov-{k}", text, request.form, request.meter, request.rhyme))
        k += 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(p.__dict__) + "\n" for p in poems))
    return poems


def line_reuse(poems: list[Poem]) -> tuple[int, int]:
    """(lines in all poems, lines that also occur in another poem)."""
    owners: Counter[str] = Counter()
    for poem in poems:
        for line in {ln.strip() for ln in poem.text.splitlines() if ln.strip()}:
            owners[line] += 1
    total = sum(owners.values())
    return total, sum(count for count in owners.values() if count > 1)
