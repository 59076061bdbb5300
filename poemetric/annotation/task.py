"""The line-level fluency / coherence annotation task (Potash, Romanov & Rumshisky, Sec. 4.1).

Annotators grade every line of a poem twice, on the paper's three-point scales:

* fluency: is the line a valid English utterance? strongly fluent (1), weakly fluent (0.5: fluent
  only in parts, disjointed), not fluent (0: highly incoherent text);
* coherence: how believable is it that the line follows the line before it? strongly (1),
  weakly (0.5), not coherent (0). The first line has no line before it (no coherence grade), and
  a line that repeats the line before it is not coherent by rule (the paper's convention for
  verses that repeat one line).

A `LineTask` is the data of one set of sheets: the poems (blind: no author), their lines and the
grades fixed by rule. It is plain JSON (`to_dict`) with a `kind`, stored in the run's meta; the
printable sheets and the CSV template are renderings of it, and the survey app serves it as its
`lines` task (`poemetric.survey.lines`, sheet id `survey-SURVEY`).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from poemetric.store import RunStore, stable_id, utc_now
from poemetric.text.lines import poem_lines

LINE_TASK_KIND = "line-fluency-coherence"
LINE_TASK_VERSION = 1
QUESTIONS = ("fluency", "coherence")
#: Label -> score. The first three are what the sheets print; the others are accepted on import.
LABEL_SCORES: dict[str, float] = {
    "strong": 1.0,
    "weak": 0.5,
    "not": 0.0,
    "s": 1.0,
    "w": 0.5,
    "n": 0.0,
    "1": 1.0,
    "0.5": 0.5,
    ".5": 0.5,
    "0": 0.0,
    "strongly": 1.0,
    "weakly": 0.5,
    "strongly fluent": 1.0,
    "weakly fluent": 0.5,
    "not fluent": 0.0,
    "strongly coherent": 1.0,
    "weakly coherent": 0.5,
    "not coherent": 0.0,
}
NOT_APPLICABLE = "n/a"
META_PREFIX = "line_sheet:"


@dataclass(frozen=True)
class LineItem:
    """One poem of a sheet. `repeats` holds the 1-based numbers of lines that repeat the line
    before them (coherence fixed at 0)."""

    item: int
    generation_id: str
    lines: list[str]
    repeats: list[int] = field(default_factory=list)

    def asks_coherence(self, number: int) -> bool:
        """Whether line `number` gets a coherence grade from the annotator (not the first line,
        not a line that repeats the one before: those are fixed by rule)."""
        return number > 1 and number not in self.repeats

    def fixed_coherence(self, number: int) -> float | None:
        """The coherence a line gets by rule: 0 for a repeated line, none for the first."""
        return 0.0 if number in self.repeats else None


@dataclass(frozen=True)
class LineTask:
    sheet_id: str
    created_at: str
    items: list[LineItem]
    kind: str = LINE_TASK_KIND
    version: int = LINE_TASK_VERSION
    #: `ghostwriting sheets --seed`, which drew the poems and their order: recorded so that the
    #: sheet can be drawn again (None: a survey's lines, or a sheet stored before it was kept).
    seed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["scale"] = {"strong": 1.0, "weak": 0.5, "not": 0.0}
        data["questions"] = list(QUESTIONS)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LineTask:
        items = [LineItem(**item) for item in data["items"]]
        return cls(
            data["sheet_id"],
            data["created_at"],
            items,
            data["kind"],
            data["version"],
            data.get("seed"),
        )


def repeated_lines(lines: Sequence[str]) -> list[int]:
    """1-based numbers of lines identical (case and spacing aside) to the line before."""
    normal = [" ".join(line.lower().split()) for line in lines]
    return [n + 1 for n in range(1, len(lines)) if normal[n] == normal[n - 1]]


def build_line_task(
    store: RunStore,
    *,
    authors: Sequence[str] | None = None,
    per_author: int = 5,
    seed: int = 0,
) -> LineTask:
    """Draw `per_author` poems of each author (seeded), shuffle them, and save the task in the
    run store so that the filled sheets can be imported and checked against it."""
    rows = store.query(
        "SELECT generation_id, author, poem FROM generations WHERE status = 'ok' "
        "AND poem IS NOT NULL ORDER BY generation_id"
    )
    by_author: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for row in rows:
        if authors is None or row["author"] in authors:
            by_author[row["author"]].append((row["generation_id"], row["poem"]))
    rng = random.Random(seed)
    chosen: list[tuple[str, str]] = []
    for author in sorted(by_author):
        poems = by_author[author]
        chosen += rng.sample(poems, min(per_author, len(poems)))
    rng.shuffle(chosen)
    items = line_items(chosen)
    sheet_id = stable_id("line-sheet", [item.generation_id for item in items], seed, length=10)
    task = LineTask(sheet_id, utc_now(), items, seed=seed)
    store.set_meta(META_PREFIX + sheet_id, task.to_dict())
    return task


def line_items(poems: Sequence[tuple[str, str]]) -> list[LineItem]:
    """The items of (generation_id, poem) pairs, numbered in this order; a poem without lines
    is left out (its number too)."""
    return [
        LineItem(number, generation_id, lines, repeated_lines(lines))
        for number, (generation_id, poem) in enumerate(poems, start=1)
        if (lines := poem_lines(poem))
    ]


def stored_task(store: RunStore, sheet_id: str) -> LineTask | None:
    data = store.get_meta(META_PREFIX + sheet_id)
    return None if data is None else LineTask.from_dict(data)


def stored_tasks(store: RunStore) -> dict[str, LineTask]:
    """The line tasks saved in the run store, by sheet id."""
    rows = store.query("SELECT key FROM meta WHERE key LIKE ?", (META_PREFIX + "%",))
    tasks = {}
    for row in rows:
        data = store.get_meta(row["key"])
        tasks[data["sheet_id"]] = LineTask.from_dict(data)
    return tasks
