"""What every scorer returns, and the shared path from text scores to verdicts."""

from __future__ import annotations

import math
import shlex
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from poemetric.probes.pairs import SCORES_FILE, Pair, PairFileError, iter_jsonl, record_kind
from poemetric.probes.scorers.cache import ScoreCache
from poemetric.providers.transformers_engine import BatchScored, SequenceScore

Verdict = Literal["correct", "wrong", "tie", "unanswered"]


class ScoreRecord(BaseModel):
    """One scored pair (one line of `probe run --output`).

    `*_logprob` are natural-log probability sums over `*_tokens` tokens, `*_mean` the per-token
    means (each sequence normalised by its own count); None for forced-choice scorers, which only
    give a verdict. Verdicts are strict: equal scores are a tie, never a success.
    """

    model_config = ConfigDict(extra="forbid")

    pair_id: str
    poem_id: str
    task: str
    scorer: str
    original_logprob: float | None = None
    corrupted_logprob: float | None = None
    original_tokens: int | None = None
    corrupted_tokens: int | None = None
    original_mean: float | None = None
    corrupted_mean: float | None = None
    verdict_sum: Verdict
    verdict_mean: Verdict
    details: dict[str, Any] = Field(default_factory=dict)
    #: `Pair.digest` of the pair scored (None in files written before it was kept).
    pair_digest: str | None = None


def compare(original: float | None, corrupted: float | None) -> Verdict:
    if original is None or corrupted is None or math.isnan(original) or math.isnan(corrupted):
        return "unanswered"
    if original > corrupted:
        return "correct"
    if original < corrupted:
        return "wrong"
    return "tie"


def record_from_scores(
    pair: Pair, scorer: str, original: SequenceScore, corrupted: SequenceScore, **details: Any
) -> ScoreRecord:
    return ScoreRecord(
        pair_id=pair.id,
        poem_id=pair.poem_id,
        task=pair.task,
        scorer=scorer,
        original_logprob=original.logprob_sum,
        corrupted_logprob=corrupted.logprob_sum,
        original_tokens=original.n_tokens,
        corrupted_tokens=corrupted.n_tokens,
        original_mean=original.mean,
        corrupted_mean=corrupted.mean,
        verdict_sum=compare(original.logprob_sum, corrupted.logprob_sum),
        verdict_mean=compare(original.mean, corrupted.mean),
        details=details,
        pair_digest=pair.digest,
    )


class Scorer(Protocol):
    name: str

    def score(self, pairs: Sequence[Pair]) -> list[ScoreRecord]: ...


TextScorer = Callable[[Sequence[str]], list[SequenceScore]]


def score_by_texts(
    pairs: Sequence[Pair], name: str, score_texts: TextScorer, **details: Any
) -> list[ScoreRecord]:
    """Score each distinct text once (an original is shared by all its pairs), then compare."""
    texts = list(dict.fromkeys(text for p in pairs for text in (p.original, p.corrupted)))
    scores = dict(zip(texts, score_texts(texts), strict=True))
    return [
        record_from_scores(pair, name, scores[pair.original], scores[pair.corrupted], **details)
        for pair in pairs
    ]


#: `score(texts, advance, scored)`: the scores of `texts`, calling `scored(indices, scores)` after
#: each batch (to keep it) and `advance(n)` (a progress bar); it loads the model if need be.
BatchTextScorer = Callable[[Sequence[str], Callable[[int], None], BatchScored], list[SequenceScore]]


