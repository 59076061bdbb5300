"""Names every roster module shares: the roster kinds, the built-in group `all`, the errors, and
the helpers that deduplicate names and suggest close matches."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

RosterKind = Literal["generators", "judges"]
ALL_GROUP = "all"
#: Names that cannot name a model: `all` is a built-in group, `human` the poets.
RESERVED_NAMES = (ALL_GROUP, "human")


class RosterError(ValueError):
    """A model or group file is invalid, or a selection names something unknown."""


class RosterFileError(RosterError):
    """One roster file is invalid: its YAML, a field, a `${VAR}` or its provider. `reason` says
    why in one short line without the file's name (`unset variable ENDPOINT_URL`); the message
    names the file, the line and the field. A model file with such an error does not stop the
    roster: only the commands that select its model fail."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class UnusableModelError(RosterError):
    """A selection names a model that cannot be used: its file has a `RosterFileError`, or its
    provider cannot be loaded (a broken third-party entry point). The message says all: the
    file and the reason."""


class UnknownModelError(RosterError):
    """A selection names no model of the roster (nor a group, where groups may be given).
    `known` holds the names it was looked up among, for a suggestion that spans rosters."""

    def __init__(self, message: str, known: list[str]) -> None:
        super().__init__(message)
        self.known = known


def _dedupe(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))
