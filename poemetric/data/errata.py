"""Dataset errata: confirmed annotation errors with evidence and corrected values.

`datasets/<name>/errata.yaml` lists them (see the file's header). `load_errata` reads the list
of a dataset name, `errata_for_release` the list written for a file's sha256 (a run prepared from
the file by path still finds it). `corrected_annotation` returns the corrected annotation of one
data row, matched by row number and a hash of the poem text (so an erratum never lands on another
poem), and says what it did. Nothing here is applied by the loader: data is always read as
released, and a caller that applies errata must say so in what it reports (the form stage stores
the human poems' verdicts with errata beside the default ones; the analysis reports both).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from poemetric.data.normalize import normalize_content
from poemetric.data.registry import dataset_registry, hex_digest
from poemetric.data.text_files import TextFileError
from poemetric.data.yaml_fields import validate_yaml_file
from poemetric.paths import resource_path

if TYPE_CHECKING:
    from poemetric.store import RunStore


class Erratum(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    row: int = Field(ge=1)
    content_sha256: str
    field: Literal["rhyme_pattern", "meter_pattern", "form"]
    annotated: str
    #: None: no value of the field describes the poem (drop the row from gold measurements).
    corrected: str | None
    evidence: str

    @field_validator("content_sha256")
    @classmethod
    def _content_hash(cls, value: str) -> str:
        return hex_digest(value, 16, "a poem's hash", " (`content_hash` of the row's text)")


class Errata(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    release_sha256: str
    errata: list[Erratum]

    @field_validator("release_sha256")
    @classmethod
    def _release_hash(cls, value: str) -> str:
        return hex_digest(value, how=", as `sha256sum FILE` prints")


def errata_path(dataset: str) -> Path:
    return resource_path("datasets", dataset, "errata.yaml")


def load_errata(dataset: str = "poemetric") -> Errata | None:
    """The dataset's errata, or None when it has none. A file that is not UTF-8 YAML, an empty
    one or one with a wrong field is a `TextFileError` naming the file and line (a traceback
    before). One that cannot be opened (a folder at its path, a link to no file, no permission)
    is a `TextFileError` naming the file and why (a folder or a dangling link was taken for no
    errata, so the dataset's known errors were silently not applied)."""
    path = errata_path(dataset)
    if not path.exists() and not path.is_symlink():
        return None
    return validate_yaml_file(path, Errata)


def errata_for_release(sha256: str | None, dataset: str | None = None) -> Errata | None:
    """The errata written for the dataset file with this sha256 (named `dataset`), whatever its
    name or path.

    Every dataset's errata file is looked at, but one that cannot be read stops only a command on
    its own dataset (`_may_be_for`): a broken `datasets/mine/errata.yaml` stopped `dataset show
    demo`, `analyze` and `form run` of every run. Its `TextFileError` names file, line and field
    (or the OS's reason) for the commands that use it; `broken_errata` lists them for `dataset
    list`."""
    if not sha256:
        return None
    for path in errata_files():
        try:
            errata = load_errata(path.parent.name)
        except TextFileError:
            if _may_be_for(path, sha256, dataset):
                raise
            continue
        if errata is not None and errata.release_sha256 == sha256:
            return errata
    return None


def errata_files() -> list[Path]:
    """Every dataset's `errata.yaml` (bundled, or under `$POEMETRIC_HOME`), sorted; a link to
    a file that is gone is one too (a glob leaves it out, and its dataset's errata with it)."""
    paths = (folder / "errata.yaml" for folder in resource_path("datasets").glob("*/"))
    return sorted(path for path in paths if path.exists() or path.is_symlink())


def _may_be_for(path: Path, sha256: str, dataset: str | None) -> bool:
    """Whether the errata file at `path`, which cannot be read, may be the one of the dataset
    file with this sha256, named `dataset`: its folder is that dataset's (the registry's dataset
    of that file, or an unregistered folder of that name: `datasets/mine/` for `mine.csv`), or
    its text names the sha256 (an unregistered dataset's `release_sha256:`). Any other one is
    another dataset's; so is one whose bytes cannot be read at all (a folder at its path, no
    permission) in another dataset's folder, which stopped every command (no telling whose)."""
    folder = path.parent.name
    entry = dataset_registry().get(folder)
    if entry is not None and entry.sha256 == sha256:
        return True
    if (entry is None or not entry.sha256) and folder == dataset:
        return True
    try:
        return sha256.lower().encode("ascii") in path.read_bytes().lower()
    except OSError:
        return False


def broken_errata() -> list[str]:
    """The error of each errata file that cannot be read (`FILE:LINE: ...`, first line)."""
    problems = []
    for path in errata_files():
        try:
            load_errata(path.parent.name)
        except TextFileError as error:
            problems.append(str(error).splitlines()[0])
    return problems


def errata_for_run(store: RunStore) -> Errata | None:
    """The errata of the dataset file a run was prepared from (its recorded sha256)."""
    recorded = store.get_meta("dataset") or {}
    return errata_for_release(recorded.get("sha256"), recorded.get("name"))


def content_hash(content: str) -> str:
    """First 16 hex digits of the sha256 of the poem text as loaded (`normalize_content`: NFC,
    `\\n` newlines, no trailing spaces), so the raw file and a run's stored snapshot agree."""
    return hashlib.sha256(normalize_content(content).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Correction:
    """What applying one erratum to one row gives."""

    erratum: Erratum
    #: "corrected" (use `erratum.corrected`), "excluded" (no value fits), or "mismatch" (the row's
    #: text or annotated value is not the one the erratum was written for: nothing applied).
    status: Literal["corrected", "excluded", "mismatch"]


def correction_for(errata: Errata, row: int, content: str, value: str | None) -> Correction | None:
    """The erratum of data row `row` (1-based) if there is one, checked against the row."""
    for erratum in errata.errata:
        if erratum.row != row:
            continue
        same_text = content_hash(content) == erratum.content_sha256
        same_value = " ".join((value or "").split()) == " ".join(erratum.annotated.split())
        if not (same_text and same_value):
            return Correction(erratum, "mismatch")
        return Correction(erratum, "corrected" if erratum.corrected is not None else "excluded")
    return None


@dataclass(frozen=True)
class CorrectedAnnotation:
    """A data row's form, metre and rhyme pattern once its erratum is applied."""

    correction: Correction
    form: str
    meter: str | None
    rhyme: str | None


def corrected_annotation(
    errata: Errata, row: int, content: str, form: str, meter: str | None, rhyme: str | None
) -> CorrectedAnnotation | None:
    """The annotation of data row `row` with its erratum applied; None when it has none.

    The values stay the row's own when the erratum does not match the row (`status`
    "mismatch") or leaves the row out ("excluded")."""
    erratum = next((e for e in errata.errata if e.row == row), None)
    if erratum is None:
        return None
    values: dict[str, str | None] = {"form": form, "meter_pattern": meter, "rhyme_pattern": rhyme}
    correction = correction_for(errata, row, content, values[erratum.field])
    assert correction is not None  # the row has an erratum
    if correction.status == "corrected":
        values[erratum.field] = erratum.corrected
    return CorrectedAnnotation(
        correction, values["form"] or form, values["meter_pattern"], values["rhyme_pattern"]
    )
