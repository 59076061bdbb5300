"""Structured requests decoded together (`transformers_decoding`): one forward pass a step for
every row still decoding, each row driven by its own schema, sampling and budget. The packaged
SmolLM2-135M-Instruct on the CPU, float32 (`smollm2` fixture).

Greedy rows are compared with the same prompts decoded one at a time where the rows stay in
step and no padding is ever fed (prompts of one length, integer slots of one token each): a
batched matrix product still adds in another order (logits differ by about 1e-5), so equality
holds unless two of a slot's five digits are all but tied, which these prompts are not. Where
rows are padded (prompts of different lengths, strings of different lengths) only the answers'
validity and finish reasons are asserted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ResponseSchema,
)

pytestmark = pytest.mark.slow

DIGITS = {
    "type": "object",
    "properties": {name: {"type": "integer", "enum": [1, 2, 3, 4, 5]} for name in "abc"},
    "required": list("abc"),
    "additionalProperties": False,
}
TWO_SLOTS = {
    "type": "object",
    "properties": {
        "score": {"type": "integer", "enum": [7, 10, 12]},
        "why": {"type": "string"},
    },
    "required": ["score", "why"],
    "additionalProperties": False,
}
#: Prompts of one token length (checked below), so that no row is ever padded.
SAME_LENGTH = [f"Rate the {animal} from 1 to 5 three times." for animal in ("cat", "dog", "cow")]


def _chat(model: Any, text: str) -> list[int]:
    return list(model.chat_ids([{"role": "user", "content": text}], None))


@contextmanager
def counting_forward_passes(model: Any) -> Iterator[list[int]]:
    calls: list[int] = []
    handle = model.model.register_forward_pre_hook(lambda module, args: calls.append(1))
    try:
        yield calls
    finally:
        handle.remove()


def _provider(batch_size: int) -> Any:
    from poemetric.providers.registry import create_provider
    from poemetric.roster import load_roster

    spec = load_roster("judges")["smollm2-135m"]
    return create_provider(
        spec.model_copy(update={"options": {**spec.options, "batch_size": batch_size}})
    )


def _request(text: str, schema: dict[str, Any], **settings: Any) -> GenerationRequest:
    return GenerationRequest(
        (ChatMessage(role="user", content=text),),
        GenerationSettings(**settings),
        response_schema=ResponseSchema("answer", schema),
    )


def test_greedy_rows_in_step_decode_together_as_one_at_a_time(smollm2: Any) -> None:
    """The provider decoded structured requests one at a time (`raw["batch"]` 1, a forward
    pass per choice per request); a chunk of `batch_size` is now decoded together, with the
    forward passes of one request, and gives each request the answer it gets alone."""
    from poemetric.providers.transformers_decoding import generate_structured

    # The provider's own model, counted on: the `smollm2` fixture's, which the fixture puts back
    # into the loader's cache when an earlier test on this worker released it (`release_models`).
    provider = _provider(batch_size=3)
    model = provider.model
    prompts = [_chat(model, text) for text in SAME_LENGTH]
    assert len({len(prompt) for prompt in prompts}) == 1, [len(p) for p in prompts]
    with counting_forward_passes(model) as alone_calls:
        alone = [generate_structured(model, p, DIGITS, {"do_sample": False}) for p in prompts]
    assert len(alone_calls) == 9  # three choices each

    with counting_forward_passes(model) as together_calls:
        together = provider.run_batch([_request(text, DIGITS) for text in SAME_LENGTH])
    assert len(together_calls) == 3
    for completion, single in zip(together, alone, strict=True):
        assert isinstance(completion, Completion), completion
        assert single is not None and completion.text == single.text
        assert completion.raw["batch"] == 3 and completion.finish_reason == "stop"
        assert completion.usage.output_tokens == single.completion_tokens
        assert sorted(json.loads(completion.text)) == ["a", "b", "c"]

    # batch_size is honoured: 3 requests in chunks of 2 and 1, the same answers
    halves = _provider(batch_size=2).run_batch([_request(text, DIGITS) for text in SAME_LENGTH])
    assert [c.raw["batch"] for c in halves if isinstance(c, Completion)] == [2, 2, 1]
    assert [c.text for c in halves if isinstance(c, Completion)] == [c.text for c in together]


def test_a_seeded_sampled_request_is_still_decoded_alone(smollm2: Any) -> None:
    """Rows of one batch draw from one random generator: a sampled request with a seed is
    decoded alone, so that its seed alone decides its answer."""
    from poemetric.providers.transformers_decoding import generate_structured

    settings = {"temperature": 1.5, "top_p": 0.95, "seed": 3}
    requests = [_request(text, DIGITS, **settings) for text in SAME_LENGTH[:2]]
    provider = _provider(batch_size=8)
    results = provider.run_batch(requests)
    model = provider.model  # the one it decoded with (see the test above)
    for text, completion in zip(SAME_LENGTH[:2], results, strict=True):
        assert isinstance(completion, Completion) and completion.raw["batch"] == 1
        sampling = {"do_sample": True, "temperature": 1.5, "top_p": 0.95, "max_new_tokens": 512}
        alone = generate_structured(model, _chat(model, text), DIGITS, sampling, seed=3)
        assert alone is not None and completion.text == alone.text


def test_padded_rows_answer_validly_and_a_row_cut_by_max_tokens_finishes_as_length(
    smollm2: Any,
) -> None:
    """Prompts of different lengths (left-padded) and strings that close at different steps
    (the rows that closed theirs are padded while the others go on): every answer is a JSON
    object of the schema, and a row whose max_tokens closes its string finishes "length" while
    the others, with the default budget, finish "stop"."""
    from poemetric.providers.transformers_decoding import (
        StructuredRequest,
        generate_structured_batch,
    )
    from poemetric.providers.transformers_structured import plan_object, schema_slots

    texts = [
        "Rate this line from 7 to 12 and say why: “Roses bloom.”",
        'Rate this line from 7 to 12 and say why: "The cat sat on the mat."',
        "Rate this line from 7 to 12 and say why, in a sentence or two: “Across the silent "
        "valley the evening bells were ringing slowly while the shepherds walked home.”",
    ]
    prompts = [_chat(smollm2, text) for text in texts]
    assert len({len(prompt) for prompt in prompts}) == 3
    least = plan_object(smollm2, schema_slots(TWO_SLOTS)).minimum
    budgets = [512, least + 1, 200]
    requests = [
        StructuredRequest(prompt, TWO_SLOTS, {"do_sample": False, "max_new_tokens": budget})
        for prompt, budget in zip(prompts, budgets, strict=True)
    ]
    outputs = generate_structured_batch(smollm2, requests)
    assert outputs is not None
    for output, prompt, budget in zip(outputs, prompts, budgets, strict=True):
        answer = json.loads(output.text)
        assert list(answer) == ["score", "why"] and answer["score"] in (7, 10, 12), output.text
        assert isinstance(answer["why"], str)
        assert output.prompt_tokens == len(prompt) and output.completion_tokens <= budget
    assert [output.finish_reason for output in outputs] == ["stop", "length", "stop"]
    assert len(smollm2.encode([json.loads(outputs[1].text)["why"]])[0]) <= 2


def test_rows_leaving_the_batch_drop_their_rows_of_a_legacy_tuple_cache(smollm2: Any) -> None:
    """transformers 4.x returns the KV cache as (key, value) tensors per layer (no
    `batch_select_indices`): the rows kept are selected from every tensor, in order."""
    import torch

    from poemetric.providers.transformers_decoding import BatchDriver

    driver = BatchDriver(smollm2, 3)
    driver.mask = torch.ones((3, 4), dtype=torch.long)
    layer = torch.arange(3.0).reshape(3, 1, 1, 1).expand(3, 2, 4, 5).contiguous()
    driver.cache = ((layer, layer + 10), (layer + 20, layer + 30))
    driver.keep([0, 2])
    assert driver.mask.shape == (2, 4)
    assert isinstance(driver.cache, tuple) and len(driver.cache) == 2
    for offset, tensor in zip(
        (0, 10, 20, 30), [t for pair in driver.cache for t in pair], strict=True
    ):
        assert tensor.shape == (2, 2, 4, 5)
        assert tensor[:, 0, 0, 0].tolist() == [offset + 0.0, offset + 2.0]
