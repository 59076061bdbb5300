"""Named groups of models: the folders' `groups.yaml`, the models' own `groups:`, and `all`
(every model but those whose file says `in_all: false`)."""

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
    """Groups -> model names (expanded, ordered, deduplicated), including `all` (every model of
    the roster but those whose file says `in_all: false`, `Roster.in_all`).

    A group defined in several folders' `groups.yaml` takes the later folder's definition.
    Models whose own `groups:` field names a group are appended to it (creating it if needed),
    except a group that a `groups.yaml` defines is joined only by model files of that folder or
    a later one: a user's `pilot: [ja, jb]` is those two judges, not also the bundled judges
    whose files say `groups: [pilot]` (`left_out_joins` names them). Unusable models are members
    like the others (selecting their group is then an error naming the file), joining groups
    through their `groups:` field when the file could be read.
    """
    return _build(kind, directory, catalog)[0]


def left_out_joins(
    kind: RosterKind = "generators",
    directory: Path | None = None,
    catalog: Roster | None = None,
) -> list[str]:
    """One note per group of a `groups.yaml` that models of an earlier folder join through their
    own `groups:` field and are left out of (`load_groups`): the file, the group and the models."""
    return groups_with_notes(kind, directory, catalog)[1]


def groups_with_notes(
    kind: RosterKind = "generators",
    directory: Path | None = None,
    catalog: Roster | None = None,
) -> tuple[dict[str, list[str]], list[str]]:
    """`load_groups` and `left_out_joins` from one reading of the group files."""
    groups, left_out, _ = _build(kind, directory, catalog)
    notes = []
    for group, (path, models) in left_out.items():
        many = len(models) > 1
        notes.append(
            f"group {group!r} is the list in {path} only: {', '.join(models)}, whose own "
            f"{'files' if many else 'file'} (an earlier folder) {'list' if many else 'lists'} it "
            f"under groups:, {'are' if many else 'is'} not in it; add "
            f"{'them' if many else 'it'} there to keep {'them' if many else 'it'}"
        )
    return groups, notes


def joined_by_files(
    kind: RosterKind = "generators",
    directory: Path | None = None,
    catalog: Roster | None = None,
) -> dict[str, tuple[Path, list[str]]]:
    """Per group a `groups.yaml` defines, that file and the models it does not list that join
    it through their own `groups:` field (a copy of a model file keeps that line: six copies of
    gpt-4o.yaml made `paper30` 36 models)."""
    return _build(kind, directory, catalog)[2]


def _build(
    kind: RosterKind, directory: Path | None, catalog: Roster | None
) -> tuple[
    dict[str, list[str]], dict[str, tuple[Path, list[str]]], dict[str, tuple[Path, list[str]]]
]:
    """The groups (`load_groups`) and, per group a `groups.yaml` defines, that file and the
    models of earlier folders left out of it (`left_out_joins`), and the models that joined it
    (`joined_by_files`)."""
    catalog = load_catalog(kind, directory) if catalog is None else catalog
    roster = catalog.names()
    folders = roster_directories(kind, directory)
    raw: dict[str, list[str]] = {}
    sources: dict[str, Path] = {}
    nodes: dict[Path, yaml.Node | None] = {}

    def where(name: str, *loc: int) -> str:
        """`FILE:LINE` of group `name` (or of its member at `loc`)."""
        return f"{sources[name]}:{line_of(nodes[sources[name]], (name, *loc))}"

    for folder in folders:
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

    def rank(path: Path) -> int:
        """The position of the folder of a model file (or of a `groups.yaml`)."""
        return next((i for i, folder in enumerate(folders) if path.parent == folder), 0)

    left_out: dict[str, tuple[Path, list[str]]] = {}
    joined_in: dict[str, tuple[Path, list[str]]] = {}
    joined = [(e.spec.name, tuple(e.spec.groups), e.path, True) for e in catalog.entries.values()]
    joined += [(u.name, u.groups, u.path, False) for u in catalog.unusable.values()]
    for model, model_groups, path, usable in sorted(joined):
        for group in model_groups:
            if group in roster or group == ALL_GROUP:
                if not usable:  # read from a file that failed: it is listed as unusable anyway
                    continue
                raise RosterError(f"model {model!r} joins group {group!r}, which is reserved")
            members = expanded.setdefault(group, [])
            if model in members:
                continue
            if group in sources and rank(path) < rank(sources[group]):
                left_out.setdefault(group, (sources[group], []))[1].append(model)
                continue
            members.append(model)
            if group in sources:
                joined_in.setdefault(group, (sources[group], []))[1].append(model)
    expanded[ALL_GROUP] = catalog.in_all()
    return expanded, left_out, joined_in
