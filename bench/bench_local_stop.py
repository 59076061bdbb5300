"""How a local model's `generate` stops on SIGTERM, and what the resume does (named runs only).

Builds random weights of a real shape (SmolLM2's, from bench_probe_gpu.py) with SmolLM2's
tokenizer, writes a `provider: transformers` model file into a scratch user folder, starts
`poemetric generate` on the 38 Lear limericks in a child process, sends SIGTERM once `--after`
poems are stored, and prints how long the process took to exit, its status and what was stored;
then runs the same command again and prints what the resume wrote. Nothing is cached between
runs of the script (a fresh scratch folder each time).

    python bench/bench_local_stop.py --shape smollm2-135m --device cpu --dtype float32
    python bench/bench_local_stop.py --shape smollm2-1.7b --device cuda --dtype bfloat16

`--tokenizer DIR`: a saved SmolLM2 tokenizer (default: exported from the packaged GGUF, which
needs the `local` extra). `bench/run_all.py` skips this script unless it is named (minutes on a
CPU).
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_probe_gpu import SHAPES, build_random_model, cuda_missing, export_tokenizer

COMMAND = ["generate", "--models", "big", "--dataset", "lear-limericks"]


def stored(run: Path) -> int:
    try:
        with sqlite3.connect(run / "poemetric.sqlite", timeout=1) as db:
            (count,) = db.execute(
                "SELECT count(*) FROM generations WHERE author = 'big' AND status = 'ok'"
            ).fetchone()
            return int(count)
    except sqlite3.Error:
        return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", choices=sorted(SHAPES), default="smollm2-135m")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--after", type=int, default=8, help="poems stored before the SIGTERM")
    parser.add_argument("--tokenizer", type=Path)
    args = parser.parse_args()
    if missing := cuda_missing(args.device):
        print(missing)
        return 2

    with tempfile.TemporaryDirectory(prefix="poemetric-bench-stop-") as scratch:
        work = Path(scratch)
        tokenizer = args.tokenizer or export_tokenizer(work / "tokenizer")
        model = build_random_model(args.shape, tokenizer, work / "model")
        models = work / "generators"
        models.mkdir()
        (models / "big.yaml").write_text(
            f"name: big\nprovider: transformers\nmodel: {model}\noptions:\n"
            f"  device: {args.device}\n  dtype: {args.dtype}\n  batch_size: {args.batch_size}\n"
            f"settings:\n  max_tokens: {args.max_tokens}\n",
            encoding="utf-8",
        )
        env = {**os.environ, "POEMETRIC_GENERATORS_DIR": str(models)}
        run = work / "run"
        command = [sys.executable, "-m", "poemetric", *COMMAND, "--run", str(run)]
        log = work / "first.log"
        with log.open("w") as handle:
            process = subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=env)
        started = time.monotonic()
        while stored(run) < args.after and process.poll() is None:
            time.sleep(0.2)
        before, signalled = stored(run), time.monotonic()
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=600)
        print(
            f"SIGTERM at {signalled - started:.1f} s with {before} poems stored: exit {status} "
            f"{time.monotonic() - signalled:.1f} s later, {stored(run)} poems stored"
        )
        started = time.monotonic()
        resumed = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        with sqlite3.connect(run / "poemetric.sqlite") as db:
            rows, poems = db.execute(
                "SELECT count(*), count(DISTINCT poem_id) FROM generations "
                "WHERE author = 'big' AND status = 'ok'"
            ).fetchone()
        print(
            f"resume: exit {resumed.returncode} in {time.monotonic() - started:.1f} s; "
            f"{rows} poems stored, {poems} distinct"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
