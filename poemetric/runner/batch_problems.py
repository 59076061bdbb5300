"""The lines under a stage's summary about batches whose results failed to download, or are
gone for good (their jobs are stored as error rows)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from poemetric.text.plural import counted, plural

if TYPE_CHECKING:
    from poemetric.runner.report import StageReport


def render_batch_problems(report: StageReport, console: Console) -> None:
    """The jobs of batches whose results failed to download, or are gone (error rows)."""
    failed = int(report.total("download_failed"))
    if failed:
        ids = ", ".join(b for m in report.models for b in m.uncollected_batches)
        console.print(
            f"{counted(failed, 'job')} {plural(failed, 'is', 'are')} in finished batches whose "
            f"results download failed ({ids}): "
            "they are stored as errors, and the next run downloads these batches again "
            "(nothing is sent or paid again). If the download keeps failing, `poemetric "
            "batches abandon BATCH_ID --run RUN` gives a batch up: the next run then submits "
            "its jobs again, and pays for them again.",
            style="yellow",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
    gone = int(report.total("abandoned"))
    if gone:
        ids = ", ".join(b for m in report.models for b in m.abandoned_batches)
        console.print(
            f"{counted(gone, 'job')} {plural(gone, 'is', 'are')} in batches whose results the "
            "provider can no longer serve "
            f"({ids}): these batches are abandoned, and the next run submits their jobs "
            "again, paying for them again.",
            style="yellow",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
