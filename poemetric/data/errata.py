"""Dataset errata: confirmed annotation errors with evidence and corrected values.

`datasets/<name>/errata.yaml` lists them (see the file's header). `load_errata` reads the list;
`apply_errata` returns corrected copies of the annotations it matches (by data row and a hash of
the poem text, so an erratum never lands on another poem) and says what it did. Nothing here is
applied by the loader: data is always read as released, and a caller that applies errata must
say so in what it reports.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict

from poemetric.paths import resource_path


class Erratum(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    row: int
    content_sha256: str
    field: Literal["rhyme_pattern", "meter_pattern", "form"]
    annotated: str
    #: None: no value of the field describes the poem (drop the row from gold measurements).
    corrected: str | None
    evidence: str


class Errata(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    release_sha256: str
    errata: list[Erratum]


def errata_path(dataset: str) -> Path:
    return resource_path("datasets", dataset, "errata.yaml")


def load_errata(dataset: str = "poemetric") -> Errata | None:
    """The dataset's errata, or None when it has none."""
    path = errata_path(dataset)
    if not path.is_file():
        return None
    return Errata.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]


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
