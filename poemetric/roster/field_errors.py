"""Pydantic's validation errors of a model file in YAML's words: each problem with its file, line
and dotted field, a misspelt key with the closest allowed one, a wrong value as the file wrote it."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from poemetric.providers.base import ModelSpec
from poemetric.roster.base import RosterFileError
from poemetric.roster.yaml_reader import _line_of


def validation_error(
    path: Path, error: ValidationError, node: yaml.Node | None, hidden_keys: Sequence[str] = ()
) -> RosterFileError:
    """Every problem with its file, line and field; the reason is the first one, shortly. The
    top-level `hidden_keys` are not offered (a generator file is not offered the judge-only
    keys)."""
    problems = []
    short = []
    for item in error.errors():
        loc = tuple(item["loc"])
        dotted = ".".join(str(part) for part in loc) or "(file)"
        line = _line_of(node, loc)
        where = f"{path}:{line}" if line is not None else str(path)
        message = _plain_message(item["type"], loc, item["msg"], item.get("input"), item.get("ctx"))
        allowed_list = ""
        if item["type"] == "extra_forbidden":
            message = f"unknown key {loc[-1]!r}"
            hidden = hidden_keys if len(loc) == 1 else ()
            allowed = [key for key in _allowed_keys(loc[:-1]) if key not in hidden]
            if allowed:
                close = _closest_key(str(loc[-1]), loc[:-1], allowed)
                message += f" (did you mean {close!r}?)" if close else ""
                allowed_list = f"; allowed: {', '.join(allowed)}"
        problems.append(f"{where}: {dotted}: {message}{allowed_list}")
        short.append(f"{dotted}: {message}")
    more = f" (and {len(short) - 1} more)" if len(short) > 1 else ""
    return RosterFileError("invalid model file:\n  " + "\n  ".join(problems), short[0] + more)


#: Pydantic's error types for a value of the wrong kind, and what the field takes instead.
_NOT_A = {
    **dict.fromkeys(("int_parsing", "int_type", "int_from_float"), "a whole number"),
    **dict.fromkeys(("float_parsing", "float_type"), "a number"),
    **dict.fromkeys(("bool_parsing", "bool_type"), "true or false"),
    "string_type": "text",
}
#: Pydantic's bound errors: the bound's key in the error's context, and its words.
_BOUNDS = {
    "greater_than_equal": ("ge", "at least"),
    "greater_than": ("gt", "more than"),
    "less_than_equal": ("le", "at most"),
    "less_than": ("lt", "less than"),
}


def _plain_message(
    kind: str, loc: Sequence[int | str], message: str, value: Any = None, ctx: Any = None
) -> str:
    """Pydantic's words in YAML's, with the value given: a wrong container ("a valid tuple", "a
    valid dictionary or instance of Pricing") is a list, or a mapping with the keys it takes; a
    wrong scalar ("Input should be a valid integer, unable to parse string as an integer") is
    `'lots' is not a whole number`; a bound, `-3 should be at least 1`."""
    if kind == "missing":  # pydantic: "Field required"
        return "missing" + (f" (add a line '{loc[0]}: ...')" if len(loc) == 1 else "")
    if kind in ("tuple_type", "list_type"):
        return "should be a list: [a, b] (one item: [a]), or one '- item' line each below it"
    if kind in ("model_type", "dict_type"):
        keys = _allowed_keys(loc)
        return "should be a mapping: {key: value}, or 'key: value' lines indented below it" + (
            f" (keys: {', '.join(keys)})" if keys else ""
        )
    if kind == "value_error" or loc[:1] == ("api_key_env",):
        # api_key_env's value is not repeated: it may be a key pasted in the wrong place.
        return message.removeprefix("Value error, ")
    given = _given(value)
    if kind in _NOT_A:
        quote = " (write it in quotes)" if kind == "string_type" and _is_scalar(value) else ""
        return f"{given} is not {_NOT_A[kind]}{quote}"
    if kind in _BOUNDS and isinstance(ctx, dict):
        key, words = _BOUNDS[kind]
        return f"{given} should be {words} {ctx.get(key)}"
    if kind == "literal_error" and isinstance(ctx, dict):
        return f"{given} should be {ctx.get('expected')}"
    return message


def _is_scalar(value: Any) -> bool:
    """A value YAML reads as a number, a boolean or null (`5`, `yes`, `~`), not as text."""
    return isinstance(value, (bool, int, float)) or value is None


def _given(value: Any) -> str:
    """A value as the YAML file wrote it (`true`, `null`, `'lots'`, `[1, 2]`), at most 60
    characters."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    else:
        text = "null" if value is None else repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _closest_key(word: str, parent: Sequence[int | str], allowed: list[str]) -> str | None:
    """The allowed key closest to a misspelt one; at the top level also the keys one level down
    (`temprature` -> `settings.temperature`, not `template`)."""
    candidates = {key: key for key in allowed}
    if not parent:
        for key in allowed:
            for child in _allowed_keys((key,)):
                candidates.setdefault(child, f"{key}.{child}")
    scored = [
        (difflib.SequenceMatcher(None, word, name).ratio(), dotted)
        for name, dotted in candidates.items()
    ]
    best = max(scored, default=(0.0, ""))
    return best[1] if best[0] >= 0.6 else None


def _allowed_keys(parent: Sequence[int | str]) -> list[str]:
    model: Any = ModelSpec
    for part in parent:
        field = getattr(model, "model_fields", {}).get(str(part))
        if field is None:
            return []
        annotation = field.annotation
        candidates = [annotation, *getattr(annotation, "__args__", ())]
        model = next((c for c in candidates if hasattr(c, "model_fields")), None)
        if model is None:
            return []
    return sorted(model.model_fields)
