"""Time `merge_runs` on shards the size of the paper's run (203 prompts x 30 models).

Prints the seconds to merge N shard stores (each with its share of generations, form checks,
judgments, cached responses and calls) into a new store, and to merge them a second time (all
rows identical). Usage: .venv/bin/python bench/bench_merge.py [--shards 4] [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from poemetric.store.db import RunStore, stable_id, utc_now
from poemetric.store.merge import merge_runs

PROMPTS = 203
MODELS = 30


def make_shard(run_dir: Path, index: int, count: int) -> int:
    now = utc_now()
    with RunStore(run_dir) as store, store.transaction() as conn:
        conn.executemany(
            "INSERT INTO poems(poem_id, dataset, position, form, content, record) VALUES (?,?,?,?,?,?)",
            [
                (f"p{i}", "bench", i, "sonnet", f"human poem {i}\n" * 14, "{}")
                for i in range(PROMPTS)
            ],
        )
        conn.execute("INSERT INTO templates VALUES ('t', 'default', 'Write a {form}.')")
        conn.executemany(
            "INSERT INTO prompts VALUES (?, ?, 't', ?)",
            [(f"q{i}", f"p{i}", f"prompt {i}") for i in range(PROMPTS)],
        )
        rows = 0
        for i in range(PROMPTS):
            for m in range(MODELS):
                if (i * MODELS + m) % count != index:
                    continue
                gen_id = stable_id(f"q{i}", f"model{m}", 0)
                poem = f"a poem by model {m} for prompt {i}\n" * 14
                conn.execute(
                    "INSERT INTO generations(generation_id, prompt_id, poem_id, author, status, "
                    "poem, response_text, raw_response, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
                    (gen_id, f"q{i}", f"p{i}", f"model{m}", "ok", poem, poem, "{}", now),
                )
                conn.execute(
                    "INSERT INTO form_checks(generation_id, checker_version, passed, created_at) "
                    "VALUES (?, '1', 1, ?)",
                    (gen_id, now),
                )
                conn.execute(
                    "INSERT INTO judgments(judgment_id, generation_id, judge, status, response_text, "
                    "created_at) VALUES (?,?,?,?,?,?)",
                    (stable_id(gen_id, "j"), gen_id, "gemini-2.5-pro", "ok", "{}" * 200, now),
                )
                for stage in ("generate", "judge"):
                    key = stable_id(gen_id, stage)
                    conn.execute(
                        "INSERT INTO response_cache VALUES (?, 'p', 'm', ?, ?)", (key, poem, now)
                    )
                    conn.execute(
                        "INSERT INTO calls(cache_key, provider, model, attempt, outcome, created_at) "
                        "VALUES (?, 'p', 'm', 1, 'ok', ?)",
                        (key, now),
                    )
                rows += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    firsts, seconds = [], []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            shards = [Path(tmp) / f"shard{k}" for k in range(args.shards)]
            total = sum(make_shard(s, k, args.shards) for k, s in enumerate(shards))
            started = time.perf_counter()
            report = merge_runs(shards, Path(tmp) / "merged")
            firsts.append(time.perf_counter() - started)
            assert report.tables["generations"].copied == total == PROMPTS * MODELS
            started = time.perf_counter()
            merge_runs(shards, Path(tmp) / "merged")
            seconds.append(time.perf_counter() - started)
    print(
        f"{args.shards} shards, {PROMPTS * MODELS} generations (+ form checks, judgments, "
        f"{2 * PROMPTS * MODELS} cached responses and calls)"
    )
    print(
        f"first merge:  best {min(firsts):.2f} s, worst {max(firsts):.2f} s over {args.repeats} runs"
    )
    print(
        f"repeat merge: best {min(seconds):.2f} s, worst {max(seconds):.2f} s (all rows identical)"
    )


if __name__ == "__main__":
    main()
