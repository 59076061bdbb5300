"""The `last_line` task: a poem's last line replaced by a generated line that rhymes.

Two ways to generate (the limerick paper's Sec. 3.5):

- a local causal model (`provider: transformers`) continues the raw text of the poem's other
  lines, by beam search (`beam`: `beams` beams, all returned) or delayed beam search
  (`delayed_beam`: the first `sampled_tokens` tokens drawn by top-p sampling, then a beam search
  of width 5 — Massarelli et al. 2019), `attempts` times;
- any other provider is asked through its chat interface for a last line, `attempts` samples,
  through the batch runner (`poemetric.probes.chat_lines`: cached in a run store, retried,
  resumable).

A candidate is kept when it differs from the original line, its end word rhymes (perfect or
identical rhyme) with a partner of the original last line, and — as the paper's acceptance rule
asks — it ends a sentence when the original does. Lines whose last line has no rhyme partner are
skipped.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from poemetric.form.rhyme import RhymeKind
from poemetric.probes.builders import SourcePoem, ends_sentence
from poemetric.probes.pairs import Pair
from poemetric.probes.poem import Poem, RhymeSource, Token, rhyme_kind
from poemetric.providers.base import ModelSpec
from poemetric.providers.model_source import LocalModelError
from poemetric.store.db import stable_id
from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.runner.runner import RunnerOptions

Search = Literal["beam", "delayed_beam", "sample"]


@dataclass(frozen=True)
class LineRequest:
    poem_id: str
    context: str  # the poem's lines before the last one, newline-terminated
    original_line: str
    partners: tuple[str, ...]
    seed: int


class LineGenerator(Protocol):
    description: str

    def candidates(self, requests: Sequence[LineRequest]) -> list[list[str]]:
        """Candidate last lines for each request."""
        ...


def first_line(text: str) -> str:
    for line in text.replace("\r", "").split("\n"):
        cleaned = line.strip().strip("`").strip()
        if cleaned:
            return cleaned
    return ""


class LocalLineGenerator:
    """Beam or delayed-beam continuation of raw text with a local causal model."""

    def __init__(
        self,
        spec: ModelSpec,
        *,
        search: Search = "beam",
        beams: int = 8,
        attempts: int = 4,
        top_p: float = 0.9,
        sampled_tokens: int = 3,
    ) -> None:
        from poemetric.providers.transformers_provider import local_model_for

        self.model = local_model_for(spec)
        self.search = search
        self.beams, self.attempts = beams, attempts
        self.top_p, self.sampled_tokens = top_p, sampled_tokens
        self.description = f"{spec.name} ({search})"

    def candidates(self, requests: Sequence[LineRequest]) -> list[list[str]]:
        prompts = [self._prompt(request) for request in requests]
        self._refuse_too_long(requests, prompts)
        pairs = zip(requests, prompts, strict=True)
        return [self._one(request, *prompt) for request, prompt in pairs]

    def _prompt(self, request: LineRequest) -> tuple[list[int], int]:
        """The prompt's ids (the prefix token, the lines before the last) and the new-token
        budget: the original line's token count + 2 (our choice: the limerick paper gives no
        length limit, only that its fifth lines average ten tokens)."""
        model = self.model
        prompt = [model.prefix_token_id(), *model.encode([request.context])[0]]
        return prompt, len(model.encode([request.original_line])[0]) + 2

    def _refuse_too_long(
        self, requests: Sequence[LineRequest], prompts: Sequence[tuple[list[int], int]]
    ) -> None:
        """`LocalModelError` before any generation when a poem's prompt and new line do not fit
        the model's context (a GPT-2 generator stopped with an IndexError traceback)."""
        from poemetric.probes.scorers.context import model_context

        limit = model_context(self.model.model.config, self.model.tokenizer)
        if limit is None:
            return
        long = {
            request.poem_id: len(prompt) + budget
            for request, (prompt, budget) in zip(requests, prompts, strict=True)
            if len(prompt) + budget > limit
        }
        if not long:
            return
        longest = max(long, key=lambda poem: long[poem])
        shown = ", ".join(list(long)[:5]) + (f" and {len(long) - 5} more" if len(long) > 5 else "")
        raise LocalModelError(
            f"{counted(len(long), 'poem')} ({shown}) {plural(len(long), 'is', 'are')} too long "
            f"for the {limit} tokens {self.description} takes (its context): poem {longest!r} "
            f"needs {long[longest]} with its new line; build from shorter poems (`--forms "
            "limerick,sonnet`, `--limit`) or use a generator with a longer context"
        )

    def _one(self, request: LineRequest, prompt: list[int], budget: int) -> list[str]:
        model = self.model
        outputs: list[list[int]] = []
        if self.search == "beam":
            outputs = model.continuations(
                prompt,
                max_new_tokens=budget,
                num_beams=self.beams,
                num_return_sequences=self.beams,
                do_sample=False,
            )
        else:
            for attempt in range(self.attempts):
                seed = request.seed + attempt
                head = model.continuations(
                    prompt,
                    seed=seed,
                    max_new_tokens=self.sampled_tokens,
                    do_sample=True,
                    top_p=self.top_p,
                    top_k=0,
                )[0]
                if self.search == "sample":
                    tails = model.continuations(
                        prompt + head,
                        seed=seed,
                        max_new_tokens=max(1, budget - len(head)),
                        do_sample=True,
                        top_p=self.top_p,
                        top_k=0,
                    )
                else:
                    tails = model.continuations(
                        prompt + head,
                        max_new_tokens=max(1, budget - len(head)),
                        num_beams=5,
                        num_return_sequences=5,
                        do_sample=False,
                    )
                outputs.extend(head + tail for tail in tails)
        return [
            first_line(model.tokenizer.decode(ids, skip_special_tokens=True)) for ids in outputs
        ]


