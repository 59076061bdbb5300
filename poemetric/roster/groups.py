"""Named groups of models: the folders' `groups.yaml`, the models' own `groups:`, and `all`."""

from __future__ import annotations

from pathlib import Path

from poemetric.providers.base import ModelSpec
from poemetric.roster.base import ALL_GROUP, RosterError, RosterKind, _dedupe, _suggest
from poemetric.roster.loading import load_roster, roster_directories
from poemetric.roster.yaml_reader import _read_yaml

GROUPS_FILE = "groups.yaml"


def _read_group_file(path: Path) -> dict[str, list[str]]:
    data, _ = _read_yaml(path)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise RosterError(f"{path}: expected a mapping of group name -> list of members")
    groups: dict[str, list[str]] = {}
    for name, members in data.items():
        if not isinstance(name, str) or not isinstance(members, list):
            raise RosterError(f"{path}: group {name!r} must map to a list of names")
        if not all(isinstance(member, str) for member in members):
            raise RosterError(f"{path}: group {name!r} has a member that is not a name")
        groups[name] = list(members)
    return groups


def load_groups(
    kind: RosterKind = "generators",
    directory: Path | None = None,
    roster: dict[str, ModelSpec] | None = None,
) -> dict[str, list[str]]:
    """Groups -> model names (expanded, ordered, deduplicated), including `all`.

    A group defined in several folders' `groups.yaml` takes the later folder's definition.
    Models whose own `groups:` field names a group are appended to it (creating it if needed).
    """
    roster = load_roster(kind, directory) if roster is None else roster
    raw: dict[str, list[str]] = {}
    sources: dict[str, Path] = {}
    for folder in roster_directories(kind, directory):
        path = folder / GROUPS_FILE
        if path.is_file():
            for name, members in _read_group_file(path).items():
                raw[name] = members
                sources[name] = path
    for name in raw:
        if name in roster:
            raise RosterError(f"{sources[name]}: group {name!r} has the name of a model")
        if name == ALL_GROUP:
            raise RosterError(f"{sources[name]}: 'all' is built in and cannot be redefined")

    expanded: dict[str, list[str]] = {}

    def expand(name: str, trail: tuple[str, ...]) -> list[str]:
        if name in expanded:
            return expanded[name]
        if name in trail:
            raise RosterError(
                f"{sources[name]}: groups refer to each other in a cycle: "
                + " -> ".join((*trail, name))
            )
        members: list[str] = []
        for member in raw[name]:
            if member in roster:
                members.append(member)
            elif member in raw:
                members.extend(expand(member, (*trail, name)))
            else:
                raise RosterError(
                    f"{sources[name]}: group {name!r} names unknown model or group {member!r}"
                    + _suggest(member, [*roster, *raw])
                )
        expanded[name] = _dedupe(members)
        return expanded[name]

    for name in raw:
        expand(name, ())
    for spec in roster.values():
        for group in spec.groups:
            if group in roster or group == ALL_GROUP:
                raise RosterError(f"model {spec.name!r} joins group {group!r}, which is reserved")
            members = expanded.setdefault(group, [])
            if spec.name not in members:
                members.append(spec.name)
    expanded[ALL_GROUP] = list(roster)
    return expanded
