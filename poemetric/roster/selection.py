"""Choosing models by name or group, and the rows of `poemetric models`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import ProviderLoadError, provider_class
from poemetric.roster.base import ALL_GROUP, RosterError, RosterKind, _dedupe, _suggest
from poemetric.roster.groups import load_groups
from poemetric.roster.loading import RosterEntry, load_entries


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


def select_models(
    selection: str, kind: RosterKind = "generators", directory: Path | None = None
) -> list[ModelSpec]:
    """Models named by a comma-separated list of model and group names, in order, deduplicated.

    Each selected model's provider is loaded, so that a third-party provider that cannot be
    (a broken entry point) is an error naming the model file before anything runs."""
    entries = load_entries(kind, directory)
    roster = {name: entry.spec for name, entry in entries.items()}
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
    return [_usable(entries[name], kind) for name in _dedupe(names)]


def _usable(entry: RosterEntry, kind: RosterKind) -> ModelSpec:
    """The entry's spec, once its provider class loads; else a `RosterError` naming the file."""
    try:
        provider_class(entry.spec.provider)
    except ProviderLoadError as error:
        what = "judge" if kind == "judges" else "model"
        raise RosterError(f"{entry.path}: {what} {entry.spec.name!r}: {error}") from error
    return entry.spec


def get_model(
    name: str, kind: RosterKind = "generators", directory: Path | None = None
) -> ModelSpec:
    """One model by name (not a group), checked as `select_models` checks it."""
    entries = load_entries(kind, directory)
    if name not in entries:
        raise RosterError(f"unknown {kind[:-1]} {name!r}" + _suggest(name, list(entries)))
    return _usable(entries[name], kind)


def list_models(
    kind: RosterKind = "generators", group: str | None = None, directory: Path | None = None
) -> list[ModelRow]:
    """Rows for the `poemetric models` table, in group order (or by name). A row's groups are
    every group the model belongs to (a `groups.yaml` or its own `groups:`), `all` left out."""
    entries = load_entries(kind, directory)
    roster = {name: entry.spec for name, entry in entries.items()}
    groups = load_groups(kind, directory, roster)
    if group is None:
        names: Iterable[str] = roster
    else:
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
                groups=tuple(
                    g for g, members in groups.items() if g != ALL_GROUP and name in members
                ),
                open_weights=spec.open_weights,
                thinking=spec.thinking,
                input_per_mtok=spec.pricing.input_per_mtok,
                output_per_mtok=spec.pricing.output_per_mtok,
                path=path,
            )
        )
    return rows
