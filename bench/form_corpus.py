"""The public-domain evaluation corpora of bench/data/ (see each one's README.md).

`load_corpus(directory)` returns every case of one corpus (default: `form_eval`, the corpus the
form checker was developed on; `form_holdout` was typed later and first checked unseen): a text,
the form it is checked as, and whether it should pass. A corpus may lack any of the files.
`gold_overlap(csv)` lists corpus poems that also appear in the POEMetric release (by normalised
title or first line); a corpus must have none.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import yaml

CORPUS_DIR = Path(__file__).resolve().parent / "data" / "form_eval"
HOLDOUT_DIR = CORPUS_DIR.with_name("form_holdout")
NEGATIVE_FORMS = {
    "free verse": ("sonnet", "ballad", "limerick"),
    "blank verse": ("sonnet", "ballad", "limerick"),
    "prose": ("sonnet", "ballad", "limerick"),
    "rhymed couplets": ("sonnet",),
}
FILES = {
    "sonnets.yaml": ("sonnet", "sonnet"),
    "ballads.yaml": ("ballad", "ballad"),
    "limericks.yaml": ("limerick", "limerick"),
}


@dataclass(frozen=True)
class Case:
    id: str
    category: str  # "sonnet", "ballad", "limerick", "ballade", "rondeau", "free verse as sonnet"...
    author: str
    title: str
    form: str
    text: str
    should_pass: bool
    note: str = ""


def _entries(directory: Path, name: str) -> list[dict[str, object]]:
    path = directory / name
    if not path.is_file():
        return []
    return list(yaml.safe_load(path.read_text(encoding="utf-8")) or [])


def load_corpus(directory: Path = CORPUS_DIR) -> list[Case]:
    cases: list[Case] = []
    for name, (category, form) in FILES.items():
        for entry in _entries(directory, name):
            cases.append(_case(entry, category, form, True))
    for entry in _entries(directory, "other_forms.yaml"):
        form = str(entry["form"])
        cases.append(_case(entry, form, form, form == "ballade"))
    for entry in _entries(directory, "negatives.yaml"):
        kind = str(entry["category"])
        for form in NEGATIVE_FORMS[kind]:
            cases.append(_case(entry, f"{kind} as {form}", form, False))
    return cases


def _case(entry: dict[str, object], category: str, form: str, should_pass: bool) -> Case:
    return Case(
        id=str(entry["id"]),
        category=category,
        author=str(entry["author"]),
        title=str(entry["title"]),
        form=form,
        text=str(entry["text"]),
        should_pass=should_pass,
        note=str(entry.get("note", "")),
    )


def _key(text: str) -> str:
    """Lower-case letters and single spaces: ligatures spelled out and accents dropped first, so
    that *Thermopylæ* and *Thermopylae* are one title."""
    text = text.lower().replace("’", "'").replace("æ", "ae").replace("œ", "oe")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return " ".join(re.sub(r"[^a-z ]+", " ", text).split())


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def gold_overlap(gold_csv: Path, directory: Path = CORPUS_DIR) -> list[str]:
    """Corpus ids whose title or first line is also in the POEMetric release."""
    with gold_csv.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    titles = {_key(row["title"]) for row in rows}
    firsts = {_key(_first_line(row["content"]))[:40] for row in rows}
    found = []
    for case in {c.id: c for c in load_corpus(directory)}.values():
        title = _key(case.title.split(":")[-1].split("(")[0])
        first = _key(_first_line(case.text))[:40]
        if (title and title in titles) or first in firsts:
            found.append(case.id)
    return found
