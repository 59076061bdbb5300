"""The rows of the `judgments` table: a judge's answer parsed into the questionnaire's columns, or
re-asked while it stays unparsable (`JudgmentRows.follow_up`: the judge is told why, every turn
kept in the row's `turns` and its tokens and cost summed into the row)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from poemetric.judge.finish import cut_answer_note, finish_note
from poemetric.judge.parse import answer_outside_reasoning, is_refusal, parse_judgment
from poemetric.judge.pending import reask_due
from poemetric.judge.structured import answered_mode
from poemetric.prompts import JUDGE_REASK_TEMPLATE, bundled_template
from poemetric.providers.base import ChatMessage, Completion, ModelSpec
from poemetric.questionnaire import DIMENSION_KEYS, JudgeParseError
from poemetric.runner.jobs import Job, follow_up_cache_key
from poemetric.runner.rows import UNPARSABLE, ParsedAnswerRows, reasoning_tokens
from poemetric.store.db import to_json


class JudgmentRows(ParsedAnswerRows):
    """Result rows of the `judgments` table; unparsable answers are re-asked `reask` times."""

    table = "judgments"
    parse_errors = (JudgeParseError,)

    def __init__(self, judge: ModelSpec) -> None:
        self.judge = judge
        self.reask = judge.reask

    def ok_row(
        self, job: Job, completion: Completion, *, cost_usd: float, batch_id: str | None
    ) -> dict[str, Any]:
        row = super().ok_row(job, completion, cost_usd=cost_usd, batch_id=batch_id)
        earlier = _turns(job)
        for column in _SUMMED_OVER_TURNS:  # every turn was paid
            row[column] = (row[column] or 0) + sum(turn.get(column) or 0 for turn in earlier)
        counts = [row["reasoning_tokens"], *(turn.get("reasoning_tokens", 0) for turn in earlier)]
        # A turn whose provider gave no figure (None) leaves the sum unknown, not short.
        row["reasoning_tokens"] = None if None in counts else sum(counts)
        row["structured"] = answered_mode(job.row.get("structured"), completion)
        return row

    def parse(self, job: Job, completion: Completion) -> dict[str, Any]:
        try:
            parsed = parse_judgment(completion.text)
        except JudgeParseError as error:
            ending = finish_note(completion, job.request.settings)
            if ending is None:
                raise
            raise JudgeParseError(f"{error}; {ending}", [*error.problems, ending]) from error
        columns = parsed.answer.to_columns()
        cut = cut_answer_note(completion, job.request.settings)
        return {
            **columns,
            "parsed": to_json(columns),
            "parse_notes": to_json([*parsed.notes, *([cut] if cut else [])]),
            "refusal": 0,
        }

    def unparsed(self, job: Job, completion: Completion) -> dict[str, Any]:
        return {
            **dict.fromkeys(DIMENSION_KEYS),
            "parsed": None,
            "parse_notes": None,
            "refusal": int(is_refusal(completion.text)),
        }

    def follow_up(
        self, job: Job, completion: Completion, row: dict[str, Any], *, cost_usd: float
    ) -> Job | None:
        """Re-ask an unparsable answer, telling the judge why it could not be used. `cost_usd`:
        what the answer cost this judgment (0 for one served from another file's cache)."""
        error = str(row.get("error") or "")
        if not reask_due(error, job.turn, self.reask):
            return None
        turns = [
            *_turns(job),
            {
                "turn": job.turn,
                "response_text": completion.text,
                "error": error,
                "refusal": int(is_refusal(completion.text)),
                "finish_reason": completion.finish_reason,
                "reasoning": completion.reasoning,
                "cost_usd": cost_usd,
                "input_tokens": completion.usage.input_tokens,
                "output_tokens": completion.usage.output_tokens,
                "reasoning_tokens": reasoning_tokens(completion),
            },
        ]
        # The judge sees its answer again without its reasoning (an inline <think> block):
        # reasoning is never sent back as part of an answer.
        answer = answer_outside_reasoning(completion.text)
        messages = (
            *job.request.messages,
            ChatMessage(role="assistant", content=answer or "(no answer)"),
            ChatMessage(role="user", content=reask_prompt(error.removeprefix(UNPARSABLE))),
        )
        request = dataclasses.replace(job.request, messages=messages)
        row_fields = {**job.row, "reasks": job.turn + 1, "turns": to_json(turns)}
        return Job(
            job.key,
            job.spec,
            request,
            follow_up_cache_key(job.cache_key, request),
            row_fields,
            turn=job.turn + 1,
        )


#: Columns that add up every turn of a re-asked judgment (each turn was paid); so does
#: `reasoning_tokens`, unknown (None) when any turn's is.
_SUMMED_OVER_TURNS = ("cost_usd", "input_tokens", "output_tokens")


def reask_prompt(reason: str) -> str:
    return bundled_template(JUDGE_REASK_TEMPLATE).text.replace("{error}", reason).strip()


def _turns(job: Job) -> list[dict[str, Any]]:
    stored = job.row.get("turns")
    return list(json.loads(stored)) if stored else []
