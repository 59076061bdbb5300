"""Local HTTP servers on 127.0.0.1 that speak each remote provider's wire protocol.

They let the real SDKs (openai, anthropic, google-genai) — and the batch runner above them — be
tested end to end without network access or API keys, including the failures real APIs produce.

Servers
-------
``OpenAIServer``     ``POST /v1/chat/completions``, ``/v1/files`` (multipart upload, ``GET
                     /v1/files/{id}[/content]``, ``DELETE /v1/files/{id}``), ``/v1/batches``
                     (create, retrieve, list, cancel).
                     ``expose_reasoning_content=True`` makes it a DeepSeek-style server
                     (``message.reasoning_content``); ``refuse_batch_metadata=(status, body)``
                     answers a batch create that sends ``metadata`` so, as an OpenAI-compatible
                     batch API without it does (the batch is not created). Reasoning models (``o1``, ``o3``, ``o4``,
                     ``gpt-5`` prefixes) reject ``max_tokens`` and a non-default ``temperature``
                     with 400, as the real API does.
``AnthropicServer``  ``POST /v1/messages`` (thinking blocks when the reply has reasoning and the
                     request enables thinking; 400 when ``max_tokens`` is missing or the thinking
                     budget is not below it) and ``/v1/messages/batches`` (create, retrieve,
                     results JSONL, cancel).
``GeminiServer``     ``POST /v1beta/models/{model}:generateContent`` (thought parts when
                     ``thinkingConfig.includeThoughts``), ``:batchGenerateContent`` with inline
                     requests, ``GET /v1beta/batches/{id}`` and the list ``GET /v1beta/batches``.

Common constructor arguments (keyword-only after ``responder``)::

    Server(responder=None, *, faults=None, latency_s=0.0, rate_limit_rps=None,
           batch_polls_in_progress=1, api_key=None, batch_faults=None)

- ``responder(call: ChatCall) -> str | Reply``: called for every generation (and batch item);
  ``ChatCall`` has ``api``, ``model``, ``messages`` (normalised role/content dicts), ``body`` (the
  JSON as received), ``custom_id`` (batch items) and ``prompt`` (last user message). ``Reply`` has
  ``text``, ``reasoning`` and ``finish_reason`` ("stop" | "length"). Raise
  ``ResponderError(status, message)`` to answer with an HTTP error (a failed item in a batch).
  Default: ``echo_responder`` ("Echo: <prompt>"). It runs in handler threads: keep it thread-safe.
- ``faults``: a ``FaultPlan(script=[...], random_faults=[(Fault, p), ...], seed=0)`` or just a
  script list. Each generation request takes the next scripted entry (``None`` = answer normally),
  then a seeded random draw. ``Fault.rate_limited(retry_after_s)`` (429 + ``Retry-After`` and
  ``retry-after-ms``), ``Fault.server_error(500|502|503|504)``, ``Fault.overloaded()`` (529),
  ``Fault.client_error(400|401|...)``, ``Fault.quota_exceeded(code)`` (OpenAI's
  429 ``insufficient_quota``), ``Fault.slow(delay_s)`` (answers after the delay — beyond a
  client's timeout), ``Fault.truncated()`` (200 with half a JSON body), ``Fault.invalid_json()``,
  ``Fault.disconnect()`` (socket closed mid-body). ``FaultWindow(fault, duration_s, start_s=0,
  then=None)`` gives every request of a time window (from the first request on) `fault` (an
  outage); ``RateLimitStorm(duration_s, ...)`` answers them 429, each told to come back when the
  window ends.
- Structured output: ``ChatCall.schema`` is the requested JSON Schema whatever the dialect
  (OpenAI ``response_format`` json_schema, checked for strict mode like the real API; Anthropic
  ``tools``, with 400 for a forced ``tool_choice`` under extended thinking; Gemini
  ``responseJsonSchema``/``responseSchema``, with 400 without ``responseMimeType``
  ``application/json``). ``Reply(text="", structured={...})`` answers with that object: as the
  message content (OpenAI, Gemini) or as a ``tool_use`` block (Anthropic, when tools were sent).
- ``latency_s``: added to every generation. ``rate_limit_rps``: more generation requests than this
  in any one-second window are answered 429 with ``Retry-After``.
- ``batch_polls_in_progress``: status polls that still report a new batch as running.
- ``batch_faults``: like ``faults``, for the batch API's submissions and status polls (an
  adapter's ``batch_results`` may poll the status too), in the order they arrive. A ``slow``,
  ``truncated``, ``invalid_json`` or ``disconnect`` submission is accepted all the same: the batch
  exists although the client never read its id.
- ``api_key``: when set, other keys get 401 (Gemini: 400 INVALID_ARGUMENT with an ErrorInfo
  reason ``API_KEY_INVALID``, as the real API answers a wrong key).

Usage::

    with OpenAIServer(faults=[Fault.rate_limited(2.0), None]) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="test", max_retries=0)
        ...
        assert len(server.generation_requests) == 2
        assert server.duplicate_successes() == []

Log (thread-safe, each a copy): ``requests`` (every ``RecordedRequest``: ``seq``, ``method``,
``path``, ``headers``, ``body``, ``received_at``, ``is_generation``, ``status``, ``response`` (JSON
of a successful answer), ``fault``, ``succeeded``), ``generation_requests``,
``successful_generations``, ``duplicate_successes()`` (bodies answered successfully more than
once), ``clear_log()``, ``wait_for_requests(n, timeout_s)``. ``base_url`` is what the SDK takes;
``origin`` is ``http://127.0.0.1:<port>``. Token counts are whitespace words.
"""

from __future__ import annotations

from poemetric.testing.anthropic_server import AnthropicServer
from poemetric.testing.faults import Fault, FaultPlan, FaultWindow, RateLimiter, RateLimitStorm
from poemetric.testing.gemini_server import GeminiServer
from poemetric.testing.http_base import (
    ChatCall,
    LocalServer,
    RecordedRequest,
    Reply,
    Responder,
    ResponderError,
    count_tokens,
    echo_responder,
)
from poemetric.testing.openai_server import OpenAIServer

__all__ = [
    "AnthropicServer",
    "ChatCall",
    "Fault",
    "FaultPlan",
    "FaultWindow",
    "GeminiServer",
    "LocalServer",
    "OpenAIServer",
    "RateLimitStorm",
    "RateLimiter",
    "RecordedRequest",
    "Reply",
    "Responder",
    "ResponderError",
    "count_tokens",
    "echo_responder",
]
