"""Named groups of models: the folders' `groups.yaml`, the models' own `groups:`, and `all`."""

from __future__ import annotations

from pathlib import Path

from poemetric.roster.base import ALL_GROUP, RosterError, RosterKind, _dedupe
from poemetric.roster.loading import Roster, load_catalog, roster_directories
from poemetric.roster.yaml_reader import _read_yaml
from poemetric.suggest import did_you_mean

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
    catalog: Roster | None = None,
) -> dict[str, list[str]]:
    """Groups -> model names (expanded, ordered, deduplicated), including `all`.

    A group defined in several folders' `groups.yaml` takes the later folder's definition.
    Models whose own `groups:` field names a group are appended to it (creating it if needed).
    Unusable models are members like the others (selecting their group is then an error naming
    the file), joining groups through their `groups:` field when the file could be read.
    """
    catalog = load_catalog(kind, directory) if catalog is None else catalog
    roster = catalog.names()
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
                    + did_you_mean(member, [*roster, *raw])
                )
        expanded[name] = _dedupe(members)
        return expanded[name]

    for name in raw:
        expand(name, ())
    joined = [(e.spec.name, tuple(e.spec.groups), True) for e in catalog.entries.values()]
    joined += [(u.name, u.groups, False) for u in catalog.unusable.values()]
    for model, model_groups, usable in sorted(joined):
        for group in model_groups:
            if group in roster or group == ALL_GROUP:
                if not usable:  # read from a file that failed: it is listed as unusable anyway
                    continue
                raise RosterError(f"model {model!r} joins group {group!r}, which is reserved")
            members = expanded.setdefault(group, [])
            if model not in members:
                members.append(model)
    expanded[ALL_GROUP] = list(roster)
    return expanded
