"""Building the result rows shared by the stages that call models."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from poemetric.extraction.reasoning import split_reasoning
from poemetric.providers.base import Completion, ProviderError
from poemetric.runner.jobs import Job
from poemetric.store.db import RunStore, to_json

if TYPE_CHECKING:
    import sqlite3

    from poemetric.runner.report import ModelReport


def stored_statuses(
    store: RunStore, jobs: Sequence[Job], *, table: str, parent: str, owner: str, name: str
) -> dict[str, str]:
    """Status of the rows already stored for `jobs`, by job key.

    Rows are matched on their natural key (`parent` column, sample index) for the model `name`
    held in the `owner` column, e.g. (prompt_id, sample_index) of author 'gpt-4o'.
    """
    stored = store.query(
        f"SELECT {parent}, sample_index, status FROM {table} WHERE {owner} = ?", (name,)
    )
    by_natural_key = {(r[parent], int(r["sample_index"])): str(r["status"]) for r in stored}
    statuses: dict[str, str] = {}
    for job in jobs:
        status = by_natural_key.get((job.row[parent], job.row["sample_index"]))
        if status is not None:
            statuses[job.key] = status
    return statuses


def unanswered(
    model: ModelReport, rows: Sequence[Mapping[str, Any] | sqlite3.Row | None]
) -> tuple[int, str | None]:
    """How many of a model's jobs have no 'ok' row (`rows`: each job's stored row, None where
    none was stored), and the first one's error. A model that could not run at all (its
    `not_run`: no key, a refused key, no endpoint) and has no 'ok' row raises that one
    `ProviderError` instead of reporting every job unanswered."""
    if model.not_run and not any(row is not None and row["status"] == "ok" for row in rows):
        raise ProviderError(model.not_run, retryable=False)
    failed = [row for row in rows if row is None or row["status"] != "ok"]
    if not failed:
        return 0, None
    if failed[0] is not None:
        return len(failed), str(failed[0]["error"])
    if model.not_run:
        return len(failed), model.not_run
    if model.held_elsewhere:
        return len(failed), "left to another process using the same run store"
    return len(failed), "not answered"


def response_columns(
    job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
) -> dict[str, Any]:
    """The columns every stage stores for a response, whatever it goes on to parse."""
    return {
        **job.row,
        "provider_model": completion.provider_model or job.spec.model,
        "cache_key": job.cache_key,
        "raw_response": to_json(completion.raw),
        "response_text": completion.text,
        "input_tokens": completion.usage.input_tokens,
        "output_tokens": completion.usage.output_tokens,
        "reasoning_tokens": reasoning_tokens(completion),
        "cost_usd": cost_usd,
        "latency_s": completion.latency_s,
        "request_id": completion.request_id,
        "batch_id": batch_id,
    }


def reasoning_tokens(completion: Completion) -> int | None:
    """The reasoning tokens to store for `completion`: its count, unknown (None) where the
    provider gave none, and unknown too for a 0 beside reasoning, inline in the text (a
    `<think>` block, or text before a lone `</think>`) or in its own field: vLLM's and
    transformers' engines and many compatible servers count no reasoning, and vLLM's server
    sends `reasoning_tokens: 0` beside the reasoning of a model whose chat template opens the
    `<think>` block (DeepSeek-R1), so 0 there says nothing of it."""
    count = completion.usage.reasoning_tokens
    if count == 0 and (
        (completion.reasoning or "").strip() or split_reasoning(completion.text)[1] is not None
    ):
        return None
    return count


def error_row(job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]:
    """A failed call: kept as an 'error' row and retried by the next run."""
    return {
        **job.row,
        "status": "error",
        "provider_model": job.spec.model,
        "cache_key": job.cache_key,
        "error": error,
        "batch_id": batch_id,
    }


#: How the error of a response its stage could not parse begins (the judge re-asks such rows).
UNPARSABLE = "unparsable answer: "


class ParsedAnswerRows(ABC):
    """A result handler whose responses are parsed into columns (judging, recognition, style
    matching). A response's row holds the response columns, the model's reasoning and what
    `parse` returns, with status 'ok'; an answer `parse` rejects with one of `parse_errors` is
    kept as an 'error' row (raw response included, `unparsed` columns, error "unparsable
    answer: REASON"), which the next run re-parses from the response cache for free; a failed
    call is `error_row`."""

    table: str
    parse_errors: tuple[type[Exception], ...] = (ValueError,)

    @abstractmethod
    def parse(self, job: Job, completion: Completion) -> dict[str, Any]:
        """The columns read from a response; raises one of `parse_errors` when it cannot."""

    def unparsed(self, job: Job, completion: Completion) -> dict[str, Any]:
        """The parsed columns of an unparsable answer (their empty values)."""
        return {}

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        row: dict[str, Any] = {
            **response_columns(job, completion, cost_usd=cost_usd, batch_id=batch_id),
            "reasoning": completion.reasoning,
        }
        try:
            columns = self.parse(job, completion)
        except self.parse_errors as error:
            return {**row, **self.unparsed(job, completion), "status": "error",
                    "error": f"{UNPARSABLE}{error}"}  # fmt: skip
        return {**row, **columns, "status": "ok", "error": None}

    def error_row(self, job: Job, error: str, *, batch_id: str | None) -> dict[str, Any]:
        return error_row(job, error, batch_id=batch_id)
