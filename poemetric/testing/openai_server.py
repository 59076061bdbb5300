"""OpenAI dialect: `/v1/chat/completions`, `/v1/files`, `/v1/batches` (also serves as a DeepSeek /
Together / `vllm serve` stand-in with `expose_reasoning_content=True`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from poemetric.testing.http_base import (
    ChatCall,
    HttpAnswer,
    LocalServer,
    RecordedRequest,
    Reply,
    ResponderError,
    count_tokens,
    strict_schema_problems,
)

#: Model-name prefixes the server treats as reasoning models (they reject max_tokens/temperature).
REASONING_MODEL_PREFIXES = ("o1", "o3", "o4", "gpt-5")
_STATUS_CODES = {400: "invalid_request_error", 401: "invalid_api_key", 429: "rate_limit_exceeded"}


@dataclass
class _StoredFile:
    id: str
    filename: str
    purpose: str
    content: bytes
    created_at: int = field(default_factory=lambda: int(time.time()))

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.content),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
        }


class OpenAIServer(LocalServer):
    api = "openai"
    base_path = "/v1"

    def __init__(
        self,
        *args: Any,
        expose_reasoning_content: bool = False,
        refuse_batch_metadata: tuple[int, Any] | None = None,
        batch_validation_errors: list[dict[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        #: Where set, every batch ends `failed` with these in its `errors.data` (`code`,
        #: `message`, `line`, `param`) and no output or error file, as OpenAI fails a batch
        #: whose input it refuses whole ("token_limit_exceeded": the organization's enqueued
        #: tokens; an input file past its limits).
        self.batch_validation_errors = batch_validation_errors
        #: (status, JSON body) answering a batch create that sends `metadata`, as an
        #: OpenAI-compatible batch API without it does; None: `metadata` is kept, as OpenAI's.
        self.refuse_batch_metadata = refuse_batch_metadata
        #: Put the reply's reasoning into `message.reasoning_content` (DeepSeek) instead of
        #: only counting it in `completion_tokens_details.reasoning_tokens` (OpenAI o-series).
        self.expose_reasoning_content = expose_reasoning_content
        self.files: dict[str, _StoredFile] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._polls_left: dict[str, int] = {}

    @property
    def batch_list_requests(self) -> int:
        """How many times the batch list (`GET /v1/batches`) was asked for, page by page."""
        return sum(
            1 for r in self.requests if r.method == "GET" and r.path.rstrip("/") == "/v1/batches"
        )

    def authorized(self, headers: dict[str, str]) -> bool:
        return self.api_key is None or headers.get("authorization") == f"Bearer {self.api_key}"

    def is_batch_control(self, method: str, path: str) -> bool:
        parts = path.strip("/").split("/")
        return parts[:2] == ["v1", "batches"] and (
            (method == "POST" and len(parts) == 2) or (method == "GET" and len(parts) == 3)
        )

    def error_answer(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        code: str | None = None,
    ) -> HttpAnswer:
        error = {
            "message": message,
            "type": code
            or ("server_error" if status >= 500 else _STATUS_CODES.get(status, "api_error")),
            "param": None,
            "code": code or _STATUS_CODES.get(status),
        }
        return HttpAnswer.json(
            status, {"error": error}, {"x-request-id": self.new_id("req_"), **(headers or {})}
        )

    # -- routing -----------------------------------------------------------------------------
    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> HttpAnswer:
        parts = record.path.strip("/").split("/")
        if parts[:1] != ["v1"]:
            return self.error_answer(404, f"unknown path {record.path}")
        parts = parts[1:]
        method = record.method
        if method == "POST" and parts == ["chat", "completions"]:
            return self.chat_completion(record)
        if method == "POST" and parts == ["files"]:
            return self.upload_file(record, raw)
        if method == "GET" and len(parts) == 2 and parts[0] == "files":
            return HttpAnswer.json(200, self._file(parts[1]).describe())
        if method == "DELETE" and len(parts) == 2 and parts[0] == "files":
            deleted = self._file(parts[1])
            del self.files[deleted.id]
            return HttpAnswer.json(200, {"id": deleted.id, "object": "file", "deleted": True})
        if method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
            return HttpAnswer(200, self._file(parts[1]).content, content_type="application/jsonl")
        if method == "POST" and parts == ["batches"]:
            return self.create_batch(record.body)
        if method == "GET" and parts == ["batches"]:
            return self.list_batches(query)
        if method == "GET" and len(parts) == 2 and parts[0] == "batches":
            return self.retrieve_batch(parts[1])
        if method == "POST" and len(parts) == 3 and parts[0] == "batches" and parts[2] == "cancel":
            batch = self._batch(parts[1])
            batch["status"] = "cancelled"
            self._polls_left[batch["id"]] = 0
            return HttpAnswer.json(200, batch)
        return self.error_answer(404, f"no route for {method} {record.path}")

    # -- chat completions --------------------------------------------------------------------
    def parse_call(self, body: dict[str, Any], custom_id: str | None = None) -> ChatCall:
        model = str(body["model"])
        if model.startswith(REASONING_MODEL_PREFIXES):
            for unsupported, hint in (("max_tokens", " Use 'max_completion_tokens' instead."),):
                if unsupported in body:
                    raise ResponderError(
                        400, f"Unsupported parameter: '{unsupported}' is not supported.{hint}"
                    )
            if body.get("temperature") not in (None, 1):
                raise ResponderError(400, "Unsupported value: 'temperature' must be 1.")
        messages = [
            {"role": str(m["role"]).replace("developer", "system"), "content": str(m["content"])}
            for m in body["messages"]
        ]
        return ChatCall(self.api, model, messages, body, custom_id, _response_schema(body))

    def render_completion(self, call: ChatCall, reply: Reply) -> dict[str, Any]:
        content = None if reply.refusal is not None else reply.content()
        message: dict[str, Any] = {
            "role": "assistant",
            "content": content,
            "refusal": reply.refusal,
        }
        if reply.reasoning is not None and self.expose_reasoning_content:
            message["reasoning_content"] = reply.reasoning
        prompt_tokens = sum(count_tokens(m["content"]) for m in call.messages)
        reasoning_tokens = count_tokens(reply.reasoning)
        completion_tokens = count_tokens(content or reply.refusal) + reasoning_tokens
        return {
            "id": self.new_id("chatcmpl-"),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": call.model + "-served",
            "system_fingerprint": "fp_local",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "completion_tokens_details": {"reasoning_tokens": reasoning_tokens},
            },
        }

    def chat_completion(self, record: RecordedRequest) -> HttpAnswer:
        def render(call: ChatCall, reply: Reply) -> tuple[Any, dict[str, str]]:
            return self.render_completion(call, reply), {"x-request-id": self.new_id("req_")}

        return self.answer_generation(record, self.parse_call, render)

    # -- files -------------------------------------------------------------------------------
    def upload_file(self, record: RecordedRequest, raw: bytes) -> HttpAnswer:
        content_type = record.headers.get("content-type")
        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode() + raw
        )
        fields: dict[str, Any] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True)
            fields[str(name)] = (part.get_filename(), payload)
        filename, content = fields["file"]
        purpose = fields.get("purpose", (None, b"batch"))[1].decode()
        stored = _StoredFile(self.new_id("file-"), filename or "upload.jsonl", purpose, content)
        self.files[stored.id] = stored
        record.body = {"purpose": purpose, "filename": stored.filename, "bytes": len(content)}
        return HttpAnswer.json(200, stored.describe())

    def _file(self, file_id: str) -> _StoredFile:
        if file_id not in self.files:
            raise ResponderError(404, f"No such File object: {file_id}")
        return self.files[file_id]

    # -- batches -----------------------------------------------------------------------------
    def create_batch(self, body: dict[str, Any]) -> HttpAnswer:
        if self.refuse_batch_metadata is not None and "metadata" in body:
            status, refusal = self.refuse_batch_metadata
            return HttpAnswer.json(status, refusal)
        source = self._file(body["input_file_id"])
        output_lines: list[str] = []
        error_lines: list[str] = []
        for number, line in enumerate(source.content.decode().splitlines(), start=1):
            if not line.strip():
                continue
            item = json.loads(line)
            custom_id = item["custom_id"]
            request_id = self.new_id("req_")
            try:
                if item.get("url") != "/v1/chat/completions":
                    raise ResponderError(400, f"line {number}: unsupported url {item.get('url')}")
                call = self.parse_call(item["body"], custom_id)
                result = {"status_code": 200, "request_id": request_id}
                result["body"] = self.render_completion(call, self.respond(call))
                output_lines.append(
                    json.dumps({"id": self.new_id("batch_req_"), "custom_id": custom_id,
                                "response": result, "error": None})
                )  # fmt: skip
            except ResponderError as error:
                failure = {"message": error.message, "type": "invalid_request_error"}
                result = {"status_code": error.status, "request_id": request_id}
                result["body"] = {"error": failure}
                error_lines.append(
                    json.dumps({"id": self.new_id("batch_req_"), "custom_id": custom_id,
                                "response": result, "error": None})
                )  # fmt: skip
        batch_id = self.new_id("batch_")
        output = self._store_lines(f"{batch_id}_output.jsonl", output_lines)
        errors = self._store_lines(f"{batch_id}_errors.jsonl", error_lines)
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": source.id,
            "completion_window": body.get("completion_window", "24h"),
            "status": "in_progress",
            "created_at": int(time.time()),
            "output_file_id": output,
            "error_file_id": errors,
            "metadata": body.get("metadata"),
            "request_counts": {"total": len(output_lines) + len(error_lines), "completed": 0,
                               "failed": 0},
        }  # fmt: skip
        self.batches[batch_id] = batch
        self._polls_left[batch_id] = self.batch_polls_in_progress
        batch["_final"] = {"completed": len(output_lines), "failed": len(error_lines)}
        return HttpAnswer.json(200, self._public(batch, finished=False))

    def list_batches(self, query: dict[str, list[str]]) -> HttpAnswer:
        """`GET /v1/batches?limit=&after=`: newest first, a page at a time (cursor `after`)."""
        limit = int(query.get("limit", ["20"])[0])
        newest = list(reversed(self.batches.values()))
        after = query.get("after", [None])[0]
        if after is not None:
            ids = [batch["id"] for batch in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        page = [self._public(batch, finished=batch["status"] != "in_progress") for batch in newest]
        shown = page[:limit]
        return HttpAnswer.json(
            200,
            {
                "object": "list",
                "data": shown,
                "first_id": shown[0]["id"] if shown else None,
                "last_id": shown[-1]["id"] if shown else None,
                "has_more": len(page) > limit,
            },
        )

    def _store_lines(self, filename: str, lines: list[str]) -> str | None:
        if not lines:
            return None
        stored = _StoredFile(
            self.new_id("file-"), filename, "batch_output", "\n".join(lines).encode()
        )
        self.files[stored.id] = stored
        return stored.id

    def retrieve_batch(self, batch_id: str) -> HttpAnswer:
        batch = self._batch(batch_id)
        if self._polls_left[batch_id] > 0:
            self._polls_left[batch_id] -= 1
            return HttpAnswer.json(200, self._public(batch, finished=False))
        if batch["status"] == "in_progress" and self.batch_validation_errors is not None:
            batch["status"] = "failed"
            batch["failed_at"] = int(time.time())
            batch["errors"] = {"object": "list", "data": self.batch_validation_errors}
            batch["output_file_id"] = batch["error_file_id"] = None
        if batch["status"] == "in_progress":
            batch["status"] = "completed"
            batch["completed_at"] = int(time.time())
            batch["request_counts"].update(batch["_final"])
        return HttpAnswer.json(200, self._public(batch, finished=True))

    @staticmethod
    def _public(batch: dict[str, Any], *, finished: bool) -> dict[str, Any]:
        shown = {k: v for k, v in batch.items() if not k.startswith("_")}
        if not finished and shown["status"] == "in_progress":
            shown["output_file_id"] = None
            shown["error_file_id"] = None
        return shown

    def _batch(self, batch_id: str) -> dict[str, Any]:
        if batch_id not in self.batches:
            raise ResponderError(404, f"No such Batch object: {batch_id}")
        return self.batches[batch_id]


def _response_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The schema of `response_format` (400, as the API answers, for a non-strict one)."""
    wanted = body.get("response_format")
    if not wanted:
        return None
    if wanted.get("type") == "json_object":
        return {"type": "object"}
    if wanted.get("type") != "json_schema":
        raise ResponderError(400, f"Invalid value for 'response_format.type': {wanted.get('type')}")
    spec = wanted.get("json_schema") or {}
    if "name" not in spec or "schema" not in spec:
        raise ResponderError(400, "response_format.json_schema needs 'name' and 'schema'")
    if spec.get("strict"):
        problems = strict_schema_problems(spec["schema"])
        if problems:
            raise ResponderError(
                400, f"Invalid schema for response_format '{spec['name']}': {problems[0]}"
            )
    return dict(spec["schema"])
