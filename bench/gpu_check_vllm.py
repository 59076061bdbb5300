"""Prove the vLLM adapter on a real engine and a real small model (needs a CUDA GPU and
`pip install -e '.[vllm]'`; never run by the tests or `bench/run_all.py`). Under 5 minutes on
one GPU with Qwen3-0.6B (about 1.2 GB of weights; two engine loads in eager mode).

    python bench/gpu_check_vllm.py                             # Qwen/Qwen3-0.6B (hub or cache)
    python bench/gpu_check_vllm.py --model /models/Qwen3-0.6B  # a local copy (offline machine)

Each check prints PASS or FAIL with what it measured; the exit status is the number of
failures (2 when CUDA or vLLM is missing). The checks are what the in-test doubles of
tests/test_provider_vllm*.py assume about vLLM (docs/providers.md, "Which vLLM releases"):

1. the engine loads from `VLLMProvider.engine_kwargs()` (`generation_config="auto"`, seed);
2. `get_default_sampling_params()` carries the model's generation_config.json (Qwen3: temperature
   0.6, top_p 0.95, top_k 20) and its max_tokens is vLLM's 16 unless the file sets one;
3. the context length is read from the engine (`max_model_len()`, not the 4096 fallback);
4. the adapter's prompt token count equals the prompt vLLM's `chat` tokenised;
5. a batch of free-text requests answers with finish reasons "stop"/"length" and token counts;
6. `max_tokens=8` stops at 8 tokens with "length";
7. the same seed at temperature 1 gives the same text twice;
8. a JSON schema constrains the answer (`structured_outputs` or `guided_decoding`);
9. `chat_template_kwargs={"enable_thinking": False}` reaches the template (no `<think>` in the
   answer), through `LLM.chat` or, before vLLM 0.9, `LLM.generate`;
10. `poemetric generate` runs the model in its own process on 4 demo poems: 4 ok rows, and the
    engine's GPU memory is given back when that process ends (run first, before this process
    loads an engine of its own).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ResponseSchema,
    VLLMOptions,
)

MAX_MODEL_LEN = 4096
SCHEMA = {
    "type": "object",
    "properties": {"rhyme": {"type": "string"}, "lines": {"type": "integer"}},
    "required": ["rhyme", "lines"],
}
failures: list[str] = []


def check(name: str, ok: bool, detail: str) -> None:
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}", flush=True)
    if not ok:
        failures.append(name)


def ask(text: str, schema: ResponseSchema | None = None, **settings: Any) -> GenerationRequest:
    return GenerationRequest(
        messages=(ChatMessage(role="user", content=text),),
        settings=GenerationSettings(**settings),
        response_schema=schema,
    )


def spec_for(model: str, **fields: Any) -> ModelSpec:
    options = VLLMOptions(
        max_model_len=MAX_MODEL_LEN,
        gpu_memory_utilization=0.5,
        engine_kwargs={"enforce_eager": True},  # no CUDA-graph capture: a faster start
    )
    return ModelSpec(name="gpu-check", provider="vllm", model=model, vllm=options, **fields)


def engine_checks(model: str) -> None:
    from poemetric.providers.vllm_provider import VLLMProvider
    from poemetric.providers.vllm_versions import chat_takes_template_kwargs

    thinking_off = {"chat_template_kwargs": {"enable_thinking": False}}
    provider = VLLMProvider(spec_for(model, options=thinking_off))
    started = time.perf_counter()
    llm = provider.llm
    check("1 engine loads", True, f"{time.perf_counter() - started:.0f} s")

    defaults = llm.get_default_sampling_params()
    got = (defaults.temperature, defaults.top_p, defaults.top_k, defaults.max_tokens)
    check("2 model defaults", got[0] != 1.0, f"temperature, top_p, top_k, max_tokens = {got}")

    length = provider.max_model_len()
    engine_length = llm.llm_engine.model_config.max_model_len
    check("3 context length", length == engine_length == MAX_MODEL_LEN, f"{length}")

    conversation = [{"role": "user", "content": "Write a haiku about rain."}]
    plain = VLLMProvider(spec_for(model))
    plain._llm = llm  # the same engine; no template kwargs, as `llm.chat` below
    one_token = provider.vllm.SamplingParams(max_tokens=1)
    (output,) = llm.chat([conversation], [one_token], use_tqdm=False)
    counted, rendered = plain.prompt_tokens(conversation), len(output.prompt_token_ids)
    check("4 prompt tokens", counted == rendered, f"adapter {counted}, vLLM {rendered}")

    requests = [ask(f"Write a four-line poem about {t}.", max_tokens=200) for t in
                ("the sea", "winter", "a city", "an old map")]  # fmt: skip
    results = asyncio.run(provider.generate_batch(requests))
    reasons = [r.finish_reason if isinstance(r, Completion) else repr(r) for r in results]
    check("5 batch", all(isinstance(r, Completion) and r.usage.output_tokens > 0 for r in results)
          and set(reasons) <= {"stop", "length"}, f"finish reasons {reasons}")  # fmt: skip

    (cut,) = asyncio.run(provider.generate_batch([ask("Write a long ballad.", max_tokens=8)]))
    check("6 max_tokens", isinstance(cut, Completion) and cut.finish_reason == "length"
          and cut.usage.output_tokens == 8, f"{cut.finish_reason if isinstance(cut, Completion) else cut}")  # fmt: skip

    same = [ask("Name a colour and a bird.", temperature=1.0, seed=7, max_tokens=30)] * 2
    first, second = asyncio.run(provider.generate_batch(same))
    texts = [r.text if isinstance(r, Completion) else repr(r) for r in (first, second)]
    check("7 seed", texts[0] == texts[1], f"{texts[0]!r}")

    schema = ResponseSchema(name="answer", schema=SCHEMA)
    (structured,) = asyncio.run(provider.generate_batch(
        [ask("Give a rhyme for 'moon' and a line count.", schema, max_tokens=100)]))  # fmt: skip
    try:
        value = json.loads(structured.text) if isinstance(structured, Completion) else None
    except ValueError:
        value = None
    field = next(iter(provider.guided_json(SCHEMA)))
    check("8 structured", isinstance(value, dict) and set(value) == {"rhyme", "lines"},
          f"{field}: {structured.text if isinstance(structured, Completion) else structured}")  # fmt: skip

    path = "LLM.chat" if chat_takes_template_kwargs(llm.chat) else "LLM.generate (vLLM < 0.9)"
    answer = results[0]
    check("9 chat_template_kwargs", isinstance(answer, Completion)
          and "<think>" not in answer.text, f"via {path}")  # fmt: skip


def isolated_run(model: str) -> None:
    """The runner's own path: the model in a spawned child process, rows in the store."""
    import torch

    free_before, _ = torch.cuda.mem_get_info()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "generators"
        folder.mkdir()
        (folder / "gpu-check.yaml").write_text(
            f"name: gpu-check\nprovider: vllm\nmodel: {model}\nsettings:\n  max_tokens: 300\n"
            f"vllm:\n  max_model_len: {MAX_MODEL_LEN}\n  gpu_memory_utilization: 0.5\n"
            "  engine_kwargs: {enforce_eager: true}\n",
            encoding="utf-8",
        )
        run = Path(tmp) / "run"
        command = [sys.executable, "-m", "poemetric", "generate", "--run", str(run),
                   "--dataset", "demo", "--models", "gpu-check", "--limit", "4"]  # fmt: skip
        environment = {**os.environ, "POEMETRIC_GENERATORS_DIR": str(folder)}
        done = subprocess.run(command, env=environment, capture_output=True, text=True)
        with sqlite3.connect(run / "poemetric.sqlite") as db:
            rows = db.execute(
                "SELECT status, finish_reason, COUNT(*) FROM generations "
                "WHERE author = 'gpu-check' GROUP BY 1, 2"
            ).fetchall()
    free_after, _ = torch.cuda.mem_get_info()
    ok_rows = sum(count for status, _, count in rows if status == "ok")
    check("10 poemetric generate", done.returncode == 0 and ok_rows == 4,
          f"exit {done.returncode}, rows {rows}" + (f"\n{done.stderr[-2000:]}" if done.returncode else ""))  # fmt: skip
    check("10 GPU memory given back", free_after >= free_before - 2**30,
          f"free {free_before / 2**30:.1f} GiB before, {free_after / 2**30:.1f} GiB after")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B", help="hub id or local folder")
    args = parser.parse_args()
    try:
        import torch
        import vllm
    except ImportError as error:
        print(f"needs torch and vLLM (pip install -e '.[vllm]'): {error}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("needs a CUDA GPU", file=sys.stderr)
        return 2
    print(f"vLLM {vllm.__version__}, torch {torch.__version__}, {torch.cuda.get_device_name()}")
    started = time.perf_counter()
    isolated_run(args.model)  # first: this process holds no engine yet
    engine_checks(args.model)
    print(f"{len(failures)} failed ({', '.join(failures) or 'none'}) in "
          f"{time.perf_counter() - started:.0f} s")  # fmt: skip
    return len(failures)


if __name__ == "__main__":
    sys.exit(main())
