"""An engine that pads each batch to its longest prompt (`pads_batches`, the `transformers`
provider) gets its jobs longest prompt first (`calls.longest_prompt_first`), each answer stored
under its own job."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from test_runner_support import FAST, prepared_store, scripted_spec

from poemetric.generation.stage import run_generation
from poemetric.providers.base import Completion, GenerationRequest, ProviderError, TokenUsage
from poemetric.providers.batched import InProcessBatchProvider
from poemetric.providers.registry import register_provider


def _prompt(request: GenerationRequest) -> str:
    return "\n".join(message.content for message in request.messages)


class _PaddingEngine(InProcessBatchProvider):
    """Two prompts at a time; records each chunk's prompt lengths and answers with the prompt."""

    name: ClassVar[str] = "padding-engine"
    pads_batches: ClassVar[bool] = True
    chunks: ClassVar[list[list[int]]] = []

    def chunk_limit(self) -> int:
        return 2

    def run_batch(self, requests: list[GenerationRequest]) -> list[Completion | ProviderError]:
        type(self).chunks.append([len(_prompt(request)) for request in requests])
        return [Completion(text=_prompt(r), usage=TokenUsage(1, 2)) for r in requests]


def test_an_engine_that_pads_its_batches_gets_like_lengths_together(tmp_path: Path) -> None:
    """The transformers engine pads a batch to its longest prompt, and got its chunks in dataset
    order: judge prompts of the human dataset (831 to 7,556 tokens) in batches of 8 were 38%
    padding (6% in length order). Chunks now go longest first, in order of length, and every
    answer is stored under its own poem."""
    register_provider("padding-engine", _PaddingEngine)
    store = prepared_store(tmp_path, poems=6)
    prompts = [r["text"] for r in store.query("SELECT text FROM prompts ORDER BY prompt_id")]
    lengths = [len(text) for text in prompts]
    assert lengths != sorted(lengths, reverse=True), lengths  # the dataset's order is not it
    _PaddingEngine.chunks = []
    spec = scripted_spec(name="engine", provider="padding-engine", model="local")
    report = run_generation(store, [spec], options=FAST)
    assert report.models[0].ok == 6
    fed = [length for chunk in _PaddingEngine.chunks for length in chunk]
    assert [len(chunk) for chunk in _PaddingEngine.chunks] == [2, 2, 2]
    assert fed == sorted(fed, reverse=True) and sorted(fed) == sorted(lengths)
    rows = store.query(
        "SELECT g.poem, p.text FROM generations g JOIN prompts p ON p.prompt_id = g.prompt_id "
        "WHERE g.author = 'engine'"
    )
    assert len(rows) == 6
    for row in rows:  # each answer under its own prompt's poem
        assert row["poem"] == row["text"].strip()


def test_the_transformers_engine_pads_its_batches() -> None:
    from poemetric.providers.transformers_provider import TransformersProvider
    from poemetric.providers.vllm_provider import VLLMProvider

    assert TransformersProvider.pads_batches and not VLLMProvider.pads_batches
