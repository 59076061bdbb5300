"""The human row's form accuracy as released (the default) and with the dataset errata applied.

The form stage stores, beside each human poem's default verdict, what its data row's erratum did
and the verdict against the corrected annotation (`poemetric.form.errata_verdicts`). Here the
human row is computed both ways: "errata applied" replaces the verdicts of corrected rows and
leaves out the rows no value describes; an erratum that does not match its row (another text or
annotated value) is not applied. Every other table keeps the annotation as released.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.analysis.scores import form_check_scores
from poemetric.data.errata import Errata
from poemetric.hints import stage_command
from poemetric.text.plural import counted, plural

RELEASED = "as released (default)"
APPLIED = "errata applied"
SCORES = ("meter_score", "rhyme_score", "form_score")

CAPTIONS: dict[str, str] = {
    "form_checks_errata": (
        "Rule-based form check of the human poems against their annotation as released (the "
        "default, as in every other table) and with the dataset errata applied (corrected "
        "annotations; rows no value describes left out)"
    ),
    "form_checks_errata_rows": (
        "Dataset errata met by the human poems: the annotated and corrected value and the "
        "verdict each way (the dataset's errata.yaml)"
    ),
}
#: Added to the caption of the per-author form-check tables when the run's dataset has errata.
DEFAULT_NOTE = (
    "; human poems checked against their annotation as released (the default; "
    "form_checks_errata gives the human row with the dataset errata applied)"
)


def _entries(human: pd.DataFrame) -> pd.Series:
    return human["errata"].map(lambda raw: json.loads(raw) if isinstance(raw, str) else None)


def errata_tables(
    form_checks: pd.DataFrame,
    generations: pd.DataFrame,
    errata: Errata | None,
    run: Path | None = None,
) -> tuple[dict[str, pd.DataFrame], list[str]]:
    """(tables, notes): `form_checks_errata` (the human row both ways) and
    `form_checks_errata_rows` (one row per erratum met); none when the run has no errata. `run`:
    the run's folder, named in the command a note gives."""
    human = form_checks[form_checks["author"] == HUMAN_AUTHOR]
    if errata is None or human.empty:
        return {}, []
    entries = _entries(human)
    rows_with_errata = {e.row for e in errata.errata}
    stale = human[entries.isna() & (human["position"] + 1).isin(rows_with_errata)]
    if len(stale):
        return {}, [
            f"{counted(len(stale), 'human poem')} {plural(len(stale), 'has', 'have')} a dataset erratum "
            f"but {plural(len(stale), 'its', 'their')} form checks predate "
            f"the errata: run `{stage_command('form', run)}` to add the verdicts with errata applied"
        ]
    if entries.isna().all():
        return {}, ["the dataset has errata, but none concerns the checked human poems"]
    status = entries.map(lambda e: e["status"] if e else None)
    applied = _applied(human, entries, status)
    summary = pd.concat(
        [
            form_check_scores(human).assign(annotation=RELEASED),
            form_check_scores(applied).assign(annotation=APPLIED),
        ],
        ignore_index=True,
    )
    counts = {"n_corrected": "corrected", "n_excluded": "excluded", "n_not_matching": "mismatch"}
    for column, value in counts.items():
        summary[column] = [0, int((status == value).sum())]
    columns = [
        "author",
        "annotation",
        *[c for c in summary.columns if c not in ("author", "annotation")],
    ]
    titles = dict(zip(generations["generation_id"], generations["poem_title"], strict=True))
    detail = pd.DataFrame(
        [
            {
                "data_row": entry["row"],
                "poem_form": human.at[index, "poem_form"],
                "title": titles.get(human.at[index, "generation_id"], ""),
                "field": entry["field"],
                "annotated": entry["annotated"],
                "corrected": entry["corrected"]
                if entry["corrected"] is not None
                else "none (left out)",
                "status": entry["status"],
                "verdict_as_released": _verdict(human.at[index, "passed"]),
                "verdict_errata_applied": _verdict(entry.get("passed"))
                if entry["status"] == "corrected"
                else ("left out" if entry["status"] == "excluded" else "as released"),
            }
            for index, entry in entries.dropna().items()
        ]
    ).sort_values("data_row", ignore_index=True)
    notes = [
        f"dataset errata: {counted(len(detail), 'human poem')} {plural(len(detail), 'has', 'have')} "
        f"one ({_counts(status)}); the human "
        "row of every table uses the annotation as released (default), `form_checks_errata` "
        "gives it with the errata applied"
    ]
    return {"form_checks_errata": summary[columns], "form_checks_errata_rows": detail}, notes


def _applied(human: pd.DataFrame, entries: pd.Series, status: pd.Series) -> pd.DataFrame:
    """The human poems' checks with the errata applied: corrected rows take their corrected
    verdict and scores, rows no value describes are left out, the others stay as released."""
    applied = human[status != "excluded"].copy()
    for index in applied.index[status[applied.index] == "corrected"]:
        entry = entries[index]
        passed = entry["passed"]
        applied.loc[index, "passed"] = None if passed is None else int(passed)
        for score in SCORES:
            applied.loc[index, score] = entry[score]
    return applied


def errata_caption(form_checks: pd.DataFrame) -> str:
    """The sentence that ends the caption of a figure of form-check pass rates whose human
    poems' checks carry the dataset errata verdicts (`form run` of a dataset with errata): the
    human bars are the annotation as released, the default, and the pass rate with the errata
    applied is `analyze`'s `form_checks_errata`. "" where no human check shown carries one (a
    dataset without errata, no human poems shown, or checks made before the errata: `analyze`
    notes those)."""
    if "errata" not in form_checks:
        return ""
    human = form_checks[form_checks["author"] == HUMAN_AUTHOR]
    entries = _entries(human)
    if human.empty or entries.isna().all():
        return ""
    status = entries.map(lambda e: e["status"] if e else None)
    released = form_check_scores(human).iloc[0]
    applied = form_check_scores(_applied(human, entries, status)).iloc[0]
    if not released["n"] or not applied["n"]:
        return ""
    return (
        " The human poems are checked against their annotation as released (the default; "
        f"pass rate {released['pass_rate']:.2f} over {counted(int(released['n']), 'poem')}); "
        f"with the dataset errata applied ({_counts(status)}) their pass rate is "
        f"{applied['pass_rate']:.2f} over {counted(int(applied['n']), 'poem')} "
        "(`poemetric analyze`'s table form_checks_errata gives both over the poems of every "
        "form)."
    )


def _verdict(passed: object) -> str:
    if passed is None or (isinstance(passed, float) and pd.isna(passed)):
        return "unchecked"
    return "pass" if bool(passed) else "fail"


def _counts(status: pd.Series) -> str:
    named = {"corrected": "corrected", "excluded": "left out", "mismatch": "not matching its row"}
    found = status.dropna().value_counts()
    return ", ".join(f"{int(found[key])} {label}" for key, label in named.items() if key in found)
