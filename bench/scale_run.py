"""Grow a finished offline run (`bench_stages.py --keep DIR`: generate, form run, judge) into one
the size of a real study, by writing rows the way the stages write them.

* `samples` samples per model and prompt: sample k of a generation is its poem with the lines
  of each stanza in another order (a distinct text of the same form and words), with the
  generation id, cache key and natural key the generate stage gives sample k; its form check
  is the original's row (same scores and explanation), its judgments the original's scores
  moved by one point here and there. About 1 in 200 new samples is a refusal instead ("I'm
  sorry, ..."), judged `not_judged` as the judge stage stores a non-poem.
* `judges` judges (`benchj`, `benchj2`, ...): each new judge's scores are the first judge's moved
  by one point here and there (0 = N/A kept for imagery and literary devices), and about 1 in
  200 of its judgments is an unparsable answer with its re-ask spent (a parse failure).
* the call log: one `calls` row per judgment, as a remote judge logs them.

The judge files `benchj2`, ... are recorded in the run's `models` meta entry as the first
judge's, so `poemetric judge -j benchj,benchj2,...` finds their rows done.
"""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from poemetric.questionnaire import DIMENSION_KEYS
from poemetric.store import HUMAN_AUTHOR, generation_id_for
from poemetric.store.db import DB_NAME, RunStore, stable_id, utc_now

REFUSAL = "I'm sorry, but I can't help with writing that poem."
NA_ALLOWED = ("imagery", "literary_devices")


def judge_names(count: int) -> list[str]:
    return ["benchj"] + [f"benchj{k}" for k in range(2, count + 1)]


def reordered(poem: str, rng: random.Random) -> str:
    """The poem with the lines of each stanza shuffled (stanzas stay in order)."""
    stanzas = poem.split("\n\n")
    out = []
    for stanza in stanzas:
        lines = stanza.split("\n")
        rng.shuffle(lines)
        out.append("\n".join(lines))
    return "\n\n".join(out)


def moved(scores: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Scores moved by -1/0/+1 (kept in 1..5; a 0 = N/A stays N/A, or may become one)."""
    out: dict[str, Any] = {}
    for key in DIMENSION_KEYS:
        value = scores[key]
        if value is None:
            out[key] = None
        elif key in NA_ALLOWED and (value == 0 or rng.random() < 0.03):
            out[key] = 0
        else:
            out[key] = min(5, max(1, int(value) + rng.choice((-1, 0, 0, 1))))
    return out


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    cursor = conn.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor]


def _insert(conn: sqlite3.Connection, table: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    cols = list(rows[0])
    conn.executemany(
        f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
        [[row[c] for c in cols] for row in rows],
    )


def scale_run(
    base: Path, dest: Path, *, samples: int, judges: int, seed: int = 0
) -> dict[str, int]:
    """Copy the run at `base` to `dest` (a new folder) and grow it; returns the row counts."""
    dest.mkdir(parents=True, exist_ok=False)
    source = sqlite3.connect(base / DB_NAME)
    source.execute("VACUUM INTO ?", (str(dest / DB_NAME),))
    source.close()
    rng = random.Random(seed)
    names = judge_names(judges)
    with RunStore(dest, create=False) as store, store.transaction() as conn:
        generations = _rows(conn, "SELECT * FROM generations ORDER BY generation_id")
        checks = {r["generation_id"]: r for r in _rows(conn, "SELECT * FROM form_checks")}
        first = {
            r["generation_id"]: r
            for r in _rows(conn, "SELECT * FROM judgments WHERE judge = 'benchj'")
        }
        new_generations, new_checks, new_judgments = [], [], []
        # (generation row, its first-judge row or None) of every generation of the grown run
        pairs: list[tuple[dict[str, Any], dict[str, Any] | None]] = [
            (g, first.get(g["generation_id"])) for g in generations
        ]
        for g in generations:
            if g["author"] == HUMAN_AUTHOR or g["status"] != "ok":
                continue
            for sample in range(1, samples):
                gid = generation_id_for(g["prompt_id"], g["author"], sample)
                refusal = rng.random() < 0.005
                poem = REFUSAL if refusal else reordered(g["poem"], rng)
                row = dict(g, generation_id=gid, sample_index=sample, poem=poem,
                           response_text=poem, raw_response=json.dumps({"text": poem}),
                           cache_key=stable_id("cache", gid, length=64), created_at=utc_now())  # fmt: skip
                new_generations.append(row)
                if g["generation_id"] in checks:
                    new_checks.append(dict(checks[g["generation_id"]], generation_id=gid))
                base_judgment = first.get(g["generation_id"])
                if base_judgment is not None and refusal:
                    base_judgment = dict(
                        base_judgment, status="not_judged", error="a refusal",
                        **{k: None for k in DIMENSION_KEYS}, raw_response=None,
                        response_text=None, parsed=None, cache_key=None,
                    )  # fmt: skip
                pairs.append((row, base_judgment))
        for g, base_judgment in pairs:
            if base_judgment is None:
                continue
            for k, judge in enumerate(names):
                if k == 0 and g["sample_index"] == 0:
                    continue  # stored already
                jid = stable_id("judgment", g["generation_id"], judge, 0)
                row = dict(base_judgment, judgment_id=jid, generation_id=g["generation_id"],
                           judge=judge, created_at=utc_now())  # fmt: skip
                if row["status"] == "ok":
                    row.update(moved(base_judgment, rng) if k or g["sample_index"] else {})
                    row["cache_key"] = stable_id("cache", jid, length=64)
                    if k and rng.random() < 0.005:
                        row.update({key: None for key in DIMENSION_KEYS}, status="error",
                                   parsed=None, reasks=1, error="unparsable answer: no JSON "
                                   "object in the answer")  # fmt: skip
                new_judgments.append(row)
        _insert(conn, "generations", new_generations)
        _insert(conn, "form_checks", new_checks)
        _insert(conn, "judgments", new_judgments)
        calls = _rows(conn, "SELECT * FROM calls ORDER BY call_id LIMIT 1")
        if calls:
            template = {k: v for k, v in calls[0].items() if k != "call_id"}
            conn.executemany(
                "INSERT INTO calls (cache_key, provider, model, attempt, outcome, http_status, "
                "detail, latency_s, created_at) SELECT cache_key, ?, judge, 1, 'ok', 200, NULL, "
                "0.8, created_at FROM judgments WHERE judgment_id = ?",
                [(template["provider"], r["judgment_id"]) for r in new_judgments if r["cache_key"]],
            )
        for meta in _rows(conn, "SELECT key, value FROM meta"):
            value = json.loads(meta["value"])
            stage = value.get("judge") if isinstance(value, dict) else None
            if isinstance(stage, dict) and "benchj" in stage:
                for judge in names[1:]:
                    stage[judge] = stage["benchj"]
                conn.execute(
                    "UPDATE meta SET value = ? WHERE key = ?",
                    (json.dumps(value, sort_keys=True, ensure_ascii=False), meta["key"]),
                )
    with RunStore(dest, create=False) as store:
        return {
            table: store.count(table)
            for table in ("generations", "form_checks", "judgments", "calls", "response_cache")
        }


if __name__ == "__main__":
    # In a process of its own (`bench_scale.py`): a child forked from a process that held the
    # grown rows starts with that process's peak as its own `ru_maxrss`.
    import sys

    found = scale_run(
        Path(sys.argv[1]), Path(sys.argv[2]), samples=int(sys.argv[3]), judges=int(sys.argv[4])
    )
    print("grown run:", ", ".join(f"{k} {v:,}" for k, v in found.items()), flush=True)