def generator_for(
    spec: ModelSpec,
    *,
    search: Search,
    attempts: int,
    beams: int,
    run_dir: Path = Path("runs/probes"),
    options: RunnerOptions | None = None,
) -> LineGenerator:
    """The local model's search, or an API model asked through the batch runner (`run_dir`
    holds its answers and response cache; `options` are the runner's)."""
    if spec.provider == "transformers":
        return LocalLineGenerator(spec, search=search, attempts=attempts, beams=beams)
    from poemetric.probes.chat_lines import ChatLineGenerator

    return ChatLineGenerator(spec, run_dir, attempts=attempts, options=options)


def line_requests(
    poems: Iterable[SourcePoem], seed: int, rhyme_source: RhymeSource
) -> list[tuple[Poem, LineRequest]]:
    out = []
    for source in poems:
        poem = Poem(source.poem_id, source.text, source.rhyme_pattern)
        last = poem.verse[-1]
        group = next((g for g in poem.rhyme_info(rhyme_source).groups if last in g), None)
        if group is None:
            continue
        partners = tuple(poem.end_words[line] for line in group if line != last)
        context = "\n".join(poem.lines[:last]) + "\n"
        out.append(
            (
                poem,
                LineRequest(
                    source.poem_id,
                    context,
                    poem.lines[last].strip(),
                    partners,
                    random.Random(stable_id(seed, source.poem_id, "last_line")).randrange(2**31),
                ),
            )
        )
    return out


def accept(candidate: str, request: LineRequest) -> str | None:
    """Why a candidate is rejected, or None when it is kept."""
    if not candidate:
        return "empty"
    if candidate.strip() == request.original_line:
        return "identical to the original line"
    tokens = [Token.split(part) for part in candidate.split()]
    words = [t.core for t in tokens if t.core]
    if not words:
        return "no word"
    if not any(rhyme_kind(words[-1], p) >= RhymeKind.PERFECT for p in request.partners):
        return "does not rhyme"
    if ends_sentence(request.original_line) and not ends_sentence(candidate):
        return "does not end a sentence"
    return None


#: `accept`'s verdicts as counted in `LastLineTally.why_none` ("7 not rhyming").
COUNTED_VERDICTS = {
    "empty": "empty",
    "identical to the original line": "the original line itself",
    "no word": "without a word",
    "does not rhyme": "not rhyming",
    "does not end a sentence": "not ending a sentence (as the original does)",
}


@dataclass
class LastLineTally:
    """What a build saw, to say why it kept no line: the poems, those skipped because their
    last line rhymes with no other line, and each candidate line's verdict."""

    poems: int = 0
    no_partner: int = 0
    verdicts: Counter[str] = field(default_factory=Counter)

    def why_none(self) -> str:
        """Why no pair was made, e.g. `8 candidate lines for 1 poem, none kept: 7 not rhyming,
        1 the original line itself`."""
        if self.poems and self.no_partner == self.poems:
            which = "the poem" if self.poems == 1 else f"each of the {self.poems} poems"
            return (
                f"the last line of {which} rhymes with no other line (a new last line must "
                "rhyme with one)"
            )
        asked = counted(self.poems - self.no_partner, "poem")
        total = sum(self.verdicts.values())
        skipped = (
            f"; {counted(self.no_partner, 'poem')} skipped (the last line rhymes with no other)"
            if self.no_partner
            else ""
        )
        if not total:
            return f"the generator gave no candidate line for {asked}{skipped}"
        counts = ", ".join(
            f"{n} {COUNTED_VERDICTS.get(verdict, verdict)}"
            for verdict, n in self.verdicts.most_common()
        )
        return f"{counted(total, 'candidate line')} for {asked}, none kept: {counts}{skipped}"


def build_last_line_pairs(
    poems: Iterable[SourcePoem],
    generator: LineGenerator,
    *,
    seed: int = 0,
    per_poem: int = 1,
    rhyme_source: RhymeSource = "auto",
    task: str = "last_line",
    tally: LastLineTally | None = None,
) -> list[Pair]:
    """Pairs named `task` (last_line, last_line_dbs...: the id depends on it, so pairs made by
    different searches can share one file). `tally`, when given, counts what was seen."""
    poems = list(poems)
    items = line_requests(poems, seed, rhyme_source)
    all_candidates = generator.candidates([request for _, request in items])
    if tally is not None:
        tally.poems += len(poems)
        tally.no_partner += len(poems) - len(items)
    pairs: list[Pair] = []
    for (poem, request), candidates in zip(items, all_candidates, strict=True):
        verdicts = []
        kept: list[str] = []
        for candidate in candidates:
            reason = accept(candidate, request)
            if tally is not None:
                tally.verdicts[reason or "kept"] += 1
            verdicts.append({"line": candidate, "verdict": reason or "ok"})
            if reason is None and candidate not in kept:
                kept.append(candidate)
        last = poem.verse[-1]
        indent = poem.lines[last][: len(poem.lines[last]) - len(poem.lines[last].lstrip())]
        for number, line in enumerate(kept[:per_poem]):
            pairs.append(
                Pair(
                    id=stable_id(poem.poem_id, task, seed, number),
                    poem_id=poem.poem_id,
                    task=task,
                    original=poem.text,
                    corrupted=poem.with_lines({last: indent + line}),
                    details={
                        "line": last,
                        "generated": line,
                        "partners": list(request.partners),
                        "generator": generator.description,
                        "candidates": verdicts,
                        "seed": seed,
                    },
                )
            )
    return pairs
