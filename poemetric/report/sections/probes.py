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
    from poemetric.probes.pair_sets import compare_pair_sets
    from poemetric.probes.pairs import PairFileError
    from poemetric.probes.results import CAPTIONS, probe_tables
    from poemetric.probes.scorers.base import DuplicateScoreError, read_scores

    folder = Path(run.run_dir) / PROBES_DIR
    files = sorted(folder.glob("*.jsonl")) if folder.is_dir() else []
    records = []
    where: list[str] = []  # the file of each record
    used: list[str] = []  # the files the tables count (the skipped ones are said apart)
    skipped: list[str] = []
    seen: dict[tuple[str, str], str] = {}
    for path in files:
        try:
            read = read_scores(str(path), seen)
            records += read
            where += [path.name] * len(read)
            used.append(path.name)
        except DuplicateScoreError as error:  # a copy of another file: counted twice
            skipped.append(f"{path.name}: {error}")
        except PairFileError as error:  # e.g. a pairs file kept beside the scores
            skipped.append(f"{path.name}: not a score file ({error})")
    if not records:
        return None
    # Scorers run on different pairs (another pairs file, --limit, --tasks): the accuracies
    # side by side compare different data, which only the Pairs column hinted at.
    sets = compare_pair_sets(records, where)
    tables = probe_tables(records)
    accuracy = tables["accuracy"].to_dict("records")
    papers = [
        {"caption": CAPTIONS[name], "columns": list(tables[name].columns),
         "rows": _cells(tables[name])}
        for name in ("bpomp", "deletion", "last_line")
        if (tables[name]["source"] == "ours").any()
    ]  # fmt: skip
    html = render("probes.html.j2", accuracy=accuracy, papers=papers, files=used,
                  skipped=skipped, pair_sets=sets if sets.differ else None)  # fmt: skip
    return Section("probes", "Minimal-pair probes", html)
