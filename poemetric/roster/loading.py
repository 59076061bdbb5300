"""The roster's folders (bundled and from the environment) and every model file in them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from poemetric.paths import resource_path
from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import available_providers
from poemetric.roster.base import RosterError, RosterKind
from poemetric.roster.model_file import load_model_file

ENV_DIRS: dict[str, str] = {
    "generators": "POEMETRIC_GENERATORS_DIR",
    "judges": "POEMETRIC_JUDGES_DIR",
}


@dataclass(frozen=True)
class RosterEntry:
    spec: ModelSpec
    path: Path


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
        here: dict[str, Path] = {}
        for path in _model_files(folder):
            spec = load_model_file(path, providers, kind)
            if spec.name in here:  # NAME.yaml and NAME.yml: one of them was used, silently
                raise RosterError(
                    f"{here[spec.name]} and {path.name} both define {kind[:-1]} {spec.name!r}; "
                    "keep one of them"
                )
            here[spec.name] = path
            entries[spec.name] = RosterEntry(spec=spec, path=path)
    return dict(sorted(entries.items()))


def load_roster(
    kind: RosterKind = "generators", directory: Path | None = None
) -> dict[str, ModelSpec]:
    """Model specs by name, from the bundled folder (or `directory`) and the user's folders."""
    return {name: entry.spec for name, entry in load_entries(kind, directory).items()}
