"""Runs whose experts rated some poems, as the tests of Figs. 6-8 and of the report's "Scores by
dimension" build them (a synthetic run, an experts CSV, judgments deleted where a test needs)."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping
from pathlib import Path

from poemetric.analysis.synthetic import build_synthetic_run
from poemetric.questionnaire import DIMENSION_KEYS
from poemetric.store import RunStore


def write_experts(path: Path, scores: Mapping[str, float]) -> Path:
    """An experts CSV at `path`: experts E1 and E2 each give a generation every item's score
    `scores[generation_id]`."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["expert", "generation_id", *DIMENSION_KEYS])
        for expert in ("E1", "E2"):
            for generation, score in scores.items():
                writer.writerow([expert, generation, *[score] * len(DIMENSION_KEYS)])
    return path


def drop_judgments(run: Path, generation_ids: Iterable[str]) -> None:
    """Every judgment of these generations deleted (a failed judgment, `judge --limit`)."""
    with RunStore(run, create=False) as store, store.transaction() as conn:
        conn.executemany(
            "DELETE FROM judgments WHERE generation_id = ?", [(g,) for g in generation_ids]
        )


def first_poems(run: Path, author: str, n: int) -> list[str]:
    """The first `n` generation ids of `author` (by id)."""
    with RunStore(run, create=False) as store:
        rows = store.query(
            "SELECT generation_id FROM generations WHERE author = ? ORDER BY generation_id LIMIT ?",
            (author, n),
        )
    return [str(row[0]) for row in rows]


def half_judged_run(base: Path) -> tuple[Path, Path, list[str]]:
    """A review's reproduction: the experts rated 4 model-a poems (two scored 1, two 5) and the
    judgments of the two 5-rated poems are deleted. The run, the experts CSV, the 4 poems."""
    run = base / "run"
    build_synthetic_run(run, poems_per_form=3).close()
    poems = first_poems(run, "model-a", 4)
    drop_judgments(run, poems[2:])
    experts = write_experts(base / "experts.csv", dict(zip(poems, (1, 1, 5, 5), strict=True)))
    return run, experts, poems
