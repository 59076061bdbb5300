"""The model roster: one YAML file per model in `generators/` (or `judges/`), plus named groups.

A new model is one new file, never a code edit. Besides the bundled folder, users can add their own
folders through `POEMETRIC_GENERATORS_DIR` / `POEMETRIC_JUDGES_DIR` (several folders separated by
the OS path separator, `:` on Linux). Later folders win: a user file named like a bundled one
replaces it, so a local tweak (say, another tensor-parallel size) needs no edit of the checkout.

Each folder may hold a `groups.yaml` mapping group names to members (model names or other group
names). A model file can also join groups through its own `groups:` field.

String values of `model`, `display_name` and `base_url` may use `${VAR}` or `${VAR:-default}`,
replaced from the environment when the file is loaded (used by `judges/local-openai.yaml`).
Interpolation is limited to these fields so that a secret can never end up inside a spec that is
stored with the results; keys are named by `api_key_env` and read by the providers.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import ValidationError

from poemetric.paths import resource_path
from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import available_providers

RosterKind = Literal["generators", "judges"]
GROUPS_FILE = "groups.yaml"
ALL_GROUP = "all"
ENV_DIRS: dict[str, str] = {
    "generators": "POEMETRIC_GENERATORS_DIR",
    "judges": "POEMETRIC_JUDGES_DIR",
}
INTERPOLATED_FIELDS = ("model", "display_name", "base_url")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class RosterError(ValueError):
    """A model or group file is invalid, or a selection names something unknown."""


@dataclass(frozen=True)
class RosterEntry:
    spec: ModelSpec
    path: Path


@dataclass(frozen=True)
class ModelRow:
    """One line of `poemetric models`."""

    name: str
    provider: str
    model: str
    groups: tuple[str, ...]
    open_weights: bool
    thinking: bool
    input_per_mtok: float
    output_per_mtok: float
    path: Path


# -- folders ---------------------------------------------------------------------------------
def roster_directories(
    kind: RosterKind = "generators", directory: Path | None = None
) -> list[Path]:
    """Folders searched for model files, lowest priority first.

    `directory` replaces the bundled folder (tests, notebooks); folders from the environment
    variable are appended either way.
    """
    if kind not in ENV_DIRS:
        raise RosterError(f"unknown roster kind {kind!r}; expected 'generators' or 'judges'")
    folders = [Path(directory) if directory is not None else resource_path(kind)]
    extra = os.environ.get(ENV_DIRS[kind], "")
    for item in extra.split(os.pathsep):
        if not item.strip():
            continue
        folder = Path(item.strip()).expanduser()
        if not folder.is_dir():
            raise RosterError(f"{ENV_DIRS[kind]} names {folder}, which is not a directory")
        folders.append(folder)
    return folders


# -- YAML with line numbers and without silent duplicates ----------------------------------------
_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_BaseLoader):  # type: ignore[valid-type,misc]
    """SafeLoader that rejects duplicate mapping keys instead of keeping the last one."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key {key!r} (first on line {seen[key] + 1})",
                key_node.start_mark,
            )
        seen[key] = key_node.start_mark.line
    loader.flatten_mapping(node)
    return dict(loader.construct_pairs(node))


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RosterError(f"{path}: cannot read: {error}") from error
    try:
        loader = _StrictLoader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(error, "problem", None) or str(error)
        raise RosterError(f"{where}: invalid YAML: {problem}") from error
    return data, node


def _line_of(node: yaml.Node | None, loc: Sequence[int | str]) -> int | None:
    """1-based line of the YAML node at pydantic location `loc` (or of its nearest parent)."""
    if node is None:
        return None
    line = node.start_mark.line + 1
    for part in loc:
        child: yaml.Node | None = None
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if key_node.value == str(part):
                    child = value_node
                    line = key_node.start_mark.line + 1
                    break
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            child = node.value[part]
            line = child.start_mark.line + 1
        if child is None:
            break
        node = child
    return line


