"""A JSON value's type in a user's words, for `expected text, found a number`."""

from __future__ import annotations

from typing import Any

_JSON_TYPES: dict[type, str] = {
    bool: "true or false",
    int: "a number",
    float: "a number",
    str: "text",
    list: "a list",
    tuple: "a list",
    dict: "an object",
    type(None): "null",
}


def json_type(value: Any) -> str:
    """`a number`, `true or false`, `a list`, `an object`, `null`, `text` (else the type's name)."""
    return _JSON_TYPES.get(type(value), type(value).__name__)
