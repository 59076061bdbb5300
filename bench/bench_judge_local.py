"""The judge stage with a local model and constrained decoding (`structured: auto`), whole process.

What a researcher runs with the offline demo judge (judges/smollm2-135m.yaml) or a bigger local
judge on a GPU: `poemetric judge` over the poems of a run, the `transformers` provider filling
in the questionnaire's JSON object token by token. Builds random weights of a real shape
(SmolLM2's, with SmolLM2's tokenizer; see bench_probe_gpu.py), writes a judge file into a
scratch folder, makes a run with the offline default (`poemetric demo`: the bundled poems and
Markov samples, no judge), then times `poemetric judge --judge big --limit N` as a child process
and reads back what it stored. `--limit N` takes the first N poems of the dataset, each with its
Markov twin: 2N judgments.

    python bench/bench_judge_local.py --shape smollm2-135m --device cpu --dtype float32 --poems 4
    python bench/bench_judge_local.py --shape smollm2-1.7b --device cuda --dtype bfloat16 --poems 32

Prints: the judge process's wall time (model loading included, and the load alone from the
stage's own log line where it prints one), judgments stored / valid (every one of the ten
scores in range), output tokens, and seconds and tokens per second per judgment. Random weights
rarely close a comment's string, so each comment runs to its token cap: an upper bound on a
real model's decode work. Nothing is cached between runs (a fresh scratch folder, and the run's
answer cache is new). `bench/run_all.py` skips this script unless it is named.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_probe_gpu import SHAPES, build_random_model, cuda_missing, export_tokenizer

SCORES = (
    "form", "theme", "vocabulary", "creativity", "idiosyncrasy", "emotional_resonance",
    "imagery", "literary_devices", "overall_quality", "human_authorship",
)  # fmt: skip
#: Items whose scale has 0 for "not applicable".
WITH_ZERO = {"imagery", "literary_devices"}


def poemetric(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-P", "-m", "poemetric", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def stored(run: Path) -> tuple[int, int, int]:
    """(judgments with status ok, those with all ten scores in range, their output tokens)."""
    with sqlite3.connect(run / "poemetric.sqlite") as db:
        rows = db.execute(
            f"SELECT {', '.join(SCORES)}, output_tokens FROM judgments "
            "WHERE judge = 'big' AND status = 'ok'"
        ).fetchall()
    valid = sum(
        all(
            value is not None and (0 if item in WITH_ZERO else 1) <= value <= 5
            for item, value in zip(SCORES, row[:-1], strict=True)
        )
        for row in rows
    )
    return len(rows), valid, sum(row[-1] or 0 for row in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="smollm2-135m")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--poems", type=int, default=4, help="dataset poems (2 judgments each)")
    parser.add_argument("--tokenizer", type=Path)
    args = parser.parse_args()
    if missing := cuda_missing(args.device):
        print(missing)
        return 2

    with tempfile.TemporaryDirectory(prefix="poemetric-bench-judge-") as scratch:
        work = Path(scratch)
        tokenizer = args.tokenizer or export_tokenizer(work / "tokenizer")
        started = time.perf_counter()
        model = build_random_model(args.shape, tokenizer, work / "model")
        print(f"built random {args.shape} in {time.perf_counter() - started:.1f} s")
        judges = work / "judges"
        judges.mkdir()
        (judges / "big.yaml").write_text(
            f"name: big\nprovider: transformers\nmodel: {model}\nstructured: auto\n"
            f"options:\n  device: {args.device}\n  dtype: {args.dtype}\n",
            encoding="utf-8",
        )
        env = {**os.environ, "POEMETRIC_JUDGES_DIR": str(judges), "CI": ""}
        run = work / "run"
        made = poemetric("demo", "--run", str(run), "--no-progress", env=env)
        if made.returncode != 0:
            print(made.stdout[-2000:], made.stderr[-2000:])
            return 1
        command = ["judge", "--judge", "big", "--run", str(run), "--no-progress"]
        command += ["--limit", str(args.poems)]
        started = time.perf_counter()
        judged = poemetric(*command, env=env)
        wall = time.perf_counter() - started
        print(judged.stdout[-1500:])
        if judged.returncode != 0:
            print(judged.stderr[-3000:])
            print(f"judge exited {judged.returncode}")
            return 1
        count, valid, tokens = stored(run)
        print(
            f"{args.shape} on {args.device} ({args.dtype}): {count} judgments stored, {valid} "
            f"with every score in range, {tokens} output tokens; whole judge process {wall:.1f} s "
            f"(model load included) = {wall / max(count, 1):.2f} s a judgment, "
            f"{tokens / wall:.0f} output tokens/s"
        )
        return 0 if count == valid > 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
