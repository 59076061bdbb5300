"""Minimal-pair probes (BPoMP and the limerick paper; docs/probes.md): the score files a user
wrote into RUN/probes/ (`poemetric probe run … --output RUN/probes/NAME.jsonl`), as accuracy per
scorer and task and the paper-shaped tables with the published numbers beside ours."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render

#: Where the report looks for probe score files (JSONL written by `probe run`).
PROBES_DIR = "probes"


def _cells(frame: pd.DataFrame) -> list[list[Any]]:
    return [[None if pd.isna(v) else v for v in row] for row in frame.itertuples(index=False)]


@section(75)
def probes(run: ReportRun) -> Section | None:
    from poemetric.probes.pairs import PairFileError
    from poemetric.probes.results import CAPTIONS, probe_tables
    from poemetric.probes.scorers.base import DuplicateScoreError, read_scores

    folder = Path(run.run_dir) / PROBES_DIR
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    records = []
    used: list[str] = []  # the files the tables count (the skipped ones are said apart)
    skipped: list[str] = []
    seen: dict[tuple[str, str], str] = {}
    for path in files:
        try:
            records += read_scores(str(path), seen)
            used.append(path.name)
        except DuplicateScoreError as error:  # a copy of another file: counted twice
            skipped.append(f"{path.name}: {error}")
        except PairFileError as error:  # e.g. a pairs file kept beside the scores
            skipped.append(f"{path.name}: not a score file ({error})")
    if not records:
        return None
    tables = probe_tables(records)
    accuracy = tables["accuracy"].to_dict("records")
    papers = [
        {"caption": CAPTIONS[name], "columns": list(tables[name].columns),
         "rows": _cells(tables[name])}
        for name in ("bpomp", "deletion", "last_line")
        if (tables[name]["source"] == "ours").any()
    ]  # fmt: skip
    html = render("probes.html.j2", accuracy=accuracy, papers=papers,
                  files=used, skipped=skipped)  # fmt: skip
    return Section("probes", "Minimal-pair probes", html)
