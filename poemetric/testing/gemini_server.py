"""Gemini (Developer API) dialect: `:generateContent`, `:batchGenerateContent` with inline requests,
`GET /v1beta/batches/{id}`, `:cancel` and the list `GET /v1beta/batches`. Paths are under
`/{api_version}/` (default v1beta)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from poemetric.testing.faults import Fault
from poemetric.testing.http_base import (
    ChatCall,
    HttpAnswer,
    LocalServer,
    RecordedRequest,
    Reply,
    ResponderError,
    count_tokens,
)

_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_FINISH_REASONS = {"stop": "STOP", "length": "MAX_TOKENS"}
_METADATA_TYPE = "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch"


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


def _error_payload(
    status: int, message: str, retry_after_s: float | None = None, name: str | None = None
) -> dict[str, Any]:
    error: dict[str, Any] = {
        "code": status,
        "message": message,
        "status": name or _STATUS_NAMES.get(status, "UNKNOWN"),
    }
    if retry_after_s is not None:
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_after_s}s"}
        ]
    return {"error": error}


class GeminiServer(LocalServer):
    api = "gemini"
    base_path = ""  # the SDK appends /v1beta/... itself
    #: The most a request body may hold (20 MB), as the real API refuses a larger one: 400
    #: INVALID_ARGUMENT "Request payload size exceeds the limit: 20971520 bytes."
    max_request_bytes: int = 20 * 1024 * 1024
    #: (canonical code, message): each batch then ends BATCH_STATE_FAILED with that operation
    #: `error` and no responses, as a batch the API fails whole.
    batch_failure: tuple[int, str] | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The body size of each batch create received, refused or not.
        self.batch_create_bytes: list[int] = []
        self.batches: dict[str, dict[str, Any]] = {}
        self._outputs: dict[str, list[dict[str, Any]]] = {}
        self._polls_left: dict[str, int] = {}

    def authorized(self, headers: dict[str, str]) -> bool:
        return self.api_key is None or headers.get("x-goog-api-key") == self.api_key

    def is_batch_control(self, method: str, path: str) -> bool:
        resource = path.strip("/").partition("/")[2]
        if method == "POST":
            return resource.startswith("models/") and resource.endswith(":batchGenerateContent")
        return method == "GET" and resource.startswith("batches/") and ":" not in resource

    def refused_key_answer(self) -> HttpAnswer:
        """What the real API answers a wrong or expired key: 400, not 401."""
        payload = _error_payload(400, "API key not valid. Please pass a valid API key.")
        payload["error"]["details"] = [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"},
            }
        ]
        return HttpAnswer.json(400, payload)

    def error_answer(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        code: str | None = None,
    ) -> HttpAnswer:
        retry_ms = (headers or {}).get("retry-after-ms")
        retry_after_s = float(retry_ms) / 1000 if retry_ms else None
        payload = _error_payload(status, message, retry_after_s, name=code)
        return HttpAnswer.json(status, payload, headers)

    def fault_answer(self, fault: Fault) -> HttpAnswer:
        """As `error_answer`; a fault naming a quota (`Fault.quota_failure`) says which, in a
        `google.rpc.QuotaFailure` detail as the real API does."""
        answer = super().fault_answer(fault)
        if fault.quota_id is None:
            return answer
        payload = json.loads(answer.body)
        violation = {
            "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
            "quotaId": fault.quota_id,
            "quotaDimensions": {"location": "global", "model": "gemini-test"},
            "quotaValue": fault.quota_value,
        }
        quota = {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [violation]}
        payload["error"]["details"] = [quota, *payload["error"].get("details", [])]
        return HttpAnswer.json(answer.status, payload, answer.headers)

    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> HttpAnswer:
        parts = record.path.strip("/").split("/", 1)
        if len(parts) != 2:
            return self.error_answer(404, f"unknown path {record.path}")
        resource = parts[1]
        method = record.method
        if method == "POST" and resource.startswith("models/") and ":" in resource:
            model, action = resource.removeprefix("models/").rsplit(":", 1)
            if action == "generateContent":
                return self.generate_content(record, model)
            if action == "batchGenerateContent":
                self.batch_create_bytes.append(len(raw))
                if len(raw) > self.max_request_bytes:
                    limit = self.max_request_bytes
                    return self.error_answer(
                        400, f"Request payload size exceeds the limit: {limit} bytes."
                    )
                return self.create_batch(record.body, model)
        if method == "GET" and resource == "batches":
            return self.list_batches(query)
        if resource.startswith("batches/"):
            name, _, action = resource.partition(":")
            if method == "GET" and not action:
                return HttpAnswer.json(200, self.get_batch(name))
            if method == "POST" and action == "cancel":
                self._batch(name)["metadata"]["state"] = "BATCH_STATE_CANCELLED"
                self._polls_left[name] = 0
                return HttpAnswer.json(200, {})
        return self.error_answer(404, f"no route for {method} {record.path}")

    # -- generateContent ---------------------------------------------------------------------
    def parse_call(
        self, body: dict[str, Any], model: str, custom_id: str | None = None
    ) -> ChatCall:
        messages: list[dict[str, str]] = []
        system = _field(body, "systemInstruction")
        if system:
            messages.append({"role": "system", "content": _text_of(system)})
        for content in body["contents"]:
            role = "assistant" if content.get("role") == "model" else "user"
            messages.append({"role": role, "content": _text_of(content)})
        config = _field(body, "generationConfig") or {}
        schema = _field(config, "responseJsonSchema") or _field(config, "responseSchema")
        if schema is not None and _field(config, "responseMimeType") != "application/json":
            raise ResponderError(
                400, "response_mime_type must be application/json when a response schema is set"
            )
        return ChatCall(self.api, model, messages, body, custom_id, schema)

    def render_response(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        config = _field(call.body, "generationConfig") or {}
        thinking = _field(config, "thinkingConfig") or {}
        thinks = reply.reasoning is not None and _field(thinking, "thinkingBudget") != 0
        parts: list[dict[str, Any]] = []
        if thinks and _field(thinking, "includeThoughts"):
            parts.append({"text": reply.reasoning, "thought": True})
        parts.append({"text": reply.content()})
        prompt_tokens = sum(count_tokens(m["content"]) for m in call.messages)
        answer_tokens = count_tokens(reply.content())
        thought_tokens = count_tokens(reply.reasoning) if thinks else 0
        usage = {
            "promptTokenCount": prompt_tokens,
            "candidatesTokenCount": answer_tokens,
            "totalTokenCount": prompt_tokens + answer_tokens + thought_tokens,
        }
        if thought_tokens:
            usage["thoughtsTokenCount"] = thought_tokens
        return {
            "candidates": [
                {
                    "content": {"role": "model", "parts": parts},
                    "finishReason": _FINISH_REASONS.get(reply.finish_reason, reply.finish_reason),
                    "index": 0,
                }
            ],
            "usageMetadata": usage,
            "modelVersion": call.model + "-001",
            "responseId": self.new_id("resp"),
        }

    def generate_content(self, record: RecordedRequest, model: str) -> HttpAnswer:
        def render(call: ChatCall, reply: Reply) -> tuple[Any, dict[str, str]]:
            return self.render_response(call, reply), {}

        return self.answer_generation(record, lambda body: self.parse_call(body, model), render)

    # -- batches -----------------------------------------------------------------------------
    def create_batch(self, body: dict[str, Any], model: str) -> HttpAnswer:
        batch = body["batch"]
        items = batch["inputConfig"]["requests"]["requests"]
        name = self.new_id("batches/batch")
        outputs: list[dict[str, Any]] = []
        for item in items:
            metadata = item.get("metadata")
            key = (metadata or {}).get("key")
            entry: dict[str, Any] = {"metadata": metadata} if metadata is not None else {}
            try:
                call = self.parse_call(item["request"], model, key)
                entry["response"] = self.render_response(call, self.respond(call))
            except ResponderError as error:
                entry["error"] = _error_payload(error.status, error.message)["error"]
            outputs.append(entry)
        now = _iso(time.time())
        self.batches[name] = {
            "name": name,
            "metadata": {
                "@type": _METADATA_TYPE,
                "name": name,
                "model": f"models/{model}",
                "displayName": batch.get("displayName", name),
                "state": "BATCH_STATE_PENDING",
                "createTime": now,
                "updateTime": now,
                "batchStats": {
                    "requestCount": str(len(items)),
                    "pendingRequestCount": str(len(items)),
                },
            },
        }
        self._outputs[name] = outputs
        self._polls_left[name] = self.batch_polls_in_progress
        return HttpAnswer.json(200, self.batches[name])

    def list_batches(self, query: dict[str, list[str]]) -> HttpAnswer:
        """`GET /v1beta/batches?pageSize=&pageToken=`: newest first; the token is an offset."""
        size = int(query.get("pageSize", ["50"])[0])
        start = int(query.get("pageToken", ["0"])[0] or 0)
        newest = list(reversed(self.batches.values()))
        page: dict[str, Any] = {"operations": newest[start : start + size]}
        if start + size < len(newest):
            page["nextPageToken"] = str(start + size)
        return HttpAnswer.json(200, page)

    @property
    def batch_list_requests(self) -> int:
        """How many times the batch list (`GET .../batches`) was asked for, page by page."""
        return sum(
            1
            for r in self.requests
            if r.method == "GET" and r.path.rstrip("/").endswith("/batches")
        )

    def get_batch(self, name: str) -> dict[str, Any]:
        batch = self._batch(name)
        metadata = batch["metadata"]
        if self._polls_left[name] > 0:
            self._polls_left[name] -= 1
            metadata["state"] = "BATCH_STATE_RUNNING"
            return batch
        if metadata["state"] in ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING") and (
            self.batch_failure is not None
        ):
            code, message = self.batch_failure
            metadata["state"] = "BATCH_STATE_FAILED"
            metadata["endTime"] = metadata["updateTime"] = _iso(time.time())
            batch["error"] = {"code": code, "message": message}
            batch["done"] = True
        if metadata["state"] in ("BATCH_STATE_PENDING", "BATCH_STATE_RUNNING"):
            outputs = self._outputs[name]
            failed = sum(1 for entry in outputs if "error" in entry)
            metadata["state"] = "BATCH_STATE_SUCCEEDED"
            metadata["endTime"] = metadata["updateTime"] = _iso(time.time())
            metadata["output"] = {"inlinedResponses": {"inlinedResponses": outputs}}
            metadata["batchStats"] = {
                "requestCount": str(len(outputs)),
                "successfulRequestCount": str(len(outputs) - failed),
                "failedRequestCount": str(failed),
            }
            batch["done"] = True
        return batch

    def _batch(self, name: str) -> dict[str, Any]:
        if name not in self.batches:
            raise ResponderError(404, f"batch {name} not found")
        return self.batches[name]


def _field(message: dict[str, Any], camel_name: str) -> Any:
    """A field by its JSON (camelCase) name or its proto (snake_case) name: Google accepts both."""
    if camel_name in message:
        return message[camel_name]
    return message.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel_name))


def _text_of(content: dict[str, Any]) -> str:
    return "".join(str(part.get("text", "")) for part in content.get("parts", []))