def _format_validation_error(path: Path, error: ValidationError, node: yaml.Node | None) -> str:
    problems = []
    for item in error.errors():
        loc = tuple(item["loc"])
        dotted = ".".join(str(part) for part in loc) or "(file)"
        line = _line_of(node, loc)
        where = f"{path}:{line}" if line is not None else str(path)
        message = item["msg"]
        if item["type"] == "extra_forbidden":
            message = f"unknown key {loc[-1]!r}"
            allowed = _allowed_keys(loc[:-1])
            if allowed:
                close = _closest_key(str(loc[-1]), loc[:-1], allowed)
                message += f" (did you mean {close!r}?)" if close else ""
                message += f"; allowed: {', '.join(allowed)}"
        problems.append(f"{where}: {dotted}: {message}")
    return "invalid model file:\n  " + "\n  ".join(problems)


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


def _interpolate(path: Path, data: dict[str, Any], node: yaml.Node | None) -> dict[str, Any]:
    result = dict(data)
    for field in INTERPOLATED_FIELDS:
        value = result.get(field)
        if not isinstance(value, str):
            continue

        def substitute(match: re.Match[str], field: str = field) -> str:
            variable, default = match.group(1), match.group(2)
            found = os.environ.get(variable)
            if found:
                return found
            if default is not None:
                return default
            raise RosterError(
                f"{path}:{_line_of(node, (field,))}: {field}: environment variable {variable} is "
                "not set and has no default (write ${" + variable + ":-default})"
            )

        result[field] = _ENV_RE.sub(substitute, value)
    for field, value in data.items():
        if field not in INTERPOLATED_FIELDS and isinstance(value, str) and _ENV_RE.search(value):
            raise RosterError(
                f"{path}:{_line_of(node, (field,))}: {field}: ${{...}} is only replaced in "
                f"{', '.join(INTERPOLATED_FIELDS)}"
            )
    return result


# -- loading ---------------------------------------------------------------------------------
#: Fields that only a judge file may set.
JUDGE_ONLY_FIELDS = ("template", "structured", "reask")


def load_model_file(
    path: Path, providers: Sequence[str] | None = None, kind: RosterKind | None = None
) -> ModelSpec:
    """Read and validate one model file; the file stem must equal its `name`.

    `providers` (the registered provider names) is looked up when not given. A judge file's
    `template` is resolved (beside the file, or in prompts/) to a path and checked.
    """
    path = Path(path)
    data, node = _read_yaml(path)
    if not isinstance(data, dict):
        raise RosterError(f"{path}: expected a mapping of model fields, got {type(data).__name__}")
    data = _interpolate(path, data, node)
    try:
        spec = ModelSpec.model_validate(data)
    except ValidationError as error:
        raise RosterError(_format_validation_error(path, error, node)) from None
    if spec.name != path.stem:
        raise RosterError(
            f"{path}:{_line_of(node, ('name',))}: name {spec.name!r} must equal the file name "
            f"{path.stem!r} (rename the file or the model)"
        )
    if not _NAME_RE.match(spec.name):
        raise RosterError(
            f"{path}: name {spec.name!r} must be lower case letters, digits, '.', '_' or '-'"
        )
    if spec.name == ALL_GROUP or spec.name == "human":
        raise RosterError(f"{path}: {spec.name!r} is reserved and cannot name a model")
    providers = available_providers() if providers is None else providers
    if spec.provider not in providers:
        raise RosterError(
            f"{path}:{_line_of(node, ('provider',))}: unknown provider {spec.provider!r}; "
            f"available: {', '.join(providers)}"
        )
    if kind == "generators":
        for field in JUDGE_ONLY_FIELDS:
            if field in spec.model_fields_set:
                raise RosterError(
                    f"{path}:{_line_of(node, (field,))}: {field!r} is a judge setting; it belongs "
                    "in a file under judges/"
                )
    if spec.template is not None:
        spec = spec.model_copy(update={"template": _judge_template(path, spec.template, node)})
    return spec


