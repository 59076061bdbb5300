"""Throughput of a local-model adapter on a GPU: vLLM (one `llm.chat` call per batch), or with
`--provider transformers` the transformers adapter (left-padded batches of `--batch-size`
through `model.generate`). Prints numbers only.

Needs a CUDA GPU, with `pip install 'poemetric[vllm]'` for vLLM or the `local` extra for
transformers; `bench/run_all.py` skips it unless named.

    python bench/bench_vllm.py --model /models/Qwen2.5-7B-Instruct --prompts 512
    # no weights at hand (offline machine): a randomly initialised model of a real model's shape,
    # built with transformers + tokenizers (a word-level tokenizer and a plain chat template):
    python bench/bench_vllm.py --random-init qwen2.5-7b --prompts 512 --max-tokens 256
    python bench/bench_vllm.py --provider transformers --random-init qwen2.5-7b --batch-size 64

Reported per repeat: prompts/s, output tokens/s and the wall time of `generate_batch` (engine
loading excluded; the first repeat includes CUDA-graph / compile warm-up, so run --repeat >= 2).
With random weights EOS is ignored (vLLM's `ignore_eos`; transformers' `min_new_tokens`), so
every answer runs to --max-tokens: a clean decode-speed test.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_probe_gpu import cuda_missing

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    VLLMOptions,
)

#: Shapes of real models (from their published config.json) for --random-init.
SHAPES: dict[str, dict[str, Any]] = {
    "tiny": {"model_type": "llama", "hidden_size": 256, "intermediate_size": 688,
             "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "vocab_size": 32000},
    "smollm2-1.7b": {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
                     "num_hidden_layers": 24, "num_attention_heads": 32, "num_key_value_heads": 32,
                     "vocab_size": 49152, "rope_theta": 130000.0},
    "qwen2.5-7b": {"model_type": "qwen2", "hidden_size": 3584, "intermediate_size": 18944,
                   "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
                   "vocab_size": 152064, "rope_theta": 1000000.0},
    "llama-3.1-8b": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                     "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
                     "vocab_size": 128256, "rope_theta": 500000.0},
}  # fmt: skip
FORMS = ["ballad", "ghazal", "limerick", "pantoum", "sestina", "sonnet", "villanelle"]
TOPICS = ["the sea", "a city at night", "winter light", "an old photograph", "migration"]
CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|> {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)


def build_random_model(shape: str, directory: Path, max_len: int) -> Path:
    """Save a randomly initialised model of `shape` with a word-level tokenizer to `directory`."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import AutoConfig, AutoModelForCausalLM, PreTrainedTokenizerFast

    fields = dict(SHAPES[shape])
    model_type = fields.pop("model_type")
    config = AutoConfig.for_model(
        model_type, max_position_embeddings=max_len, bos_token_id=1, eos_token_id=2, **fields
    )
    vocab_words = sorted({w.strip(".,").lower() for w in " ".join(FORMS + TOPICS).split()})
    specials = ["<unk>", "<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>"]
    vocab = {token: i for i, token in enumerate(specials + vocab_words)}
    vocab.update({f"w{i}": i for i in range(len(vocab), config.vocab_size)})
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.save_pretrained(directory)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config).to(torch.bfloat16)
    model.config.torch_dtype = torch.bfloat16
    model.save_pretrained(directory, safe_serialization=True)
    return directory


