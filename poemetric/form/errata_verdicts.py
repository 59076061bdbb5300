"""The human poems' verdicts with their dataset's errata applied (issue 11).

The form stage checks every human poem against its annotation as released (the default verdict).
When the run's dataset file has errata (`datasets/<name>/errata.yaml`, matched by the file's
sha256) and a human poem's data row has one, the stage also stores, under `errata` in the
verdict's explanation, what the erratum did and the verdict against the corrected annotation.
The analysis reports the human row both ways. Nothing else reads the errata.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from poemetric.data.errata import CorrectedAnnotation, Errata, corrected_annotation
from poemetric.form.checker import check_poem
from poemetric.store import HUMAN_AUTHOR


def annotation_with_errata(errata: Errata | None, row: sqlite3.Row) -> CorrectedAnnotation | None:
    """The corrected annotation of a pending human row (`position`, `content`, `form`, `meter`,
    `rhyme` of its poem); None for other authors and rows without an erratum."""
    if errata is None or row["author"] != HUMAN_AUTHOR:
        return None
    return corrected_annotation(
        errata, row["position"] + 1, row["content"], row["form"], row["meter"], row["rhyme"]
    )


def errata_key(fixed: CorrectedAnnotation) -> str:
    """What a stored errata verdict was made for: it is redone when the erratum changes."""
    erratum = fixed.correction.erratum
    return f"{fixed.correction.status}:{erratum.field}:{erratum.corrected}"


def errata_verdict(text: str, fixed: CorrectedAnnotation, threshold: float) -> dict[str, Any]:
    """The `errata` entry of a verdict's explanation: the erratum, what it did, and for a
    corrected annotation the check against it (`passed` None when it cannot be assessed)."""
    erratum = fixed.correction.erratum
    entry: dict[str, Any] = {
        "key": errata_key(fixed),
        "row": erratum.row,
        "field": erratum.field,
        "annotated": erratum.annotated,
        "corrected": erratum.corrected,
        "status": fixed.correction.status,
    }
    if fixed.correction.status == "corrected":
        result = check_poem(text, fixed.form, fixed.meter, fixed.rhyme, threshold=threshold)
        unassessable = result.error is not None and result.error_kind != "text"
        entry |= {
            "passed": None if unassessable else bool(result.passed),
            "meter_score": result.meter_score,
            "rhyme_score": result.rhyme_score,
            "form_score": result.form_score,
            "summary": result.summary,
        }
    return entry
