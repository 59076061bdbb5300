"""vLLM against transformers on the same minimal pairs, on a GPU (skipped by `make bench`).

Scores the distinct texts of the Lear pairs (every offline task, seed 0) with `vllm:MODEL`
(prompt_logprobs, prefix caching off, float32) and with `hf:MODEL` on CUDA (float32), and prints
each one's texts/s and the largest per-sequence difference of log-probability sums between them
(both tokenize with the same tokenizer and score after the same prefix token, so the sums should
agree to float32 rounding).

Usage (on a GPU machine with vLLM installed):
    python bench/bench_probe_gpu.py --model HuggingFaceTB/SmolLM2-135M-Instruct [--repeat 3]
`--model` must be a folder or hub id both engines load (vLLM does not read the packaged GGUF's
tokenizer the same way; use the original safetensors checkpoint).
"""

from __future__ import annotations

import argparse
import time

from poemetric.data import load_dataset
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import OFFLINE_TASKS


def timed(function, texts, repeat):  # type: ignore[no-untyped-def]
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function(texts)
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    from poemetric.probes.scorers.hf import HFScorer
    from poemetric.probes.scorers.vllm_scorer import VLLMScorer

    poems = [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
        for p in load_dataset("lear-limericks").poems
    ]
    pairs = build_pairs(poems, list(OFFLINE_TASKS), seed=0)
    texts = list(dict.fromkeys(t for p in pairs for t in (p.original, p.corrupted)))
    print(f"{len(pairs)} pairs, {len(texts)} distinct texts")

    vllm_scorer = VLLMScorer(args.model)
    vllm_scorer.engine()  # load outside the timing
    vllm_time, vllm_scores = timed(vllm_scorer.score_texts, texts, args.repeat)
    hf_scorer = HFScorer(args.model, batch_size=args.batch_size, device="cuda")
    hf_scorer.score_texts(texts[:2])  # load outside the timing
    hf_time, hf_scores = timed(hf_scorer.score_texts, texts, args.repeat)
    deltas = [
        abs(a.logprob_sum - b.logprob_sum) for a, b in zip(vllm_scores, hf_scores, strict=True)
    ]
    token_mismatch = sum(
        a.n_tokens != b.n_tokens for a, b in zip(vllm_scores, hf_scores, strict=True)
    )
    print(f"vllm:  {len(texts) / vllm_time:8.1f} texts/s ({len(pairs) / vllm_time:8.1f} pairs/s)")
    print(f"hf:    {len(texts) / hf_time:8.1f} texts/s ({len(pairs) / hf_time:8.1f} pairs/s), "
          f"batch {args.batch_size}")  # fmt: skip
    print(f"max per-sequence |Δ logprob sum| {max(deltas):.3e}, mean {sum(deltas) / len(deltas):.3e}, "
          f"token-count mismatches {token_mismatch}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
