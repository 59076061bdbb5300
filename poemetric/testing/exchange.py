"""What the local wire-protocol servers and their responders exchange, whatever the dialect: a
chat call and its reply, the responder contract, a logged request, an HTTP answer, and the helpers
the dialects share (token count, OpenAI strict-schema check, `Retry-After` headers)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ChatCall:
    """A generation request as the responder sees it, whatever the wire dialect."""

    api: str
    model: str
    #: Normalised conversation: {"role": "system"|"user"|"assistant", "content": str}.
    messages: list[dict[str, str]]
    #: The parsed JSON body exactly as received (for asserting on sent settings).
    body: dict[str, Any]
    #: The batch item's custom id when the call comes from a batch job.
    custom_id: str | None = None
    #: The JSON Schema of a structured-output request, whatever the dialect (OpenAI
    #: `response_format`, Anthropic `tools`, Gemini `responseJsonSchema`); None for free text.
    schema: dict[str, Any] | None = None

    @property
    def prompt(self) -> str:
        """The last user message (empty when there is none)."""
        for message in reversed(self.messages):
            if message["role"] == "user":
                return message["content"]
        return ""


@dataclass
class Reply:
    text: str
    reasoning: str | None = None
    #: Normalised: "stop" or "length"; each dialect maps it to its own vocabulary.
    finish_reason: str = "stop"
    #: A structured answer: the message content as JSON (OpenAI, Gemini) or a `tool_use` block
    #: (Anthropic, when the request offers a tool).
    structured: dict[str, Any] | None = None
    #: OpenAI only: the model declined a structured answer; the message's `refusal` holds this
    #: text and its `content` is null (as OpenAI's structured outputs answer a refusal).
    refusal: str | None = None

    def content(self) -> str:
        """The text of the answer (the structured object as JSON when there is one)."""
        if self.structured is not None:
            return json.dumps(self.structured, ensure_ascii=False)
        return self.text


def strict_schema_problems(schema: Any, where: str = "schema") -> list[str]:
    """Why a JSON Schema is not valid for OpenAI's strict mode (every object lists all its
    properties as required and sets additionalProperties to false)."""
    if not isinstance(schema, dict):
        return [f"{where} must be an object"]
    problems: list[str] = []
    properties = schema.get("properties")
    if schema.get("type") == "object" or properties is not None:
        if schema.get("additionalProperties") is not False:
            problems.append(f"{where}: 'additionalProperties' is required to be supplied and false")
        missing = sorted(set(properties or {}) - set(schema.get("required") or []))
        if missing:
            problems.append(f"{where}: 'required' must include every property; missing {missing}")
        for name, child in (properties or {}).items():
            problems += strict_schema_problems(child, f"{where}.properties.{name}")
    if "items" in schema:
        problems += strict_schema_problems(schema["items"], f"{where}.items")
    return problems


class ResponderError(Exception):
    """Raise from a responder to answer with an HTTP error (or a failed batch item)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


Responder = Callable[[ChatCall], "str | Reply"]


def echo_responder(call: ChatCall) -> Reply:
    """Default responder: a deterministic reply that names the prompt it answers."""
    return Reply(text=f"Echo: {call.prompt}")


def count_tokens(text: str | None) -> int:
    """The servers' token count: whitespace-separated words (deterministic and cheap)."""
    return len(text.split()) if text else 0


@dataclass
class RecordedRequest:
    """One request the server received and what it answered."""

    seq: int
    method: str
    path: str
    #: Header names in lower case.
    headers: dict[str, str]
    #: Parsed JSON body; raw text for non-JSON bodies; None when empty.
    body: Any
    received_at: float
    is_generation: bool = False
    status: int | None = None
    #: The JSON sent back for a successful (2xx) answer.
    response: Any = None
    #: The fault that was injected, e.g. "status:429", "slow", "truncated", "rate_limit".
    #: Answers with any fault (a "slow" one included: its client has usually given up) do not
    #: count as successful.
    fault: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300 and self.fault is None


@dataclass
class HttpAnswer:
    status: int
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    #: Close the socket after sending half of the body (Content-Length announces all of it).
    disconnect: bool = False

    @classmethod
    def json(cls, status: int, payload: Any, headers: dict[str, str] | None = None) -> HttpAnswer:
        return cls(status, json.dumps(payload).encode(), dict(headers or {}))


def retry_headers(seconds: float) -> dict[str, str]:
    """`Retry-After` (whole seconds, rounded up) and the finer `retry-after-ms`."""
    whole = max(0, math.ceil(seconds))
    return {"Retry-After": str(whole), "retry-after-ms": str(round(seconds * 1000))}
