"""Known datasets, as listed in `datasets/registry.yaml`."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from poemetric.data.io import DatasetError
from poemetric.data.yaml_fields import (
    FieldProblem,
    YamlFieldError,
    line_of,
    read_yaml_document,
    validate_yaml_file,
)
from poemetric.hints import program
from poemetric.paths import home_lacks, resource_path, user_data_path
from poemetric.suggest import did_you_mean

REGISTRY_FILE = "registry.yaml"


def hex_digest(value: str, digits: int = 64, what: str = "a sha256", how: str = "") -> str:
    """`value` in lower case, as every comparison of digests is; a `ValueError` (a field's
    message) unless it is `digits` hexadecimal digits."""
    if len(value) != digits or not re.fullmatch(r"[0-9a-fA-F]*", value):
        raise ValueError(f"{value!r} is not {what}: {digits} hexadecimal digits{how}")
    return value.lower()


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
    poems: int | None = Field(default=None, ge=1, description="Number of poems in the file.")
    licence: str | None = None

    @field_validator("sha256")
    @classmethod
    def _sha256(cls, value: str | None) -> str | None:
        return None if value is None else hex_digest(value, how=", as `sha256sum FILE` prints")

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
            fix = home_lacks("datasets", self.name, self.file) or "reinstall POEMetric"
            return f"bundled dataset {self.name!r} is missing from {self.path}; {fix}"
        return (
            f"dataset {self.name!r} is not downloaded yet (expected at {self.path}): run "
            f"`{program()} dataset fetch {self.name}` or pass the path to {self.file}"
        )


class _RegistryFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    datasets: list[DatasetEntry]


def registry_path() -> Path:
    return resource_path("datasets", REGISTRY_FILE)


@cache
def _load_registry(path: Path) -> dict[str, DatasetEntry]:
    if not path.is_file():
        raise DatasetError(
            f"dataset registry {path} is missing; "
            f"{home_lacks('datasets', REGISTRY_FILE) or 'reinstall POEMetric'}"
        )
    # Not UTF-8 YAML, empty or a wrong field ($POEMETRIC_HOME's own copy): a TextFileError,
    # which the command line prints as `error: FILE:LINE: ...` whatever the command (a
    # traceback before).
    document = read_yaml_document(path)
    entries = validate_yaml_file(path, _RegistryFile, document).datasets
    registry: dict[str, DatasetEntry] = {}
    for index, entry in enumerate(entries):
        if entry.name in registry:  # the later entry replaced the earlier without a word
            loc = ("datasets", index, "name")
            first = line_of(document[1], ("datasets", list(registry).index(entry.name)))
            problem = f"{entry.name!r} names another dataset too (line {first})"
            raise YamlFieldError(path, [FieldProblem(loc, line_of(document[1], loc), problem)])
        registry[entry.name] = entry
    return registry


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
