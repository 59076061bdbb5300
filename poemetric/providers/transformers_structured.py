"""Structured output for the `transformers` provider: constrained decoding of a flat JSON object.

Supported schemas (the judge's answer, `poemetric.judge.structured`, is one): an object whose
properties are all required, each either ``{"type": "integer", "enum": [...]}`` or
``{"type": "string"}`` (descriptions and titles are allowed). Anything else is refused with a
`StructuredSchemaError` naming what is supported.

Each request is an `ObjectRow`, a state machine stepped by the driver in `transformers_decoding`
(which decodes several requests together, one forward pass a step over the model's KV cache):
the object's skeleton (``{"1": ``, ``, "2": ``... ``}``) is fed to the model as forced text,
an integer slot takes the model's own choice among its enum values' tokens, and a string slot
the model's own tokens among those that can stand inside a JSON string unescaped (no quote,
backslash or control character) until it picks a token that starts with a quote (the string
closes) or `MAX_STRING_TOKENS` is reached.
Choices follow the request's sampling: greedy unless the model's generation config or the
settings sample, and a sampled choice draws with the temperature, top_k and top_p that
`generate()` would use (the request's, else the generation config's, else transformers' defaults:
1.0, 50 and 1.0; `generate_sampling`). Other logits processors a generation config may name
(repetition_penalty, min_p...) are not applied. The text is therefore always a valid JSON object
of the schema's shape.

The request's `max_new_tokens` (the model file's `settings.max_tokens`, else the provider's
`default_max_tokens`) bounds every token of the object, forced or chosen, as it bounds a free-text
answer: a string is closed early where going on would leave too few tokens for the rest of the
object (its keys, punctuation and the longest value of each integer), and the finish reason is
then "length". A budget too small for the object with every string empty is refused before any
decoding (`StructuredBudgetError`): no valid object fits it.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from poemetric.providers.base import ProviderError
from poemetric.providers.transformers_engine import GenerationOutput, LocalCausalLM, import_torch

#: Tokens a string value may take before it is closed for the model.
MAX_STRING_TOKENS = 60
SUPPORTED = (
    "a flat object whose properties are all required, each an integer enum "
    '({"type": "integer", "enum": [...]}) or a string ({"type": "string"})'
)
#: Keys a property may carry besides its type and enum (they do not constrain the output).
IGNORED_KEYS = frozenset({"type", "enum", "description", "title"})


class StructuredSchemaError(ProviderError):
    """A response schema the constrained decoder cannot produce."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            f"transformers: structured output supports only {SUPPORTED}; this schema {problem}. "
            "Set `structured: off` in the judge file for a free-text answer",
            retryable=False,
        )


class StructuredBudgetError(ProviderError):
    """A `max_tokens` smaller than the object's skeleton: no valid object fits it."""

    def __init__(self, budget: int, minimum: int) -> None:
        super().__init__(
            f"transformers: max_tokens {budget} is too few for this structured answer: its keys, "
            f"punctuation and scores alone take up to {minimum} tokens. Set settings.max_tokens "
            f"in the model file to at least {minimum}; each string then gets the tokens left "
            f"over, up to {MAX_STRING_TOKENS}",
            retryable=False,
        )


@dataclass(frozen=True)
class Slot:
    """One property of the object: its JSON key and its integer values (None: a string)."""

    key: str
    values: tuple[int, ...] | None


def schema_slots(schema: dict[str, Any]) -> list[Slot]:
    """The properties of a supported schema, in order (`StructuredSchemaError` otherwise)."""
    if schema.get("type") != "object":
        raise StructuredSchemaError(f"has type {schema.get('type')!r}, not 'object'")
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        raise StructuredSchemaError("has no properties")
    if schema.get("additionalProperties", False) is not False:
        raise StructuredSchemaError("allows additional properties")
    missing = [name for name in properties if name not in (schema.get("required") or [])]
    if missing:
        raise StructuredSchemaError(f"does not require {', '.join(map(repr, missing))}")
    slots = []
    for name, spec in properties.items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        extra = sorted(set(spec) - IGNORED_KEYS) if isinstance(spec, dict) else []
        if extra:
            raise StructuredSchemaError(f"constrains property {name!r} with {', '.join(extra)}")
        if kind == "string" and "enum" not in spec:
            slots.append(Slot(name, None))
            continue
        values = spec.get("enum") if kind == "integer" else None
        if not values or not all(type(v) is int for v in values):
            what = "integer without a list of integers as its enum" if kind == "integer" else kind
            raise StructuredSchemaError(f"gives property {name!r} the type {what!r}")
        slots.append(Slot(name, tuple(values)))
    return slots


