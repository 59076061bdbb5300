"""Private links: unguessable per-rater and admin tokens derived from a secret kept beside the
run store (never inside it, so a shared poemetric.sqlite gives no access).

token = base64url(HMAC-SHA256(secret, purpose / survey / rater)), 43 characters (256 bits).
Deriving rather than storing tokens lets `poemetric survey links` print the same links again;
deleting the secret file revokes every link (new ones are derived from a new secret), also those
of a survey being served (`ServedLinks`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from poemetric.paths import (
    SURVEY_SECRET_BYTES,
    SurveySecretError,
    read_survey_secret,
    write_secret_file,
)
from poemetric.paths import SURVEY_SECRET_FILE as SECRET_FILE
from poemetric.paths import survey_secret_path as secret_path

__all__ = [
    "SECRET_FILE",
    "Rater",
    "ServedLinks",
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
    write_secret_file(path, secret)
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


@dataclass(frozen=True)
class Rater:
    """A rater of a served survey: their link's token and their forms' CSRF token."""

    rater: str
    token: str
    csrf: str


class ServedLinks:
    """The links a served survey opens: those of the run's secret as it is at each request.
    The server held the tokens it started with, so deleting the secret (to revoke a link sent to
    the wrong person) left every link open until a restart, and the new links `survey links`
    then printed were "not found". Now a deleted secret (or one cut short) opens no link at
    once, and a new one opens its own links."""

    def __init__(self, run_dir: Path, survey_id: str, raters: Iterable[str]) -> None:
        self.run_dir, self.survey_id, self.raters = Path(run_dir), survey_id, list(raters)
        self._secret: bytes | None = None
        self._by_token: dict[str, Rater] = {}
        self._admin: str | None = None
        self._use(load_secret(self.run_dir))  # made on first use, as before

    def rater(self, token: str) -> Rater | None:
        """The rater whose link `token` is, under the secret as it is now."""
        self._refresh()
        match = self._by_token.get(token)
        return match if match is not None and same(match.token, token) else None

    def is_admin(self, token: str) -> bool:
        self._refresh()
        return self._admin is not None and same(token, self._admin)

    def _refresh(self) -> None:
        try:
            secret = read_survey_secret(self.run_dir)
        except (OSError, SurveySecretError):  # unreadable, being written, or cut short
            secret = None
        if secret != self._secret:
            self._use(secret)

    def _use(self, secret: bytes | None) -> None:
        self._secret, self._by_token, self._admin = secret, {}, None
        if secret is None:
            return
        for rater in self.raters:
            token = rater_token(secret, self.survey_id, rater)
            self._by_token[token] = Rater(rater, token, csrf_token(secret, self.survey_id, rater))
        self._admin = admin_token(secret, self.survey_id)
