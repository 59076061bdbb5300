"""Anthropic dialect: `POST /v1/messages` and the Message Batches API under `/v1/messages/batches`."""

from __future__ import annotations

import json
import time
from typing import Any

from poemetric.testing.http_base import (
    ChatCall,
    HttpAnswer,
    LocalServer,
    RecordedRequest,
    Reply,
    ResponderError,
    count_tokens,
)

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_STOP_REASONS = {"stop": "end_turn", "length": "max_tokens"}


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


class AnthropicServer(LocalServer):
    api = "anthropic"
    base_path = ""  # the SDK appends /v1/messages itself

    def __init__(self, *args: Any, report_thinking_tokens: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: Count a thinking answer's thinking in `usage.output_tokens_details.thinking_tokens`
        #: too, as the API does in recent releases; False: only inside `output_tokens`.
        self.report_thinking_tokens = report_thinking_tokens
        self.batches: dict[str, dict[str, Any]] = {}
        self._results: dict[str, list[dict[str, Any]]] = {}
        self._polls_left: dict[str, int] = {}

    def authorized(self, headers: dict[str, str]) -> bool:
        if self.api_key is None:
            return True
        # Older SDKs send x-api-key; newer ones send a bearer token.
        offered = {
            headers.get("x-api-key"),
            headers.get("authorization", "").removeprefix("Bearer "),
        }
        return self.api_key in offered

    def is_batch_control(self, method: str, path: str) -> bool:
        parts = path.strip("/").split("/")
        return parts[:3] == ["v1", "messages", "batches"] and (
            (method == "POST" and len(parts) == 3) or (method == "GET" and len(parts) == 4)
        )

    def error_answer(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        code: str | None = None,
    ) -> HttpAnswer:
        error_type = code or _ERROR_TYPES.get(status, "api_error")
        payload = {"type": "error", "error": {"type": error_type, "message": message}}
        return HttpAnswer.json(
            status, payload, {"request-id": self.new_id("req_"), **(headers or {})}
        )

    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> HttpAnswer:
        parts = record.path.strip("/").split("/")
        method = record.method
        if parts[:2] != ["v1", "messages"]:
            return self.error_answer(404, f"unknown path {record.path}")
        rest = parts[2:]
        if method == "POST" and not rest:
            return self.create_message(record)
        if rest[:1] == ["batches"]:
            if method == "POST" and len(rest) == 1:
                return self.create_batch(record.body)
            if method == "GET" and len(rest) == 2:
                return HttpAnswer.json(200, self.retrieve_batch(rest[1]))
            if method == "GET" and len(rest) == 3 and rest[2] == "results":
                lines = "\n".join(json.dumps(line) for line in self._finished_results(rest[1]))
                return HttpAnswer(200, lines.encode(), content_type="application/binary")
            if method == "POST" and len(rest) == 3 and rest[2] == "cancel":
                batch = self._batch(rest[1])
                batch["cancel_initiated_at"] = _iso(time.time())
                self._polls_left[rest[1]] = 0
                return HttpAnswer.json(200, batch)
        return self.error_answer(404, f"no route for {method} {record.path}")

    # -- messages ----------------------------------------------------------------------------
    def parse_call(self, body: dict[str, Any], custom_id: str | None = None) -> ChatCall:
        if "max_tokens" not in body:
            raise ResponderError(400, "max_tokens: Field required")
        thinking = body.get("thinking") or {}
        if thinking.get("type") == "enabled":
            budget = int(thinking.get("budget_tokens", 0))
            if budget < 1024 or budget >= int(body["max_tokens"]):
                raise ResponderError(
                    400, "thinking.budget_tokens must be >= 1024 and less than max_tokens"
                )
            if body.get("temperature") not in (None, 1):
                raise ResponderError(400, "temperature may only be 1 when thinking is enabled")
            if (body.get("tool_choice") or {}).get("type") in ("any", "tool"):
                raise ResponderError(
                    400, "Thinking may not be enabled when tool_choice forces tool use."
                )
        schema = None
        tools = body.get("tools") or []
        if tools:
            forced = (body.get("tool_choice") or {}).get("name")
            tool = next((t for t in tools if t.get("name") == forced), tools[0])
            if "input_schema" not in tool or "name" not in tool:
                raise ResponderError(400, "tools.0: 'name' and 'input_schema' are required")
            schema = dict(tool["input_schema"])
        messages = []
        system = body.get("system")
        if system:
            text = system if isinstance(system, str) else "".join(b["text"] for b in system)
            messages.append({"role": "system", "content": text})
        for message in body["messages"]:
            content = message["content"]
            if not isinstance(content, str):
                content = "".join(block.get("text", "") for block in content)
            messages.append({"role": str(message["role"]), "content": content})
        return ChatCall(self.api, str(body["model"]), messages, body, custom_id, schema)

    def render_message(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        thinking_on = (call.body.get("thinking") or {}).get("type") == "enabled"
        if reply.reasoning is not None and thinking_on:
            content.append({"type": "thinking", "thinking": reply.reasoning, "signature": "sig=="})
        tools = call.body.get("tools") or []
        stop_reason = _STOP_REASONS.get(reply.finish_reason, reply.finish_reason)
        if reply.structured is not None and tools:
            if reply.text:
                content.append({"type": "text", "text": reply.text})
            forced = (call.body.get("tool_choice") or {}).get("name")
            name = forced or tools[0]["name"]
            content.append(
                {"type": "tool_use", "id": self.new_id("toolu_"), "name": name,
                 "input": reply.structured}
            )  # fmt: skip
            stop_reason = "tool_use"
        else:
            content.append({"type": "text", "text": reply.content()})
        thinking_tokens = count_tokens(reply.reasoning) if thinking_on else 0
        output_tokens = count_tokens(reply.content()) + thinking_tokens
        usage: dict[str, Any] = {
            "input_tokens": sum(count_tokens(m["content"]) for m in call.messages),
            "output_tokens": output_tokens,
        }
        if self.report_thinking_tokens:
            usage["output_tokens_details"] = {"thinking_tokens": thinking_tokens}
        return {
            "id": self.new_id("msg_"),
            "type": "message",
            "role": "assistant",
            "model": call.model,
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage,
        }

    def create_message(self, record: RecordedRequest) -> HttpAnswer:
        def render(call: ChatCall, reply: Reply) -> tuple[Any, dict[str, str]]:
            return self.render_message(call, reply), {"request-id": self.new_id("req_")}

        return self.answer_generation(record, self.parse_call, render)

    # -- message batches ---------------------------------------------------------------------
    def create_batch(self, body: dict[str, Any]) -> HttpAnswer:
        batch_id = self.new_id("msgbatch_")
        results: list[dict[str, Any]] = []
        for item in body["requests"]:
            custom_id = item["custom_id"]
            try:
                call = self.parse_call(item["params"], custom_id)
                message = self.render_message(call, self.respond(call))
                results.append(
                    {"custom_id": custom_id, "result": {"type": "succeeded", "message": message}}
                )
            except ResponderError as error:
                failure = {
                    "type": _ERROR_TYPES.get(error.status, "api_error"),
                    "message": error.message,
                }
                results.append({"custom_id": custom_id,
                                "result": {"type": "errored", "error": {"type": "error", "error": failure}}})  # fmt: skip
        now = time.time()
        self.batches[batch_id] = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {"processing": len(results), "succeeded": 0, "errored": 0,
                               "canceled": 0, "expired": 0},
            "created_at": _iso(now),
            "expires_at": _iso(now + 86400),
            "ended_at": None,
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": None,
        }  # fmt: skip
        self._results[batch_id] = results
        self._polls_left[batch_id] = self.batch_polls_in_progress
        return HttpAnswer.json(200, self.batches[batch_id])

    def retrieve_batch(self, batch_id: str) -> dict[str, Any]:
        batch = self._batch(batch_id)
        if self._polls_left[batch_id] > 0:
            self._polls_left[batch_id] -= 1
            return batch
        if batch["processing_status"] == "in_progress":
            cancelled = batch["cancel_initiated_at"] is not None
            results = self._results[batch_id]
            if cancelled:  # nothing had been processed yet in this simulation
                for line in results:
                    line["result"] = {"type": "canceled"}
            counts = batch["request_counts"]
            counts["processing"] = 0
            for line in results:
                kind = line["result"]["type"]
                counts[kind] = counts.get(kind, 0) + 1
            batch["processing_status"] = "ended"
            batch["ended_at"] = _iso(time.time())
            batch["results_url"] = f"{self.origin}/v1/messages/batches/{batch_id}/results"
        return batch

    def _finished_results(self, batch_id: str) -> list[dict[str, Any]]:
        if self._batch(batch_id)["processing_status"] != "ended":
            raise ResponderError(400, f"batch {batch_id} has not ended")
        return self._results[batch_id]

    def _batch(self, batch_id: str) -> dict[str, Any]:
        if batch_id not in self.batches:
            raise ResponderError(404, f"message batch {batch_id} not found")
        return self.batches[batch_id]