@dataclass(frozen=True)
class ObjectPlan:
    """The forced text of an object: `openings[i]` before slot i's value (closing the string
    before it), then `closing`. `reserve[i]`: the most tokens what follows slot i's value can
    take (the forced text and the integers after it); `minimum`: the most tokens of the object
    with every string empty."""

    openings: tuple[str, ...]
    closing: str
    reserve: tuple[int, ...]
    minimum: int


def plan_object(model: LocalCausalLM, slots: Sequence[Slot]) -> ObjectPlan:
    """The forced text of an object of `slots` and its token counts, each piece tokenized alone
    as `ObjectRow.force` feeds it."""
    openings, quote = [], ""
    for index, slot in enumerate(slots):
        opening = quote + ("{" if index == 0 else ", ") + json.dumps(slot.key) + ": "
        openings.append(opening + ("" if slot.values is not None else '"'))
        quote = "" if slot.values is not None else '"'
    closing = quote + "}"
    forced = [len(ids) for ids in model.encode([*openings, closing])]
    longest = [
        max(len(ids) for ids in model.encode([str(v) for v in slot.values])) if slot.values else 0
        for slot in slots
    ]
    reserve: list[int] = []
    after = forced[-1]
    for index in reversed(range(len(slots))):
        reserve.insert(0, after)
        after += forced[index] + longest[index]
    return ObjectPlan(tuple(openings), closing, tuple(reserve), after)


def check_budget(model: LocalCausalLM, schema: dict[str, Any], budget: int | None) -> None:
    """`StructuredBudgetError` where `budget` (max new tokens; None: unbounded) cannot hold the
    object of `schema` with every string empty."""
    minimum = plan_object(model, schema_slots(schema)).minimum
    if budget is not None and budget < minimum:
        raise StructuredBudgetError(budget, minimum)


@dataclass(frozen=True)
class StringVocabulary:
    """Token ids a JSON string may contain as they are, and those that close it (start with
    a quote)."""

    inside: Any  # a LongTensor
    closing: frozenset[int]
    allowed: Any  # inside + closing, a LongTensor


_VOCABULARIES: weakref.WeakKeyDictionary[LocalCausalLM, StringVocabulary] = (
    weakref.WeakKeyDictionary()
)


def string_vocabulary(model: LocalCausalLM) -> StringVocabulary:
    if model in _VOCABULARIES:
        return _VOCABULARIES[model]
    tokenizer, torch = model.tokenizer, model._torch
    special = set(tokenizer.all_special_ids)
    inside, closing = [], set()
    for token in range(len(tokenizer)):
        if token in special:
            continue
        text = tokenizer.decode([token])
        if text.startswith('"'):
            closing.add(token)
        elif text and not any(c in '"\\\ufffd' or ord(c) < 32 or c == "\x7f" for c in text):
            inside.append(token)
    # on the model's device once: `pick` indexes the logits with them at every step of a string
    device = model.device
    vocabulary = StringVocabulary(
        torch.tensor(inside, dtype=torch.long, device=device),
        frozenset(closing),
        torch.tensor(inside + sorted(closing), dtype=torch.long, device=device),
    )
    _VOCABULARIES[model] = vocabulary
    return vocabulary


#: What `generate()` samples with where neither the request nor the model's generation config
#: sets a value (transformers' `GenerationConfig` defaults: top_k 50 is on unless set to 0).
GENERATE_DEFAULTS: dict[str, Any] = {
    "do_sample": False,
    "temperature": 1.0,
    "top_k": 50,
    "top_p": 1.0,
}


def generate_sampling(config: Any, sampling: dict[str, Any]) -> dict[str, Any]:
    """`sampling` completed as `generate()` completes it: each of `do_sample`, `temperature`,
    `top_k` and `top_p` the request's value, else the model's generation config's (`config`),
    else `generate()`'s default. `pick` then draws as a free-text answer does."""
    completed = dict(sampling)
    for name, default in GENERATE_DEFAULTS.items():
        if completed.get(name) is None:
            configured = getattr(config, name, None)
            completed[name] = configured if configured is not None else default
    return completed