def _judge_template(path: Path, name: str, node: yaml.Node | None) -> str:
    from poemetric.prompts import JUDGE_PLACEHOLDERS, PromptError, template_path

    where = f"{path}:{_line_of(node, ('template',))}"
    try:
        found = template_path(name, relative_to=path.parent)
    except PromptError as error:
        raise RosterError(f"{where}: template: {error}") from None
    text = found.read_text(encoding="utf-8")
    missing = [p for p in JUDGE_PLACEHOLDERS if p not in text]
    if missing:
        raise RosterError(
            f"{where}: template {found} lacks the placeholder(s) {', '.join(missing)}"
        )
    return str(found.resolve())


def _model_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.suffix in {".yaml", ".yml"} and p.stem != "groups"
    )


def load_entries(
    kind: RosterKind = "generators", directory: Path | None = None
) -> dict[str, RosterEntry]:
    """Every model of the roster with the file it came from, sorted by name."""
    entries: dict[str, RosterEntry] = {}
    providers = available_providers()
    for folder in roster_directories(kind, directory):
        if not folder.is_dir():
            raise RosterError(f"no {kind} folder at {folder}")
        for path in _model_files(folder):
            spec = load_model_file(path, providers, kind)
            entries[spec.name] = RosterEntry(spec=spec, path=path)
    return dict(sorted(entries.items()))


def load_roster(
    kind: RosterKind = "generators", directory: Path | None = None
) -> dict[str, ModelSpec]:
    """Model specs by name, from the bundled folder (or `directory`) and the user's folders."""
    return {name: entry.spec for name, entry in load_entries(kind, directory).items()}


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


# -- selection ------------------------------------------------------------------------------------
def select_models(
    selection: str, kind: RosterKind = "generators", directory: Path | None = None
) -> list[ModelSpec]:
    """Models named by a comma-separated list of model and group names, in order, deduplicated."""
    roster = load_roster(kind, directory)
    groups = load_groups(kind, directory, roster)
    names: list[str] = []
    tokens = [token.strip() for token in selection.split(",")]
    if not any(tokens):
        raise RosterError("no models selected: give model or group names separated by commas")
    for token in tokens:
        if not token:
            continue
        if token in roster:
            names.append(token)
        elif token in groups:
            names.extend(groups[token])
        elif token == "human":
            raise RosterError(
                "'human' is not a model: the human poems are always part of a run, leave it out"
            )
        else:
            what = "judge" if kind == "judges" else "model"
            raise RosterError(
                f"unknown {what} or group {token!r}"
                + _suggest(token, [*roster, *groups])
                + f"; see `poemetric models{' --judges' if kind == 'judges' else ''}`"
            )
    return [roster[name] for name in _dedupe(names)]


def get_model(
    name: str, kind: RosterKind = "generators", directory: Path | None = None
) -> ModelSpec:
    """One model by name (not a group)."""
    roster = load_roster(kind, directory)
    if name not in roster:
        raise RosterError(f"unknown {kind[:-1]} {name!r}" + _suggest(name, list(roster)))
    return roster[name]


def list_models(
    kind: RosterKind = "generators", group: str | None = None, directory: Path | None = None
) -> list[ModelRow]:
    """Rows for the `poemetric models` table, in group order (or by name)."""
    entries = load_entries(kind, directory)
    roster = {name: entry.spec for name, entry in entries.items()}
    if group is None:
        names: Iterable[str] = roster
    else:
        groups = load_groups(kind, directory, roster)
        if group not in groups:
            raise RosterError(f"unknown group {group!r}" + _suggest(group, list(groups)))
        names = groups[group]
    rows = []
    for name in names:
        spec, path = entries[name].spec, entries[name].path
        rows.append(
            ModelRow(
                name=spec.name,
                provider=spec.provider,
                model=spec.model,
                groups=spec.groups,
                open_weights=spec.open_weights,
                thinking=spec.thinking,
                input_per_mtok=spec.pricing.input_per_mtok,
                output_per_mtok=spec.pricing.output_per_mtok,
                path=path,
            )
        )
    return rows


def _dedupe(names: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(names))


def _suggest(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=3, cutoff=0.5)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""
