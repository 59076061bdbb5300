"""Choosing models by name or group, and the rows of `poemetric models`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from poemetric.hints import program
from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import (
    ProviderLoadError,
    entry_points_read_once,
    provider_class,
)
from poemetric.providers.remote_errors import is_local
from poemetric.roster.base import (
    ALL_GROUP,
    RosterError,
    RosterKind,
    UnknownModelError,
    UnusableModelError,
    _dedupe,
)
from poemetric.roster.groups import GROUPS_FILE, joined_by_files, load_groups
from poemetric.roster.loading import (
    ENV_DIRS,
    Roster,
    RosterEntry,
    UnusableModel,
    load_catalog,
    roster_directories,
)
from poemetric.suggest import did_you_mean
from poemetric.suggest import display_name_hint as labelled


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
    price_known: bool = True


def price_unknown(spec: ModelSpec) -> bool:
    """A model called through a paid API whose file gives no input and output price: its cost
    is unknown, not 0 (`Pricing` reads an absent price as 0). Local providers (vLLM, transformers,
    the Markov baseline) cost nothing per token, and neither does a server on this machine (a
    `base_url` on localhost, 127.x.x.x or ::1: a `vllm serve`, llama.cpp or Ollama), so their
    prices are never unknown."""
    if {"input_per_mtok", "output_per_mtok"} <= spec.pricing.model_fields_set:
        return False
    if is_local(spec.base_url):
        return False
    try:
        return provider_class(spec.provider).remote
    except LookupError:  # an unknown or broken provider: assume it is paid
        return True


def _see_models(kind: RosterKind, directory: Path | None, name: str) -> str:
    """`; see `poemetric models --judges` (files read from ...)`; under make, the venv's
    `poemetric` (`program()`): a make user's venv is not activated."""
    flag = " --judges" if kind == "judges" else ""
    return f"; see `{program()} models{flag}`" + searched(kind, directory, name)


def searched(kind: RosterKind, directory: Path | None = None, name: str | None = None) -> str:
    """` (files read from DIR, ...; a folder of your own: VAR=DIR)`: where a file that is not
    found was looked for, since a file in a folder the variable does not name (not exported, or
    in another shell) is found by no command, while a close name in the roster is suggested.
    A file there that is `name`'s but not read (`name.YAML`, `name.yaml.txt`) is named first."""
    folders = roster_directories(kind, directory)
    unread = _unread_file(name, folders) if name else ""
    listed = ", ".join(str(folder) for folder in folders)
    return f"{unread} (files read from {listed}; a folder of your own: {ENV_DIRS[kind]}=DIR)"


def _unread_file(name: str, folders: list[Path]) -> str:
    """` (DIR/name.yaml.txt is not read: ...; rename it DIR/name.yaml)` for a file of `name`, or
    a `groups.yml`, that the roster skips for its suffix: saved by an editor as `name.yaml.txt`,
    `name.YAML` or `name.json`, it left only "unknown model" to go on."""
    kinds = (
        (name, "a model file is NAME.yaml or NAME.yml, in lower case", {".yaml", ".yml"}),
        ("groups", f"groups are read from {GROUPS_FILE} alone", {".yaml"}),
    )
    for folder in folders:
        for path in sorted(folder.iterdir()) if folder.is_dir() else ():
            for stem, why, read in kinds:
                rest = path.name.casefold().removeprefix(f"{stem}.".casefold())
                if rest == path.name.casefold() or path.suffix in read:
                    continue  # another file's, or read (a `Mine.yaml` is listed as unusable)
                if rest in {"yaml", "yml", "json", "txt"} or rest.startswith(("yaml.", "yml.")):
                    target = folder / (GROUPS_FILE if stem == "groups" else f"{name}.yaml")
                    return f" ({path} is not read: {why}; rename it {target})"
    return ""