def prompts(n: int) -> list[GenerationRequest]:
    requests = []
    for i in range(n):
        form, topic = FORMS[i % len(FORMS)], TOPICS[(i // len(FORMS)) % len(TOPICS)]
        text = f"write a {form} about {topic} . variation {i}"
        requests.append(
            GenerationRequest(
                messages=(ChatMessage(role="user", content=text),),
                settings=GenerationSettings(),
                sample_index=i,
            )
        )
    return requests


def make_provider(args: argparse.Namespace, model: str) -> tuple[ModelSpec, Any]:
    """The provider under test and its model spec; `.load()` loads the engine (untimed)."""
    if args.provider == "transformers":
        from poemetric.providers.transformers_provider import TransformersProvider

        extra = {"min_new_tokens": args.max_tokens} if args.random_init else {}
        dtype = "bfloat16" if args.dtype == "auto" else args.dtype
        spec = ModelSpec(
            name="bench",
            provider="transformers",
            model=model,
            options={"device": args.device, "dtype": dtype, "batch_size": args.batch_size},
            settings=GenerationSettings(max_tokens=args.max_tokens, extra=extra),
        )
        provider: Any = TransformersProvider(spec)
        provider.load = lambda: provider.model
        return spec, provider
    from poemetric.providers.vllm_provider import VLLMProvider

    options = VLLMOptions(
        tensor_parallel_size=args.tensor_parallel_size,
        max_model_len=args.max_model_len,
        dtype=args.dtype,
        gpu_memory_utilization=args.gpu_memory_utilization,
    )
    extra = {"ignore_eos": True} if args.random_init else {}
    spec = ModelSpec(
        name="bench",
        provider="vllm",
        model=model,
        vllm=options,
        settings=GenerationSettings(max_tokens=args.max_tokens, extra=extra),
    )
    provider = VLLMProvider(spec)
    provider.load = lambda: provider.llm
    return spec, provider


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="local path or hub id of the model")
    source.add_argument("--random-init", choices=sorted(SHAPES), help="random weights, real shape")
    parser.add_argument("--prompts", type=int, default=256)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--max-model-len", type=int, default=4096)
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    parser.add_argument("--dtype", default="auto")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--provider", choices=["vllm", "transformers"], default="vllm")
    parser.add_argument(
        "--batch-size", type=int, default=64, help="transformers: prompts per batch"
    )
    parser.add_argument("--device", default="cuda", help="transformers: cuda, or cpu to try it")
    args = parser.parse_args(argv)
    try:
        if args.provider == "vllm":
            import vllm  # noqa: F401
        else:
            import transformers  # noqa: F401
    except ImportError:
        extra = "vllm" if args.provider == "vllm" else "local"
        print(f"{args.provider} is not installed: pip install 'poemetric[{extra}]' (needs a GPU)")
        return 2
    if args.provider == "transformers" and (missing := cuda_missing(args.device)):
        print(missing)
        return 2

    with tempfile.TemporaryDirectory(prefix="poemetric-bench-vllm-") as scratch:
        model = args.model
        if args.random_init:
            started = time.perf_counter()
            model = str(build_random_model(args.random_init, Path(scratch), args.max_model_len))
            print(f"built random {args.random_init} in {time.perf_counter() - started:.1f}s")
        spec, provider = make_provider(args, model)
        started = time.perf_counter()
        provider.load()
        print(f"{args.provider} engine loaded in {time.perf_counter() - started:.1f}s")
        requests = [
            GenerationRequest(r.messages, spec.settings, r.sample_index)
            for r in prompts(args.prompts)
        ]
        rates: list[float] = []
        for repeat in range(1, args.repeat + 1):
            started = time.perf_counter()
            results = asyncio.run(provider.generate_batch(requests))
            wall = time.perf_counter() - started
            done = [r for r in results if isinstance(r, Completion)]
            tokens = sum(r.usage.output_tokens for r in done)
            rates.append(tokens / wall)
            print(
                f"repeat {repeat}: {len(done)}/{len(requests)} prompts in {wall:.2f}s = "
                f"{len(done) / wall:.1f} prompts/s, {tokens / wall:.0f} output tokens/s"
            )
        if len(rates) > 1:
            steady = rates[1:]
            print(
                f"output tokens/s after warm-up: best {max(steady):.0f}, "
                f"median {statistics.median(steady):.0f}, spread {max(steady) - min(steady):.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
