"""Constrained decoding of several structured requests together (`transformers` provider).

Each request is an `ObjectRow` (`transformers_structured`): a state machine that adds forced
tokens to its `pending` list and asks for one choice at a time. The driver steps every row that
is still decoding with one forward pass over the model's KV cache: each row feeds the tokens it
has pending (the prompt and the object's opening at first; then the last token picked and the
forced text after it), right-aligned in a block as wide as the longest; the shorter rows' slots
are padding that the attention mask hides, and position ids count each row's real tokens only.
Every row then takes its next token from its own last position's logits, under its own sampling
and budget. A row whose object is complete leaves the batch (its KV cache rows are dropped).

With one row, or while no row has needed padding, the forward pass gets no mask or position ids:
it is the call a single request makes, so a request decoded alone gives the same tokens as it
always did. Rows that are padded compute the same things in a different order: their logits can
differ from a lone request's in the last bits of a float, which may change a greedy pick only
where two tokens are all but tied.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from poemetric.providers.transformers_engine import GenerationOutput, LocalCausalLM
from poemetric.providers.transformers_structured import ObjectRow, Steps, pick, schema_slots
from poemetric.runner import stopping


@dataclass(frozen=True)
class StructuredRequest:
    """One prompt (token ids, chat template applied), the schema of its answer and the
    `generate()`-style sampling it is decoded with (`max_new_tokens` bounds its object)."""

    prompt: Sequence[int]
    schema: dict[str, Any]
    sampling: dict[str, Any]


@dataclass(frozen=True)
class ForwardKeywords:
    """How this transformers release's `forward` takes the KV cache (`cache` since 5.x,
    `past_key_values` before) and whether it can compute the last position's logits only."""

    cache: str
    last_logits: bool


def forward_keywords(model: Any) -> ForwardKeywords:
    parameters = inspect.signature(model.forward).parameters
    return ForwardKeywords(
        "cache" if "cache" in parameters else "past_key_values", "logits_to_keep" in parameters
    )


class BatchDriver:
    """The forward passes of several rows together: their KV cache and attention mask."""

    def __init__(self, model: LocalCausalLM, size: int) -> None:
        self.model = model
        self.torch = model._torch
        self.keywords = forward_keywords(model.model)
        pad = model.tokenizer.pad_token_id
        self.pad = int(pad if pad is not None else model.tokenizer.eos_token_id or 0)
        self.cache: Any = None
        #: 1 for each real token fed so far, 0 for padding: one row per row still decoding.
        self.mask = self.torch.ones((size, 0), dtype=self.torch.long)

    def feed(self, pending: Sequence[Sequence[int]]) -> Any:
        """Feed each row its pending tokens; the float logits of the token after each row's last
        one, a (rows, vocabulary) tensor."""
        torch = self.torch
        if not all(pending):  # its logits would be a pad token's
            raise RuntimeError("constrained decoding: a row has no token to feed")
        width = max(len(tokens) for tokens in pending)
        ids = torch.full((len(pending), width), self.pad, dtype=torch.long)
        block = torch.zeros((len(pending), width), dtype=torch.long)
        for row, tokens in enumerate(pending):
            ids[row, width - len(tokens) :] = torch.tensor(list(tokens), dtype=torch.long)
            block[row, width - len(tokens) :] = 1
        self.mask = torch.cat([self.mask, block], dim=1)
        arguments: dict[str, Any] = (
            {self.keywords.cache: self.cache} if self.cache is not None else {}
        )
        if self.keywords.last_logits:
            arguments["logits_to_keep"] = 1
        if not bool(self.mask.all()):  # padding somewhere: hide it, and count real tokens only
            positions = (self.mask.cumsum(dim=1) - 1).clamp(min=0)[:, -width:]
            arguments["attention_mask"] = self.mask.to(self.model.device)
            arguments["position_ids"] = positions.to(self.model.device)
        device = self.model.device
        output = self.model.model(input_ids=ids.to(device), use_cache=True, **arguments)
        self.cache = output.past_key_values
        return output.logits[:, -1].float()

    def keep(self, rows: Sequence[int]) -> None:
        """Keep these rows (indices of the current ones, in order) and drop the others."""
        self.mask = self.mask[list(rows)]
        if self.cache is None:
            return
        indices = self.torch.tensor(list(rows), dtype=self.torch.long, device=self.model.device)
        if hasattr(self.cache, "batch_select_indices"):
            self.cache.batch_select_indices(indices)
        else:  # a legacy tuple cache (transformers 4.x): (key, value) per layer, batch first
            self.cache = tuple(
                tuple(tensor.index_select(0, indices) for tensor in layer) for layer in self.cache
            )


def decode_rows(model: LocalCausalLM, rows: Sequence[ObjectRow]) -> list[str] | None:
    """Each row's JSON text, the rows decoded together; None when the stage gave up waiting
    (Ctrl-C)."""
    texts: list[str | None] = [None] * len(rows)
    machines: dict[int, Steps] = {}
    asks: dict[int, Any] = {}  # row -> the token ids it may pick next
    for index, row in enumerate(rows):
        machine = row.steps()
        try:
            asks[index] = next(machine)
            machines[index] = machine
        except StopIteration as done:  # an object without a choice (one-value enums only)
            texts[index] = done.value
    active = list(asks)
    driver = BatchDriver(model, len(active))
    while active:
        if stopping.abandoned():
            return None
        # every choice follows a token added since the last one (forced text or the pick)
        logits = driver.feed([rows[index].pending for index in active])
        still = []
        for position, index in enumerate(active):
            rows[index].pending = []
            token = pick(logits[position], asks[index], rows[index].sampling)
            try:
                asks[index] = machines[index].send(token)
                still.append(position)
            except StopIteration as done:
                texts[index] = done.value
        if len(still) < len(active):
            driver.keep(still)
            active = [active[position] for position in still]
    return [text if text is not None else "" for text in texts]


def generate_structured_batch(
    model: LocalCausalLM, requests: Sequence[StructuredRequest], seed: int | None = None
) -> list[GenerationOutput] | None:
    """The JSON object each request's schema describes, as the model fills it in for its
    prompt, the requests decoded together, each within its `sampling["max_new_tokens"]` when
    set (finish reason "length" where it closed a string early; `StructuredBudgetError` where no
    object fits); None when the stage gave up waiting. `seed` seeds PyTorch's generator once, for
    all rows: a sampled request whose seed alone should decide it is decoded alone."""
    rows = [
        ObjectRow(model, request.prompt, schema_slots(request.schema), request.sampling)
        for request in requests
    ]
    torch = model._torch
    with model.lock, torch.inference_mode():
        if seed is not None:
            torch.manual_seed(seed)
        texts = decode_rows(model, rows)
    if texts is None:
        return None
    return [row.output(text) for row, text in zip(rows, texts, strict=True)]


def generate_structured(
    model: LocalCausalLM,
    prompt: Sequence[int],
    schema: dict[str, Any],
    sampling: dict[str, Any],
    seed: int | None = None,
) -> GenerationOutput | None:
    """One request alone (`generate_structured_batch` of one)."""
    outputs = generate_structured_batch(model, [StructuredRequest(prompt, schema, sampling)], seed)
    return None if outputs is None else outputs[0]