@entry_points_read_once()
def select_models(
    selection: str,
    kind: RosterKind = "generators",
    directory: Path | None = None,
    catalog: Roster | None = None,
    notes: list[str] | None = None,
) -> list[ModelSpec]:
    """Models named by a comma-separated list of model and group names, in order, deduplicated.
    A group that model files join beyond the list of its `groups.yaml` gets a line in `notes`
    (`grown_group`), when given.

    A name that is neither is an `UnknownModelError`. A selected model whose file cannot be
    used is an `UnusableModelError` naming the file and the reason. Each selected model's
    provider is loaded, so that a third-party provider that cannot be (a broken entry point) is
    an `UnusableModelError` naming the model file before anything runs. `catalog`: the roster
    already loaded (of `kind`), not read again."""
    catalog = load_catalog(kind, directory) if catalog is None else catalog
    roster = catalog.names()
    groups = load_groups(kind, directory, catalog)
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
            if notes is not None and (
                note := grown_group(token, groups, (kind, directory), catalog)
            ):
                notes.append(note)
        elif token == "human":
            raise RosterError(
                "'human' is not a model: the human poems are always part of a run, leave it out"
            )
        else:
            what = "judge" if kind == "judges" else "model"
            known = [*roster, *groups]
            raise UnknownModelError(
                f"unknown {what} or group {token!r}"
                + (
                    _model_file_hint(token, kind)
                    or display_name_hint(token, catalog)
                    or _other_roster_hint(token, kind, directory)
                    or did_you_mean(token, known)
                )
                + _see_models(kind, directory, token),
                known,
            )
    chosen = _dedupe(names)
    catalog.refuse_unusable(chosen)
    return [_usable(catalog.entries[name], kind) for name in chosen]


def grown_group(
    group: str,
    groups: dict[str, list[str]],
    roster: tuple[RosterKind, Path | None],
    catalog: Roster,
) -> str | None:
    """`group 'paper30' is 36 models: the 30 that FILE lists and 6 whose own files ...` for a
    group of a `groups.yaml` that model files join through their `groups:` field, which a copy
    of a model file keeps (six copies of gpt-4o.yaml made `--models paper30` run 36 models,
    said only by the count in the plan's header); None for a group nobody joins."""
    path, joined = joined_by_files(*roster, catalog).get(group, (None, []))
    if not joined:
        return None
    size, listed = len(groups[group]), len(groups[group]) - len(joined)
    names = ", ".join(joined)
    return (
        f"group {group!r} is {size} models: the {listed} that {path} lists and {len(joined)} "
        f"whose own files list {group!r} under `groups:` ({names}; a copy of a model file keeps "
        f"that line); take {group!r} off a file's `groups:` to leave it out"
    )


def _model_file_hint(token: str, kind: RosterKind) -> str:
    """` ('my-judge.yaml' is a file: ... POEMETRIC_JUDGES_DIR=/its/folder ... --judge my-judge)`
    for a model file given by its path, as `--template` takes one; else ''. It was "unknown
    judge", the file's folder and name left for the reader to work out."""
    path = Path(token).expanduser()
    if path.suffix not in {".yaml", ".yml"}:
        return ""
    option = "--judge" if kind == "judges" else "--models"
    if not path.is_file():
        return f" ({option} takes names, not files: {path.stem!r} for {path.name})"
    folder = path.resolve().parent
    return (
        f" ({token!r} is a file; {option} takes names: set {ENV_DIRS[kind]}={folder}, the "
        f"file's folder, and give {option} {path.stem})"
    )


def _other_roster_hint(token: str, kind: RosterKind, directory: Path | None) -> str:
    """` ('mine' is a judge, in FILE: ...)` for a name that the other roster has (a judge's file
    put in a generators folder, or a judge asked for with `--models`); else ''."""
    other: RosterKind = "generators" if kind == "judges" else "judges"
    if directory is not None:  # a folder of the caller's (tests, notebooks): no other roster
        return ""
    try:
        catalog = load_catalog(other)
    except RosterError:
        return ""
    entry = catalog.entries.get(token) or catalog.unusable.get(token)
    if entry is None:
        return ""
    return f" ({token!r} is a {other[:-1]}, in {entry.path}; a {kind[:-1]}'s file goes in a {kind} folder)"


