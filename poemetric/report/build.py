"""`build_report`: load the run once, build every section, write the page: one self-contained HTML
file, or a small page with its poems in a folder beside it (`parts.py`)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from importlib.resources import files
from pathlib import Path
from typing import Any

from markupsafe import Markup

from poemetric import __version__
from poemetric.analysis.context import expert_ratings
from poemetric.analysis.data import load_run_data
from poemetric.analysis.experts import one_expert_source
from poemetric.analysis.labels import run_labels
from poemetric.analysis.validation import AGREEMENT_BOOTSTRAP, BOOTSTRAP_SEED
from poemetric.report.model import ReportRun, Section
from poemetric.report.parts import (
    PART_BYTES,
    Layout,
    check_parts_folder,
    chosen_layout,
    encode_parts,
    inline_parts,
    part_files,
    parts_folder,
    parts_size,
    write_report,
)
from poemetric.report.registry import section_builders
from poemetric.report.render import json_for_html, render
from poemetric.store import RunStore

REPORT_DIR = "report"
REPORT_FILE = "index.html"


def report_path(run_dir: Path, out: str | Path | None = None) -> Path:
    """Where the report of the run in `run_dir` is written: `out`, default
    RUN/report/index.html."""
    return Path(out) if out is not None else run_dir / REPORT_DIR / REPORT_FILE


def _asset(name: str) -> str:
    return (files("poemetric.report") / "assets" / name).read_text(encoding="utf-8")


def load_report_run(
    store: RunStore,
    *,
    judge: str | None = None,
    experts: str | Path | None = None,
    n_boot: int = AGREEMENT_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
    survey: str | None = None,
    exclude_failed_checks: bool = False,
) -> ReportRun:
    """Read the run (and expert ratings, when given) for the sections. `n_boot` and `seed`:
    the agreement CIs' bootstrap, by default the one `analyze` uses; `survey` (default: every
    survey) picks the stored answers and `exclude_failed_checks` leaves out the raters who
    failed an attention check, as in `analyze_run` (which, with `experts`, is refused as there:
    an ExpertRatingsError)."""
    one_expert_source(experts, survey)
    data = load_run_data(store, judge=judge)
    ratings = expert_ratings(
        store, experts, survey=survey, exclude_failed_checks=exclude_failed_checks
    )
    return ReportRun(
        store=store,
        data=data,
        labels=data.labels or run_labels(store),
        judge=judge,
        experts_path=Path(experts) if experts is not None else None,
        experts=ratings,
        notes=list(data.notes),
        n_boot=n_boot,
        seed=seed,
        survey=survey,
        exclude_failed_checks=exclude_failed_checks,
    )


def build_sections(run: ReportRun) -> list[Section]:
    """Every registered section that has something to show for this run."""
    return [built for builder in section_builders() if (built := builder(run)) is not None]


def build_report(
    store: RunStore,
    out: str | Path | None = None,
    *,
    judge: str | None = None,
    experts: str | Path | None = None,
    n_boot: int = AGREEMENT_BOOTSTRAP,
    seed: int = BOOTSTRAP_SEED,
    survey: str | None = None,
    exclude_failed_checks: bool = False,
    layout: Layout | str = Layout.AUTO,
    part_bytes: int = PART_BYTES,
) -> Path:
    """Write the report of `store`'s run to `out` (default RUN/report/index.html). `layout`:
    `file` (one self-contained page), `folder` (the page, and the poem browser's poems in
    `parts_folder(out)`, files of about `part_bytes`), or `auto`: one file up to
    `SINGLE_FILE_LIMIT` bytes of poems, a folder above. Returns the page's path."""
    started = time.perf_counter()
    layout = Layout(layout)
    path = report_path(store.run_dir, out)
    check_parts_folder(path)  # before the analysis, which takes a while
    run = load_report_run(
        store,
        judge=judge,
        experts=experts,
        n_boot=n_boot,
        seed=seed,
        survey=survey,
        exclude_failed_checks=exclude_failed_checks,
    )
    sections = build_sections(run)
    encoded = encode_parts(sections)
    files: Iterator[tuple[str, str]] | None = None  # a folder report's part files, made as written
    index: dict[str, Any] | None = None  # POEMETRIC.parts: where a folder report's parts are
    folder: str | None = None
    inline: list[tuple[str, Markup]] = []
    if chosen_layout(layout, parts_size(encoded)) is Layout.FOLDER and encoded:
        folder = parts_folder(path).name
        index, files = part_files(encoded, folder, part_bytes)
    else:
        inline = [(element, Markup(text)) for element, text in inline_parts(encoded)]
    payload = {"sections": {s.id: s.data for s in sections if s.data is not None}, "parts": index}
    page = render(
        "page.html.j2",
        title=f"POEMetric report: {store.run_dir.name}",
        run_name=store.run_dir.name,
        sections=sections,
        css=Markup(_asset("report.css")),
        script=Markup(_asset("report.js")),
        data_json=Markup(json_for_html(payload)),
        inline_parts=inline,
        parts_folder=folder,
        version=__version__,
        generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        build_seconds=f"{time.perf_counter() - started:.1f}",
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_report(path, page, files)  # Ctrl-C leaves the earlier report whole
    return path
