"""Named groups of models: the folders' `groups.yaml`, the models' own `groups:`, and `all`."""

from __future__ import annotations

from pathlib import Path

import yaml

from poemetric.data.yaml_fields import line_of
from poemetric.roster.base import ALL_GROUP, RosterError, RosterKind, _dedupe
from poemetric.roster.loading import Roster, load_catalog, roster_directories
from poemetric.roster.yaml_reader import _read_yaml
from poemetric.suggest import did_you_mean

GROUPS_FILE = "groups.yaml"


def _read_group_file(path: Path) -> tuple[dict[str, list[str]], yaml.Node | None]:
    """The groups of a `groups.yaml` and its node (for the lines of its names)."""
    data, node = _read_yaml(path)
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        raise RosterError(
            f"{path}:{line_of(node, ())}: expected a mapping of group name -> list of members "
            "('mine: [gpt-4o, tiny]' lines)"
        )
    groups: dict[str, list[str]] = {}
    for name, members in data.items():
        where = f"{path}:{line_of(node, (str(name),))}"
        if not isinstance(name, str) or not isinstance(members, list):
            one = f" (one member: [{members}])" if isinstance(members, str) else ""
            raise RosterError(f"{where}: group {name!r} must map to a list of names{one}")
        other = next((m for m in members if not isinstance(m, str)), None)
        if other is not None:
            where = f"{path}:{line_of(node, (name, members.index(other)))}"
            raise RosterError(f"{where}: group {name!r} has a member that is not a name: {other!r}")
        groups[name] = list(members)
    return groups, node


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
    nodes: dict[Path, yaml.Node | None] = {}

    def where(name: str, *loc: int) -> str:
        """`FILE:LINE` of group `name` (or of its member at `loc`)."""
        return f"{sources[name]}:{line_of(nodes[sources[name]], (name, *loc))}"

    for folder in roster_directories(kind, directory):
        path = folder / GROUPS_FILE
        if path.is_file():
            groups, nodes[path] = _read_group_file(path)
            for name, members in groups.items():
                raw[name] = members
                sources[name] = path
    for name in raw:
        if name in roster:
            raise RosterError(f"{where(name)}: group {name!r} has the name of a model")
        if name == ALL_GROUP:
            raise RosterError(f"{where(name)}: 'all' is built in and cannot be redefined")

    expanded: dict[str, list[str]] = {}

    def expand(name: str, trail: tuple[str, ...]) -> list[str]:
        if name in expanded:
            return expanded[name]
        if name in trail:
            raise RosterError(
                f"{where(name)}: groups refer to each other in a cycle: "
                + " -> ".join((*trail, name))
            )
        members: list[str] = []
        for index, member in enumerate(raw[name]):
            if member in roster:
                members.append(member)
            elif member in raw:
                members.extend(expand(member, (*trail, name)))
            else:
                raise RosterError(
                    f"{where(name, index)}: group {name!r} names unknown model or group {member!r}"
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
