"""Private links: unguessable per-rater and admin tokens derived from a secret kept beside the
run store (never inside it, so a shared poemetric.sqlite gives no access).

token = base64url(HMAC-SHA256(secret, purpose / survey / rater)), 43 characters (256 bits).
Deriving rather than storing tokens lets `poemetric survey links` print the same links again;
deleting the secret file revokes every link (new ones are derived from a new secret).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from poemetric.paths import SURVEY_SECRET_BYTES, SurveySecretError, read_survey_secret
from poemetric.paths import SURVEY_SECRET_FILE as SECRET_FILE
from poemetric.paths import survey_secret_path as secret_path

__all__ = [
    "SECRET_FILE",
    "SurveySecretError",
    "admin_token",
    "csrf_token",
    "load_secret",
    "rater_token",
    "same",
    "secret_path",
]


def load_secret(run_dir: Path, *, create: bool = True) -> bytes:
    """The run's survey secret (32 random bytes, file mode 0600), created on first use. One too
    short to be a secret is refused (`SurveySecretError`); a write that fails (a full disk)
    leaves no file, not an empty one that `read_survey_secret` would have to refuse next time."""
    secret = read_survey_secret(run_dir)
    if secret is not None:
        return secret
    path = secret_path(run_dir)
    if not create:
        raise FileNotFoundError(f"{path} is missing: build a survey first")
    secret = secrets.token_bytes(SURVEY_SECRET_BYTES)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secret)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return secret


def _token(secret: bytes, *parts: str) -> str:
    digest = hmac.new(secret, "\x00".join(parts).encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def rater_token(secret: bytes, survey_id: str, rater: str) -> str:
    return _token(secret, "rater", survey_id, rater)


def admin_token(secret: bytes, survey_id: str) -> str:
    return _token(secret, "admin", survey_id)


def csrf_token(secret: bytes, survey_id: str, rater: str) -> str:
    """The hidden form field every POST of that rater must carry."""
    return _token(secret, "csrf", survey_id, rater)


def same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode("utf-8"), b.encode("utf-8"))
