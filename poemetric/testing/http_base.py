"""The shared machinery of the local wire-protocol servers: threading HTTP server, request log,
responder, fault injection, latency and rate limiting. Provider dialects subclass `LocalServer`.

The values a server and its responder exchange (`ChatCall`, `Reply`, `RecordedRequest`,
`HttpAnswer`, ...) live in `poemetric.testing.exchange` and are importable from here too."""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self
from urllib.parse import parse_qs, urlsplit

from poemetric.testing.exchange import (
    ChatCall,
    HttpAnswer,
    RecordedRequest,
    Reply,
    Responder,
    ResponderError,
    echo_responder,
    retry_headers,
)
from poemetric.testing.exchange import count_tokens as count_tokens
from poemetric.testing.exchange import strict_schema_problems as strict_schema_problems
from poemetric.testing.faults import Fault, FaultPlan, RateLimiter


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    #: Buffer the answer so that headers and body leave in one write, and send it at once:
    #: separate small writes with Nagle's algorithm and delayed ACKs stall each answer ~40 ms.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True
    owner: LocalServer  # set on a per-server subclass

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    def _dispatch(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        answer = self.owner._handle(self.command, self.path, dict(self.headers.items()), raw)
        body = answer.body[: len(answer.body) // 2] if answer.disconnect else answer.body
        try:
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            self.send_header("Content-Length", str(len(answer.body)))
            for name, value in answer.headers.items():
                self.send_header(name, value)
            if answer.disconnect:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
            if answer.disconnect:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True  # the client gave up (e.g. its timeout fired)

    do_GET = _dispatch
    do_POST = _dispatch
    do_DELETE = _dispatch


class _ThreadingServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 512


class LocalServer:
    """A real HTTP server on 127.0.0.1 (port chosen by the OS) speaking one provider dialect.

    Use it as a context manager, or call `start()` / `stop()`. The log (`requests`) is
    thread-safe; the responder is called from handler threads, so it must be thread-safe too.
    """

    api: ClassVar[str]
    #: URL suffix the dialect's SDK expects after the host, e.g. "/v1".
    base_path: ClassVar[str] = ""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        faults: FaultPlan | Sequence[Fault | None] | None = None,
        latency_s: float = 0.0,
        rate_limit_rps: float | None = None,
        batch_polls_in_progress: int = 1,
        api_key: str | None = None,
        batch_faults: FaultPlan | Sequence[Fault | None] | None = None,
    ) -> None:
        self.responder: Responder = responder or echo_responder
        self.faults = _plan(faults)
        #: Faults of the batch API's submissions and status polls (`is_batch_control`), drawn in
        #: the order those requests arrive; generation requests draw from `faults`.
        self.batch_faults = _plan(batch_faults)
        self.latency_s = latency_s
        self.rate_limiter = RateLimiter(rate_limit_rps) if rate_limit_rps else None
        #: How many status polls report a batch as still running before it completes.
        self.batch_polls_in_progress = batch_polls_in_progress
        #: When set, requests carrying another key are refused (401; Gemini: 400).
        self.api_key = api_key
        self._log: list[RecordedRequest] = []
        self._log_lock = threading.Lock()
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        self._httpd: _ThreadingServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Self:
        if self._httpd is not None:
            return self
        handler = type(f"{type(self).__name__}Handler", (_Handler,), {"owner": self})
        self._httpd = _ThreadingServer(("127.0.0.1", 0), handler)
        self._stopping.clear()
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping on latency / slow faults
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("server is not running; use it as a context manager or start()")
        return int(self._httpd.server_address[1])

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What to give the dialect's SDK as its base URL."""
        return self.origin + self.base_path

    # -- the log -----------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._log_lock:
            return list(self._log)

    @property
    def generation_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.is_generation]

    @property
    def successful_generations(self) -> list[RecordedRequest]:
        return [r for r in self.generation_requests if r.succeeded]

    def duplicate_successes(self) -> list[Any]:
        """Bodies of generation requests that were answered successfully more than once."""
        seen: dict[str, int] = {}
        for record in self.successful_generations:
            key = json.dumps(record.body, sort_keys=True)
            seen[key] = seen.get(key, 0) + 1
        return [json.loads(key) for key, n in seen.items() if n > 1]

    def clear_log(self) -> None:
        with self._log_lock:
            self._log.clear()

    def wait_for_requests(self, n: int, timeout_s: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if len(self.requests) >= n:
                return True
            time.sleep(0.01)
        return False

    # -- helpers for dialects ----------------------------------------------------------------
    def new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    def respond(self, call: ChatCall) -> Reply:
        """Apply the responder (no faults, no latency); raises ResponderError."""
        reply = self.responder(call)
        return Reply(text=reply) if isinstance(reply, str) else reply

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)

    # -- dialect hooks ---------------------------------------------------------------------
    def route(self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes) -> HttpAnswer:
        """Answer one request (dialects implement this)."""
        raise NotImplementedError

    def error_answer(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        code: str | None = None,
    ) -> HttpAnswer:
        """The dialect's JSON error body; `code` replaces its error type or code."""
        error = {"message": message, "code": status if code is None else code}
        return HttpAnswer.json(status, {"error": error}, headers)

    def fault_answer(self, fault: Fault) -> HttpAnswer:
        """The answer to an injected ``status`` fault: the dialect's error (`error_answer`)."""
        return self.error_answer(
            fault.status, fault.message, fault.status_headers(), code=fault.code
        )

    def authorized(self, headers: dict[str, str]) -> bool:
        return True

    def is_batch_control(self, method: str, path: str) -> bool:
        """True for a batch submission or status poll (these draw from `batch_faults`)."""
        return False

    def refused_key_answer(self) -> HttpAnswer:
        """The answer to a request carrying another key than `api_key`."""
        return self.error_answer(401, "invalid API key")

    # -- the generation pipeline -------------------------------------------------------------
    def answer_generation(
        self,
        record: RecordedRequest,
        parse: Callable[[dict[str, Any]], ChatCall],
        render: Callable[[ChatCall, Reply], tuple[Any, dict[str, str]]],
    ) -> HttpAnswer:
        """Parse a generation request and run it through `generate`; a request the parser
        rejects is answered with the dialect's error and logged as a failed generation."""
        try:
            call = parse(record.body)
        except ResponderError as error:
            record.is_generation = True
            return self.error_answer(error.status, error.message)
        return self.generate(record, call, render)

    def generate(
        self,
        record: RecordedRequest,
        call: ChatCall,
        render: Callable[[ChatCall, Reply], tuple[Any, dict[str, str]]],
    ) -> HttpAnswer:
        """Rate limit → fault → latency → responder → rendered success, logging what happened."""
        record.is_generation = True
        if self.rate_limiter is not None:
            wait_s = self.rate_limiter.admit()
            if wait_s is not None:
                record.fault = "rate_limit"
                return self.error_answer(429, "rate limit exceeded", retry_headers(wait_s))
        fault = self.faults.next_fault()
        if fault is not None and fault.kind == "status":
            record.fault = f"status:{fault.status}"
            return self.fault_answer(fault)
        if fault is not None and fault.kind == "slow":
            record.fault = "slow"
            self.sleep(fault.delay_s)
        self.sleep(self.latency_s)
        try:
            reply = self.respond(call)
        except ResponderError as error:
            return self.error_answer(error.status, error.message)
        payload, headers = render(call, reply)
        if fault is not None and fault.kind in _BROKEN_BODIES:
            record.fault = fault.kind
            return _broken(HttpAnswer.json(200, payload, headers), fault)
        record.response = payload
        return HttpAnswer.json(200, payload, headers)

    def _handle(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> HttpAnswer:
        headers = {name.lower(): value for name, value in headers.items()}
        split = urlsplit(target)
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", errors="replace")
        record = RecordedRequest(
            seq=next(self._seq),
            method=method,
            path=split.path,
            headers=headers,
            body=body,
            received_at=time.time(),
        )
        with self._log_lock:
            self._log.append(record)
        if not self.authorized(headers):
            answer = self.refused_key_answer()
        elif self.is_batch_control(method, split.path):
            answer = self._batch_control(record, parse_qs(split.query), raw)
        else:
            answer = self._routed(record, parse_qs(split.query), raw)
        record.status = answer.status
        return answer

    def _routed(
        self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes
    ) -> HttpAnswer:
        try:
            return self.route(record, query, raw)
        except ResponderError as error:
            return self.error_answer(error.status, error.message)
        except (KeyError, TypeError, ValueError) as error:
            return self.error_answer(400, f"malformed request: {error!r}")

    def _batch_control(
        self, record: RecordedRequest, query: dict[str, list[str]], raw: bytes
    ) -> HttpAnswer:
        """A batch submission or status poll with the next of `batch_faults`: an error status
        instead of the answer, or the answer late or broken (a submission is then accepted,
        as a real API may accept one whose answer the client never reads)."""
        fault = self.batch_faults.next_fault()
        if fault is None:
            return self._routed(record, query, raw)
        record.fault = fault.kind if fault.kind != "status" else f"status:{fault.status}"
        if fault.kind == "status":
            return self.fault_answer(fault)
        if fault.kind == "slow":
            self.sleep(fault.delay_s)
        answer = self._routed(record, query, raw)
        return _broken(answer, fault) if answer.status == 200 else answer


_BROKEN_BODIES = ("truncated", "invalid_json", "disconnect")


def _plan(faults: FaultPlan | Sequence[Fault | None] | None) -> FaultPlan:
    return faults if isinstance(faults, FaultPlan) else FaultPlan(script=faults or ())


def _broken(answer: HttpAnswer, fault: Fault) -> HttpAnswer:
    """A 200 answer as the fault breaks it: cut in half, not JSON, or the socket closed mid-body."""
    if fault.kind == "truncated":
        return replace(answer, body=answer.body[: len(answer.body) // 2])
    if fault.kind == "invalid_json":
        return replace(answer, body=b"<html>upstream proxy error</html>")
    if fault.kind == "disconnect":
        return replace(answer, disconnect=True)
    return answer
