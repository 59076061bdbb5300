"""Pydantic's validation errors of a model file in YAML's words (`poemetric.data.yaml_fields`):
each problem with its file, line and dotted field, a misspelt key with the closest allowed one
and the keys allowed, a wrong value as the file wrote it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import yaml
from pydantic import ValidationError

from poemetric.data.yaml_fields import field_problems
from poemetric.providers.base import ModelSpec
from poemetric.roster.base import RosterFileError


def validation_error(
    path: Path, error: ValidationError, node: yaml.Node | None, hidden_keys: Sequence[str] = ()
) -> RosterFileError:
    """Every problem with its file, line and field; the reason is the first one, shortly. The
    top-level `hidden_keys` are not offered (a generator file is not offered the judge-only
    keys); `api_key_env`'s value is never repeated (it may be a key pasted in the wrong place)."""
    problems = field_problems(
        error, node, ModelSpec, hidden_keys=hidden_keys, unrepeated=("api_key_env",)
    )
    short = [f"{p.field}: {p.message}" for p in problems]
    more = f" (and {len(short) - 1} more)" if len(short) > 1 else ""
    return RosterFileError(
        "invalid model file:\n  " + "\n  ".join(p.text(path) for p in problems), short[0] + more
    )