def pick(logits: Any, allowed: Any, sampling: dict[str, Any]) -> int:
    """The model's pick among `allowed` token ids (a LongTensor) under the sampling, from the
    next token's `logits` (float, one row)."""
    torch = import_torch()
    scores = logits[allowed.to(logits.device)]
    if not sampling.get("do_sample"):
        return int(allowed[int(torch.argmax(scores))])
    scores = scores / float(sampling.get("temperature") or 1.0)
    top_k = sampling.get("top_k")
    if top_k and top_k < scores.numel():
        floor = torch.topk(scores, int(top_k)).values[-1]
        scores = scores.masked_fill(scores < floor, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    top_p = sampling.get("top_p")
    if top_p is not None and 0 < top_p < 1:
        ordered, order = torch.sort(probs, descending=True)
        outside = torch.cumsum(ordered, dim=-1) - ordered >= top_p
        probs = probs.clone()
        probs[order[outside]] = 0
    return int(allowed[int(torch.multinomial(probs, 1))])


#: What `ObjectRow.steps` yields (the token ids the model may pick next, a LongTensor), is sent
#: (the token picked) and returns (the object's JSON text).
Steps = Generator[Any, int, str]


class ObjectRow:
    """One object decoded for one prompt (see the module docstring), as a state machine that a
    driver (`transformers_decoding`) steps: `steps()` adds forced tokens to `pending` and yields
    each choice's allowed tokens; the driver feeds `pending` to the model, empties it, and sends
    back the token picked from the logits that follow."""

    def __init__(
        self,
        model: LocalCausalLM,
        prompt: Sequence[int],
        slots: Sequence[Slot],
        sampling: dict[str, Any],
    ) -> None:
        self.model = model
        self.slots = list(slots)
        #: As `generate()` would sample: the model's generation config fills in what is unset.
        self.sampling = generate_sampling(model.model.generation_config, sampling)
        self.prompt_tokens = len(prompt)
        #: Every token of the object, forced or chosen, counts against it (None: unbounded).
        self.budget: int | None = sampling.get("max_new_tokens")
        self.plan = plan_object(model, slots)
        if self.budget is not None and self.budget < self.plan.minimum:
            raise StructuredBudgetError(self.budget, self.plan.minimum)
        #: Tokens chosen or forced but not fed yet (the prompt first, with the object's opening):
        #: fed together when the next choice is due.
        self.pending: list[int] = list(prompt)
        self.generated: list[int] = []
        #: Whether the budget closed a string the model had not closed.
        self.cut = False

    def add(self, tokens: Sequence[int]) -> None:
        self.pending += tokens
        self.generated += tokens

    def force(self, text: str) -> None:
        self.add(self.model.encode([text])[0])

    def integer(self, values: tuple[int, ...], after: str) -> Generator[Any, int, str]:
        """One of `values`, token by token; a value that is a prefix of another (1 and 10) ends
        when the model picks the first token of `after` (the text that follows)."""
        torch = self.model._torch
        candidates = {value: self.model.encode([str(value)])[0] for value in values}
        end = self.model.encode([after])[0][0]
        picked: list[int] = []
        while True:
            matching = [v for v, seq in candidates.items() if seq[: len(picked)] == picked]
            complete = [v for v in matching if len(candidates[v]) == len(picked)]
            following = {candidates[v][len(picked)] for v in matching if v not in complete}
            if complete and not following:
                return str(complete[0])
            options = sorted(following | ({end} if complete else set()))
            token = yield torch.tensor(options, dtype=torch.long)
            if complete and token == end:
                return str(complete[0])
            picked.append(token)
            self.add([token])

    def string(self, reserve: int) -> Generator[Any, int, str]:
        """The string's content (without quotes): the model's tokens until it closes it, at most
        `MAX_STRING_TOKENS`, and fewer where the budget must keep `reserve` tokens for the rest
        of the object: there the model picks once more, and `cut` is set unless it closes the
        string (its closing quote is forced text, counted in `reserve`)."""
        vocabulary = string_vocabulary(self.model)
        limit = MAX_STRING_TOKENS
        if self.budget is not None:
            limit = min(limit, max(0, self.budget - len(self.generated) - reserve))
        content: list[int] = []
        while len(content) < limit:
            token = yield vocabulary.allowed
            if token in vocabulary.closing:
                return str(self.model.tokenizer.decode(content))
            content.append(token)
            self.add([token])
        if limit < MAX_STRING_TOKENS and (yield vocabulary.allowed) not in vocabulary.closing:
            self.cut = True
        return str(self.model.tokenizer.decode(content))

    def steps(self) -> Steps:
        """The object's JSON text, choice by choice."""
        text = ""
        for index, slot in enumerate(self.slots):
            opening = self.plan.openings[index]
            self.force(opening)
            text += opening
            if slot.values is not None:
                last = index == len(self.slots) - 1
                text += yield from self.integer(slot.values, "}" if last else ", ")
            else:
                value = yield from self.string(self.plan.reserve[index])
                text += json.dumps(value, ensure_ascii=False)[1:-1]
        self.force(self.plan.closing)  # counted, never fed: nothing follows
        return text + self.plan.closing

    def output(self, text: str) -> GenerationOutput:
        finish = "length" if self.cut else "stop"
        return GenerationOutput(text, self.prompt_tokens, len(self.generated), finish)
