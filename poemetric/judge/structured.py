"""The judge's answer as a JSON Schema, for providers asked for structured output
(`structured: auto` in a judge file). The parser checks structured answers like free-text ones."""

from __future__ import annotations

from typing import Any

from poemetric.providers.base import Completion, ResponseSchema
from poemetric.questionnaire import COMMENTS, DIMENSIONS

SCHEMA_NAME = "poemetric_judgment"


def judge_answer_schema() -> dict[str, Any]:
    """Questions "1" ... "13": scores as integers of their scale (0 = N/A on items 7 and 8),
    comments as strings. Every property is required and no other is allowed (OpenAI's strict
    mode demands both)."""
    properties: dict[str, Any] = {}
    for question in range(1, 14):
        dimension = next((d for d in DIMENSIONS if d.question == question), None)
        if dimension is not None:
            low = 0 if dimension.allows_na else 1
            properties[str(question)] = {
                "type": "integer",
                "enum": list(range(low, 6)),
                "description": dimension.statement,
            }
        else:
            about = next(c.about for c in COMMENTS if c.question == question)
            properties[str(question)] = {
                "type": "string",
                "description": f"Why you gave your answer to question {about}.",
            }
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


JUDGE_RESPONSE_SCHEMA = ResponseSchema(
    name=SCHEMA_NAME,
    schema=judge_answer_schema(),
    description="Record the answers to the POEMetric questionnaire for the poem.",
)


def structured_mode(provider: str) -> str:
    """How a provider delivers structured output (stored with each judgment)."""
    return {
        "openai": "json_schema",
        "openai-compatible": "json_schema",
        "google": "response_json_schema",
        "anthropic": "tool_use",
        "vllm": "guided_json",
        "transformers": "constrained_decoding",
    }.get(provider, "json_schema")


#: The `structured` of an answer given in text where the provider offered structured output
#: without forcing it (Anthropic with extended thinking: `tool_choice` auto).
FREE_TEXT = "free_text"


def answered_mode(planned: str | None, completion: Completion) -> str | None:
    """How the answer in `completion` came, asked for with `planned` (`structured_mode`, None
    for free text): an Anthropic answer without a `tool_use` block was written as text, which
    extended thinking allows (its `tool_choice` can only be auto), so it is `FREE_TEXT`."""
    if planned != "tool_use":
        return planned
    blocks = completion.raw.get("content")
    if not isinstance(blocks, list):  # no message kept to tell by
        return planned
    used_tool = any(isinstance(block, dict) and block.get("type") == "tool_use" for block in blocks)
    return planned if used_tool else FREE_TEXT
