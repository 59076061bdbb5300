"""The roster's folders (bundled and from the environment) and every model file in them."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from poemetric.hints import program
from poemetric.paths import home_lacks, resource_path
from poemetric.providers.base import ModelSpec
from poemetric.providers.registry import (
    available_providers,
    entry_points_read_once,
    load_problem,
)
from poemetric.roster.base import (
    RESERVED_NAMES,
    RosterError,
    RosterFileError,
    RosterKind,
    UnusableModelError,
)
from poemetric.roster.model_file import load_model_file
from poemetric.roster.yaml_reader import _read_yaml

ENV_DIRS: dict[str, str] = {
    "generators": "POEMETRIC_GENERATORS_DIR",
    "judges": "POEMETRIC_JUDGES_DIR",
}
#: What `models show` adds under a provider that cannot be loaded.
_PROVIDER_HINT = (
    "the model file is fine: fix or reinstall the package that registers the provider, or "
    'uninstall it (docs/providers.md, "Writing a provider")'
)


@dataclass(frozen=True)
class RosterEntry:
    spec: ModelSpec
    path: Path


@dataclass(frozen=True)
class UnusableModel:
    """A model file that cannot be used (`RosterFileError`): listed, never run.

    `name` is the file's stem; `groups` are those its `groups:` field names, and `in_all` its
    `in_all:` field (false only where the file says so), when it could be read. `reason` is one
    short line, `detail` the whole error (file, line, field)."""

    name: str
    path: Path
    reason: str
    detail: str
    groups: tuple[str, ...] = ()
    in_all: bool = True

    @property
    def where(self) -> str:
        """`FILE:LINE` of the first problem the whole error names (`FILE` where it names no
        line): `models list` prints the reason, which names no line, beside it."""
        prefix = f"{self.path}:"
        for line in self.detail.splitlines():
            number = line.strip().removeprefix(prefix).split(":", 1)[0]
            if line.strip().startswith(prefix) and number.isdigit():
                return f"{self.path}:{number}"
        return str(self.path)

    def error(self, kind: RosterKind, *, hint: bool = True) -> str:
        """The one line a command that selects this model stops with: `FILE:LINE` (`where`)
        first, as every bad input is named."""
        what = "judge" if kind == "judges" else "model"
        flag = " --judges" if kind == "judges" else ""
        more = f"; details: `{program()} models show {self.name}{flag}`" if hint else ""
        return f"{self.where}: {what} {self.name!r} cannot be used: {self.reason}{more}"


@dataclass(frozen=True)
class Roster:
    """Every model file of a roster kind: the usable ones and the unusable ones, by name."""

    kind: RosterKind
    entries: dict[str, RosterEntry]
    unusable: dict[str, UnusableModel]

    def specs(self) -> dict[str, ModelSpec]:
        return {name: entry.spec for name, entry in self.entries.items()}

    def names(self) -> list[str]:
        """Every model's name, usable or not, sorted."""
        return sorted([*self.entries, *self.unusable])

    def in_all(self) -> list[str]:
        """The built-in group `all`: every model's name, usable or not, sorted, but those whose
        file says `in_all: false` (the demo judge): `--judge all` asks for real judges."""
        left_out = {name for name, entry in self.entries.items() if not entry.spec.in_all}
        left_out |= {name for name, model in self.unusable.items() if not model.in_all}
        return [name for name in self.names() if name not in left_out]

    def refuse_unusable(self, names: list[str]) -> None:
        """`UnusableModelError` (one line: the first file, then the others' names) when one of
        `names` is an unusable model."""
        broken = [self.unusable[name] for name in names if name in self.unusable]
        if broken:
            others = f"; also unusable: {', '.join(b.name for b in broken[1:])}"
            raise UnusableModelError(broken[0].error(self.kind) + (others if broken[1:] else ""))

    @entry_points_read_once()
    def providers_checked(self) -> Roster:
        """This roster with the models whose provider cannot be loaded (a third-party entry
        point that does not import or names no `Provider`: `load_problem`) moved to `unusable`.
        For `poemetric models`: a command loads only the providers of the models it selects."""
        problems: dict[str, str | None] = {}
        entries: dict[str, RosterEntry] = {}
        unusable = dict(self.unusable)
        for name, entry in self.entries.items():
            provider = entry.spec.provider
            if provider not in problems:
                problems[provider] = load_problem(provider)
            problem = problems[provider]
            if problem is None:
                entries[name] = entry
                continue
            first, *more = problem.splitlines() or [problem]
            detail = "\n".join([*more, _PROVIDER_HINT])  # under the reason, in `models show`
            unusable[name] = UnusableModel(
                name, entry.path, first, detail, tuple(entry.spec.groups), entry.spec.in_all
            )
        return Roster(self.kind, entries, dict(sorted(unusable.items())))


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
        if folder.is_file():  # a model file named instead of its folder
            raise RosterError(
                f"{ENV_DIRS[kind]} names {folder}, a file: it names the folder that holds the "
                f"model files (export {ENV_DIRS[kind]}={folder.parent})"
            )
        if not folder.is_dir():
            raise RosterError(f"{ENV_DIRS[kind]} names {folder}, which is not a directory")
        folders.append(folder)
    return folders