def score_through_cache(
    pairs: Sequence[Pair],
    name: str,
    cache: ScoreCache | None,
    request: Mapping[str, Any] | None,
    resolve: Callable[[], dict[str, Any]],
    score: BatchTextScorer,
    *,
    progress: bool,
) -> tuple[list[ScoreRecord], dict[str, Any]]:
    """`pairs` scored by a model scorer (`hf:`, `vllm:`) through `cache`, and its identity.

    `request` is the part of the identity known without loading the model (None: not enough
    to tell, e.g. weights not found on disk); `resolve()` loads the model and gives the whole
    identity. When a run of this cache resolved the same request and stored every text under
    it, the texts are read back and nothing is loaded; otherwise `resolve()` runs first (loading
    is not scoring: before the bar starts) and each batch `score` makes is stored as it ends."""
    texts = list(dict.fromkeys(text for p in pairs for text in (p.original, p.corrupted)))
    identity = cache.recall(request) if cache is not None and request is not None else None
    if identity is None or cache is None or not cache.holds([cache.key(t) for t in texts]):
        with loading_note(name, enabled=progress):
            identity = resolve()
        if cache is not None:
            cache.bind(identity, request)

    def scored(texts: Sequence[str]) -> list[SequenceScore]:
        keys = dict(zip(texts, map(cache.key, texts), strict=True)) if cache else {}
        known = cache.lookup(list(keys.values())) if cache else {}
        rest = [text for text in texts if keys.get(text) not in known]

        def keep(indices: Sequence[int], scores: Sequence[SequenceScore]) -> None:
            if cache is not None:
                cache.store([(keys[rest[i]], s) for i, s in zip(indices, scores, strict=True)])

        with text_progress(name, len(texts), len(texts) - len(rest), enabled=progress) as step:
            new = dict(zip(rest, score(rest, step, keep) if rest else [], strict=True))
        return [new[t] if t in new else known[keys[t]] for t in texts]

    return score_by_texts(pairs, name, scored), identity


@contextmanager
def loading_note(name: str, *, enabled: bool) -> Iterator[None]:
    """`loading NAME ...` on stderr before a model loads and `NAME loaded in N s` after: loading
    SmolLM2 on two busy cores takes most of a minute before the progress bar can start, and in
    a log file nothing else would be said until the first progress line a minute later. Off
    with `--no-progress`, as the bar is."""
    if not enabled:
        yield
        return
    print(f"loading {name} ...", file=sys.stderr, flush=True)
    started = time.monotonic()
    yield
    print(f"{name} loaded in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


@contextmanager
def text_progress(
    name: str, total: int, done: int = 0, *, enabled: bool
) -> Iterator[Callable[[int], None]]:
    """`advance(n)` for `n` more of `total` texts scored by `name`, `done` of them read back from
    a `ScoreCache`: a progress bar on a terminal, in a log file a line every
    POEMETRIC_PROGRESS_EVERY seconds (`poemetric.progress_lines`), as the generate and form
    stages show theirs; nothing when not `enabled`. On stderr, as `form check` shows its
    progress: stdout carries the tables (`probe run ... > results.md`)."""
    from rich.console import Console

    from poemetric.progress_lines import progress_bar, progress_lines, rich_counts

    console = Console(emoji=False, stderr=True)
    bar = progress_bar(console, unit="texts", enabled=enabled)
    with bar, progress_lines(console, rich_counts(bar), enabled=enabled):
        task = bar.add_task(name, total=total, completed=done)
        yield lambda n: bar.advance(task, n)


class DuplicateScoreError(PairFileError):
    """A pair scored twice by one scorer (a file named twice, two runs of one scorer)."""


def read_scores(path: str, seen: dict[tuple[str, str], str] | None = None) -> list[ScoreRecord]:
    """The records of a scores file. A pair one scorer scored twice, in this file or in one read
    before with the same `seen` ((scorer, pair id) -> file:line, updated), raises
    `DuplicateScoreError`: counted twice, it doubles n and narrows every interval."""
    records = []
    known = {} if seen is None else seen
    mine: dict[tuple[str, str], str] = {}
    for number, value in iter_jsonl(path, SCORES_FILE):
        try:
            record = ScoreRecord.model_validate(value)
        except ValidationError as error:
            if record_kind(value) == "pairs":
                raise PairFileError(
                    f"{path}:{number}: a pairs file (what `probe build` writes), not a scores "
                    f"file: score it first, e.g. `poemetric probe run {shlex.quote(str(path))} --scorer ngram "
                    "--output scores.jsonl`"
                ) from error
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "record"
            raise PairFileError(f"{path}:{number}: {where}: {first['msg']}") from error
        key = (record.scorer, record.pair_id)
        if key in known or key in mine:
            raise DuplicateScoreError(
                f"{path}:{number}: pair {record.pair_id!r} was scored by {record.scorer} already "
                f"at {known.get(key) or mine[key]}: counted twice, it would double n and narrow the "
                "intervals (name each scores file once)"
            )
        mine[key] = f"{path}:{number}"
        records.append(record)
    known.update(mine)
    return records
