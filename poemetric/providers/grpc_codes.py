"""google.rpc.Code: the status of a failed request inside a Gemini batch job.

A batch job's inlined response that failed carries a `google.rpc.Status`, whose `code` is one of
Google's canonical codes (13 INTERNAL, 14 UNAVAILABLE, 8 RESOURCE_EXHAUSTED...), not an HTTP
status: "HTTP 13" would be read as no status at all, and INTERNAL as not worth retrying. Each
code is mapped to the HTTP status Google's APIs answer it with (google/rpc/code.proto).
"""

from __future__ import annotations

#: Canonical code -> (name, HTTP status).
GRPC_CODES: dict[int, tuple[str, int]] = {
    1: ("CANCELLED", 499),
    2: ("UNKNOWN", 500),
    3: ("INVALID_ARGUMENT", 400),
    4: ("DEADLINE_EXCEEDED", 504),
    5: ("NOT_FOUND", 404),
    6: ("ALREADY_EXISTS", 409),
    7: ("PERMISSION_DENIED", 403),
    8: ("RESOURCE_EXHAUSTED", 429),
    9: ("FAILED_PRECONDITION", 400),
    10: ("ABORTED", 409),
    11: ("OUT_OF_RANGE", 400),
    12: ("UNIMPLEMENTED", 501),
    13: ("INTERNAL", 500),
    14: ("UNAVAILABLE", 503),
    15: ("DATA_LOSS", 500),
    16: ("UNAUTHENTICATED", 401),
}


def as_http(code: int, message: str) -> tuple[int, str]:
    """A batch item's error `code` as an HTTP status, and its `message` naming the code when it
    was a canonical one (an HTTP status, 100 or more, is kept as it is)."""
    if code in GRPC_CODES:
        name, status = GRPC_CODES[code]
        return status, f"{name} (code {code}): {message}"
    return code, message