def display_name_hint(token: str, catalog: Roster) -> str:
    """` ('GPT-4o' is the display name of 'gpt-4o')` for a model's label as tables, figures and
    the report show it, which was answered as a mistyped name with no close match; else ''
    (`poemetric.suggest.display_name_hint`, which `--authors` and `analyze --judge` use too)."""
    labels = {name: entry.spec.display_name for name, entry in catalog.entries.items()}
    return labelled(token, labels)


def _usable(entry: RosterEntry, kind: RosterKind) -> ModelSpec:
    """The entry's spec, once its provider class loads; else an `UnusableModelError` naming
    the file."""
    try:
        provider_class(entry.spec.provider)
    except ProviderLoadError as error:
        what = "judge" if kind == "judges" else "model"
        raise UnusableModelError(f"{entry.path}: {what} {entry.spec.name!r}: {error}") from error
    return entry.spec


def get_model(
    name: str,
    kind: RosterKind = "generators",
    directory: Path | None = None,
    catalog: Roster | None = None,
) -> ModelSpec:
    """One model by name (not a group), checked as `select_models` checks it: an unknown name
    is an `UnknownModelError`, a file or provider that cannot be used an `UnusableModelError`.
    `catalog`: the roster already loaded (of `kind`), not read again."""
    catalog = load_catalog(kind, directory) if catalog is None else catalog
    catalog.refuse_unusable([name])
    if name not in catalog.entries:
        known = catalog.names()
        raise UnknownModelError(
            f"unknown {kind[:-1]} {name!r}"
            + (display_name_hint(name, catalog) or did_you_mean(name, known))
            + _see_models(kind, directory, name),
            known,
        )
    return _usable(catalog.entries[name], kind)


@entry_points_read_once()
def list_models(
    kind: RosterKind = "generators",
    group: str | None = None,
    directory: Path | None = None,
    catalog: Roster | None = None,
) -> list[ModelRow]:
    """Rows for the `poemetric models` table, in group order (or by name), of the usable models
    (`list_unusable` has the others). A row's groups are every group the model belongs to (a
    `groups.yaml` or its own `groups:`), `all` left out. A model whose provider cannot be
    loaded (a broken entry point) is one of the unusable ones. `catalog`: the roster already
    loaded, not read again."""
    catalog = (load_catalog(kind, directory) if catalog is None else catalog).providers_checked()
    groups = load_groups(kind, directory, catalog)
    entries = catalog.entries
    rows = []
    for name in _listed(catalog, groups, group):
        if name not in entries:
            continue
        spec, path = entries[name].spec, entries[name].path
        rows.append(
            ModelRow(
                name=spec.name,
                provider=spec.provider,
                model=spec.model,
                groups=tuple(
                    g for g, members in groups.items() if g != ALL_GROUP and name in members
                ),
                open_weights=spec.open_weights,
                thinking=spec.thinking,
                input_per_mtok=spec.pricing.input_per_mtok,
                output_per_mtok=spec.pricing.output_per_mtok,
                path=path,
                price_known=not price_unknown(spec),
            )
        )
    return rows


@entry_points_read_once()
def list_unusable(
    kind: RosterKind = "generators",
    group: str | None = None,
    directory: Path | None = None,
    catalog: Roster | None = None,
) -> list[UnusableModel]:
    """The models of the roster (or of `group`) whose files cannot be used, or whose provider
    cannot be loaded (a broken entry point), in the same order. `catalog`: as `list_models`."""
    catalog = (load_catalog(kind, directory) if catalog is None else catalog).providers_checked()
    groups = load_groups(kind, directory, catalog)
    listed = _listed(catalog, groups, group)
    return [catalog.unusable[name] for name in listed if name in catalog.unusable]


def _listed(catalog: Roster, groups: dict[str, list[str]], group: str | None) -> list[str]:
    if group is None:
        return catalog.names()
    if group not in groups:
        raise RosterError(f"unknown group {group!r}" + did_you_mean(group, list(groups)))
    return groups[group]
