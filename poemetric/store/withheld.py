"""The generated answers a run holds that the provider, not the model, ended: a safety or
content filter (Gemini `SAFETY`, `RECITATION`, `PROHIBITED_CONTENT`; OpenAI `content_filter`),
a refusal (Anthropic `refusal`), or another of its stops (Gemini `OTHER`, Anthropic
`model_context_window_exceeded`), per model: any finish reason but the model's own stop and
the token limit (`poemetric.providers.finish_reasons.ended_by_provider`).

Such an answer is the provider's answer to the prompt, stored as done as every answer is: an
empty one is skipped by the form check and the judges as not a poem, one cut short is scored as
written, and a run never asks again for a poem it holds. `generate` says so under its summary,
with the finish reasons, instead of taking an empty one for an adapter that does not read its
service's text, and the analysis counts them in its run-data notes (an empty one is a failed
form check and left out of the judge and lexical measures). (A prompt blocked before any
answer, Gemini's `promptFeedback.blockReason`, is an error that the next run asks again, as a
prompt a provider refuses with HTTP 400 is.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poemetric.providers.finish_reasons import ended_by_provider
from poemetric.store import HUMAN_AUTHOR
from poemetric.store.db import RunStore
from poemetric.text.plural import plural


@dataclass(frozen=True)
class WithheldAnswers:
    """A model's stored answers (`held`: ok rows), how many of them each finish reason that
    the provider ended them with counts (`reasons`), and how many of those are `empty`."""

    author: str
    held: int
    reasons: tuple[tuple[str, int], ...]
    empty: int

    @property
    def ended(self) -> int:
        return sum(count for _, count in self.reasons)

    def counts(self) -> str:
        """`finish reason 'SAFETY': 1, empty: 1`."""
        reasons = ", ".join(
            f"finish reason {reason!r}: {count:,}" for reason, count in self.reasons
        )
        return f"{reasons}, empty: {self.empty:,}"

    def listed(self, name: str | None = None) -> str:
        """`poet: 1 of 3, finish reason 'SAFETY': 1, empty: 1`, for a list of models; `name`:
        the model as shown (its display name), default its key."""
        return f"{name or self.author}: {self.ended:,} of {self.held:,}, {self.counts()}"

    def warning(self) -> str:
        """What `generate` says under the model's summary."""
        return (
            f"{self.ended:,} of {self.held:,} {plural(self.held, 'answer', 'answers')} in the "
            f"run {plural(self.ended, 'was', 'were')} ended by the provider, not the model "
            f"({self.counts()}): a safety or content filter, a refusal, or "
            "another of the provider's stops. "
            "Stored as done, as the provider's answers: the form check and the judges skip an "
            "empty poem as not a poem and score a cut one as written, and a run never asks "
            "again for a poem it holds (generate into a new --run to ask again)."
        )


def withheld_answers(
    store: RunStore, authors: Sequence[str] | None = None
) -> list[WithheldAnswers]:
    """The models (of `authors`; None: every model) with an answer the provider ended, by
    name."""
    rows = store.query(
        "SELECT author, finish_reason, COUNT(*) AS answers, "
        "SUM(COALESCE(poem, '') = '') AS empty FROM generations "
        "WHERE status = 'ok' AND author != ? GROUP BY author, finish_reason",
        (HUMAN_AUTHOR,),
    )
    held: dict[str, int] = {}
    reasons: dict[str, list[tuple[str, int]]] = {}
    empty: dict[str, int] = {}
    for row in rows:
        author = str(row["author"])
        if authors is not None and author not in authors:
            continue
        held[author] = held.get(author, 0) + int(row["answers"])
        if ended_by_provider(row["finish_reason"]):
            reasons.setdefault(author, []).append((str(row["finish_reason"]), int(row["answers"])))
            empty[author] = empty.get(author, 0) + int(row["empty"])
    return [
        WithheldAnswers(author, held[author], tuple(sorted(reasons[author])), empty[author])
        for author in sorted(reasons)
    ]
