"""Keep secrets out of logs, the cache and the run store."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

#: Environment variables that commonly hold credentials, redacted wherever they might echo.
COMMON_SECRET_ENV = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "DEEPSEEK_API_KEY",
    "TOGETHER_API_KEY",
    "OPENROUTER_API_KEY",
)
_KEY_PATTERNS = re.compile(
    r"(sk-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|"
    r"hf_[A-Za-z0-9]{16,}|(?i:bearer)\s+[A-Za-z0-9._\-]{8,})"
)


class Redactor:
    """Replaces the values of secret environment variables, and key-shaped strings, by '***'."""

    def __init__(self, env_names: Iterable[str] = ()) -> None:
        names = {*COMMON_SECRET_ENV, *(n for n in env_names if n)}
        values = {os.environ.get(name, "") for name in names}
        self._values = sorted((v for v in values if len(v) >= 6), key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for value in self._values:
            text = text.replace(value, "***")
        return _KEY_PATTERNS.sub("***", text)

    def contains_secret(self, text: str) -> bool:
        return any(value in text for value in self._values)