def _home_hint(kind: str, folder: Path) -> str:
    """`home_lacks` for the bundled folder `folder`, and the variable meant for files of one's own."""
    lacks = home_lacks(kind) if folder == resource_path(kind) else ""
    if not lacks:
        return ""
    return f": {lacks}; for {kind[:-1]} files beside the bundled ones, set {ENV_DIRS[kind]} instead"


def _model_files(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.suffix in {".yaml", ".yml"} and p.stem != "groups"
    )


def _raw_membership(path: Path) -> tuple[tuple[str, ...], bool]:
    """The `groups:` and `in_all:` fields of a file that failed to load, when it can be read at
    all (no groups, and in `all`, where it cannot): a demo model whose file broke stays out of
    `all`, so that `--judge all` is not stopped by a judge it would not run."""
    try:
        data, _ = _read_yaml(path)
    except RosterError:
        return (), True
    if not isinstance(data, dict):
        return (), True
    groups = data.get("groups")
    in_all = data.get("in_all") is not False
    if isinstance(groups, list) and all(isinstance(g, str) for g in groups):
        return tuple(groups), in_all
    return (), in_all


@entry_points_read_once()
def load_catalog(
    kind: RosterKind = "generators",
    directory: Path | None = None,
    *,
    check_providers: bool = True,
) -> Roster:
    """Every model file of the roster, sorted by name.

    `check_providers=False` leaves out the checks that import each provider's SDK (see
    `load_model_file`): for display names, not for choosing a model to run.

    A file with a problem of its own (its YAML, a field, an unset `${VAR}`, a provider that is
    not installed) is an `UnusableModel`, so that it stops only the commands that select it. A
    later folder's file replaces an earlier one of the same name, usable or not. Errors of the
    roster as a whole stay errors: a missing folder, two files of one model in one folder, a
    reserved file name."""
    entries: dict[str, RosterEntry] = {}
    unusable: dict[str, UnusableModel] = {}
    providers = available_providers()
    for folder in roster_directories(kind, directory):
        if not folder.is_dir():
            raise RosterError(f"no {kind} folder at {folder}{_home_hint(kind, folder)}")
        here: dict[str, Path] = {}
        for path in _model_files(folder):
            name = path.stem
            if name in here:  # NAME.yaml and NAME.yml: one of them was used, silently
                raise RosterError(
                    f"{here[name]} and {path.name} both define {kind[:-1]} {name!r}; "
                    "keep one of them"
                )
            if name in RESERVED_NAMES:
                raise RosterError(f"{path}: {name!r} is reserved and cannot name a model")
            here[name] = path
            entries.pop(name, None)
            unusable.pop(name, None)
            try:
                spec = load_model_file(path, providers, kind, check_provider=check_providers)
                entries[name] = RosterEntry(spec=spec, path=path)
            except RosterFileError as error:
                unusable[name] = UnusableModel(
                    name, path, error.reason, str(error), *_raw_membership(path)
                )
    return Roster(kind, dict(sorted(entries.items())), dict(sorted(unusable.items())))


def load_entries(
    kind: RosterKind = "generators", directory: Path | None = None
) -> dict[str, RosterEntry]:
    """Every usable model of the roster with the file it came from, sorted by name."""
    return load_catalog(kind, directory).entries


def load_roster(
    kind: RosterKind = "generators", directory: Path | None = None
) -> dict[str, ModelSpec]:
    """Usable model specs by name, from the bundled folder (or `directory`) and the user's
    folders (`load_catalog` also has the unusable files)."""
    return load_catalog(kind, directory).specs()
