"""Human expert ratings: reading the CSV and matching it to the run's generations.

CSV format (one row per expert x poem; documented in docs/analysis.md):

* `expert` — any rater id (required);
* the poem, either `generation_id`, or `poem_id` + `author` (+ optional `sample_index`, default 0);
* the 10 items, one column each, named like the judge dimensions: form, theme, vocabulary,
  creativity, idiosyncrasy, emotional_resonance, imagery, literary_devices, overall_quality,
  human_authorship. Scores 1-5; 0 = N/A for imagery and literary_devices; a blank cell = not
  rated. Other columns (comments, timestamps) are ignored.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from poemetric.judge.answer import DIMENSIONS
from poemetric.store import RunStore

EXPERTS_JUDGE = "experts"


class ExpertRatingsError(ValueError):
    """The expert CSV is malformed; the message names the file and line."""


def load_expert_ratings(path: str | Path, store: RunStore) -> pd.DataFrame:
    """Validated expert ratings joined with the run's generations.

    Returns columns expert, generation_id, author, poem_id, poem_form and the 10 dimension keys
    (float; NaN = not rated).
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            header = [h.strip() for h in reader.fieldnames or []]
            raw_rows = [
                {(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in reader
            ]
    except OSError as exc:
        raise ExpertRatingsError(f"{path}: cannot read expert ratings: {exc}") from exc
    missing = [c for c in ("expert",) if c not in header]
    by_generation = "generation_id" in header
    if not by_generation and not {"poem_id", "author"} <= set(header):
        missing.append("generation_id (or poem_id and author)")
    dims_present = [d.key for d in DIMENSIONS if d.key in header]
    if not dims_present:
        missing.append("at least one item column (" + ", ".join(d.key for d in DIMENSIONS) + ")")
    if missing:
        raise ExpertRatingsError(f"{path}: missing column(s): {', '.join(missing)}")

    generations = pd.read_sql_query(
        "SELECT g.generation_id, g.poem_id, g.author, g.sample_index, p.form AS poem_form "
        "FROM generations g JOIN poems p ON p.poem_id = g.poem_id WHERE g.status = 'ok'",
        store.conn,
    )
    by_id = generations.set_index("generation_id")
    by_key: dict[tuple[str, str, int], str] = {
        (str(poem_id), str(author), int(sample)): str(generation_id)
        for generation_id, poem_id, author, sample in zip(
            generations["generation_id"],
            generations["poem_id"],
            generations["author"],
            generations["sample_index"],
            strict=True,
        )
    }
    rows: list[dict[str, object]] = []
    seen: dict[tuple[str, str], int] = {}
    problems: list[str] = []
    for line, raw in enumerate(raw_rows, start=2):
        where = f"{path}:{line}"
        expert = raw.get("expert", "")
        if not expert:
            problems.append(f"{where}: empty expert id")
            continue
        generation_id = _resolve_generation(
            raw, by_generation, by_key, by_id.index, where, problems
        )
        if generation_id is None:
            continue
        if (expert, generation_id) in seen:
            problems.append(
                f"{where}: expert {expert!r} rated poem {generation_id} already on line "
                f"{seen[(expert, generation_id)]}"
            )
            continue
        seen[(expert, generation_id)] = line
        record: dict[str, object] = {
            "expert": expert,
            "generation_id": generation_id,
            "author": by_id.at[generation_id, "author"],
            "poem_id": by_id.at[generation_id, "poem_id"],
            "poem_form": by_id.at[generation_id, "poem_form"],
        }
        for dimension in DIMENSIONS:
            text = raw.get(dimension.key, "")
            record[dimension.key] = _read_cell(
                text, dimension.allows_na, dimension.key, where, problems
            )
        rows.append(record)
    if problems:
        shown = problems[:20] + (
            [f"... and {len(problems) - 20} more"] if len(problems) > 20 else []
        )
        raise ExpertRatingsError("invalid expert ratings:\n  " + "\n  ".join(shown))
    columns = [
        "expert",
        "generation_id",
        "author",
        "poem_id",
        "poem_form",
        *(d.key for d in DIMENSIONS),
    ]
    return pd.DataFrame(rows, columns=columns)


def _resolve_generation(
    raw: dict[str, str],
    by_generation: bool,
    by_key: dict[tuple[str, str, int], str],
    known: pd.Index,
    where: str,
    problems: list[str],
) -> str | None:
    if by_generation and raw.get("generation_id"):
        generation_id = raw["generation_id"]
        if generation_id not in known:
            problems.append(
                f"{where}: generation_id {generation_id!r} is not a successful generation of this run"
            )
            return None
        return generation_id
    try:
        sample = int(raw.get("sample_index") or 0)
    except ValueError:
        problems.append(f"{where}: sample_index {raw.get('sample_index')!r} is not an integer")
        return None
    key = (raw.get("poem_id", ""), raw.get("author", ""), sample)
    if key not in by_key:
        problems.append(
            f"{where}: no successful generation for poem_id={key[0]!r}, author={key[1]!r}, sample_index={sample}"
        )
        return None
    return by_key[key]


def _read_cell(text: str, allows_na: bool, key: str, where: str, problems: list[str]) -> float:
    if text == "":
        return float("nan")
    try:
        value = float(text)
    except ValueError:
        problems.append(f"{where}: {key} = {text!r} is not a number")
        return float("nan")
    low = 0 if allows_na else 1
    if not value.is_integer() or not low <= value <= 5:
        problems.append(
            f"{where}: {key} = {text!r} is outside {low}-5 (0 = N/A only for imagery and literary_devices)"
        )
    return value


def experts_as_judgments(experts: pd.DataFrame) -> pd.DataFrame:
    """Expert ratings shaped like the judgments frame (judge = 'experts', one sample per expert),
    so the per-author score tables and figures can show the expert panel beside the LLM judge."""
    frame = experts.copy()
    frame["judge"] = EXPERTS_JUDGE
    frame["sample_index"] = frame.groupby("generation_id").cumcount()
    return frame.drop(columns=["expert"])
