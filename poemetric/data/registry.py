"""Known datasets, as listed in `datasets/registry.yaml`."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from poemetric.data.io import DatasetError
from poemetric.data.text_files import read_yaml_file
from poemetric.paths import resource_path, user_data_path
from poemetric.suggest import did_you_mean

REGISTRY_FILE = "registry.yaml"


class DatasetEntry(BaseModel):
    """One dataset of the registry: bundled with POEMetric, or fetched into the user data dir."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    file: str = Field(description="File name inside the dataset's directory.")
    bundled: bool = Field(default=False, description="Shipped in datasets/<name>/.")
    repository: str | None = Field(default=None, description="GitHub owner/name of the source.")
    commit: str | None = Field(default=None, description="Pinned commit of the source.")
    url: str | None = Field(
        default=None, description="Download URL; '{commit}' is replaced by the pinned commit."
    )
    sha256: str | None = Field(default=None, description="Expected sha256 of the file.")
    poems: int | None = Field(default=None, description="Number of poems in the file.")
    licence: str | None = None

    def download_url(self, commit: str | None = None) -> str | None:
        if self.url is None:
            return None
        return self.url.format(commit=commit or self.commit or "main")

    @property
    def path(self) -> Path:
        """Where the file is (bundled) or goes once fetched (user data dir)."""
        if self.bundled:
            return resource_path("datasets", self.name, self.file)
        return user_data_path("datasets", self.name, self.file)

    @property
    def present(self) -> bool:
        return self.path.is_file()

    def missing_message(self) -> str:
        if self.bundled:
            return f"bundled dataset {self.name!r} is missing from {self.path}; reinstall POEMetric"
        return (
            f"dataset {self.name!r} is not downloaded yet (expected at {self.path}): run "
            f"`poemetric dataset fetch {self.name}` or pass the path to {self.file}"
        )


class _RegistryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    datasets: list[DatasetEntry]


def registry_path() -> Path:
    return resource_path("datasets", REGISTRY_FILE)


@cache
def _load_registry(path: Path) -> dict[str, DatasetEntry]:
    if not path.is_file():
        raise DatasetError(f"dataset registry {path} is missing; reinstall POEMetric")
    # Not UTF-8 YAML, or empty ($POEMETRIC_HOME's own copy): a TextFileError, which the command
    # line prints as one `error:` line whatever the command (a traceback before).
    raw = read_yaml_file(path)
    entries = _RegistryFile.model_validate(raw).datasets
    return {entry.name: entry for entry in entries}


def dataset_registry() -> dict[str, DatasetEntry]:
    """Name → entry of every known dataset."""
    return dict(_load_registry(registry_path()))


def get_entry(name: str) -> DatasetEntry:
    registry = dataset_registry()
    try:
        return registry[name]
    except KeyError:
        known = ", ".join(sorted(registry))
        raise DatasetError(
            f"unknown dataset {name!r}{did_you_mean(name, registry)}; known datasets: {known}"
        ) from None
