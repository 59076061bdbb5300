"""Jobs (one paid or offline call each), their cache keys, and deterministic sharding."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from poemetric.providers.base import (
    ChatMessage,
    Completion,
    GenerationRequest,
    GenerationSettings,
    ModelSpec,
    ResponseSchema,
    TokenUsage,
)

#: Bumped when the cache-key recipe changes, so old entries can never be misread as new ones.
CACHE_KEY_VERSION = 1


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: equal values always give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def settings_json(settings: GenerationSettings) -> str:
    return canonical_json(settings.model_dump(mode="json"))


_DEFAULT_PORTS = {"http": ":80", "https": ":443"}


def endpoint_for_key(base_url: str) -> str:
    """`base_url` as the cache key sees it: spellings of one endpoint give one text.

    Conservative on purpose: the scheme and host are lower-cased, a port that is the scheme's
    default (`:80` for http, `:443` for https) is dropped and trailing slashes are taken off the
    path; the user part, the path's case, the query and the fragment stay as written. A URL
    already in that form (the common case: `http://127.0.0.1:8000/v1`) comes back unchanged, so
    its cache keys are those it always had. Only the key uses this; requests go to the URL as
    written.
    """
    parts = urlsplit(base_url)
    if not parts.scheme or not parts.netloc:
        return base_url  # not an absolute URL: nothing to normalise safely
    scheme = parts.scheme.lower()
    user, at, host = parts.netloc.rpartition("@")
    host = host.lower()
    default_port = _DEFAULT_PORTS.get(scheme)
    if default_port and host.endswith(default_port):
        host = host.removesuffix(default_port)
    path = parts.path.rstrip("/")
    return urlunsplit((scheme, f"{user}{at}{host}", path, parts.query, parts.fragment))


def cache_key(spec: ModelSpec, request: GenerationRequest, *, scope: str | None = None) -> str:
    """sha256 over (provider, model id, settings, messages, sample index[, endpoint, provider and
    engine options, scope]). The endpoint is `endpoint_for_key(spec.base_url)`.

    The request's `context` (offline generators' inputs) is deliberately left out: it is derived
    from the prompt, which is already in the messages. `scope` separates requests whose text is
    identical but which must be sampled independently: two poems of a dataset can share a prompt
    (same form, meter, rhyme and theme), and each must get its own poem, as it would without a
    cache.
    """
    payload: dict[str, Any] = {
        "v": CACHE_KEY_VERSION,
        "provider": spec.provider,
        "model": spec.model,
        "settings": request.settings.model_dump(mode="json"),
        "messages": [message.model_dump(mode="json") for message in request.messages],
        "sample_index": request.sample_index,
    }
    # What else decides the answer: the endpoint (two servers may serve different weights under
    # one model id), provider options (a chat template switch, a generator's order) and engine
    # options (quantization, dtype). Added only when set, so keys of plain specs stay as they were.
    # The endpoint in its normalised spelling: `.../v1/` and `HTTP://Host/v1` share `.../v1`'s.
    if spec.base_url:
        payload["base_url"] = endpoint_for_key(spec.base_url)
    if spec.options:
        payload["options"] = spec.options
    if spec.vllm is not None:
        payload["vllm"] = spec.vllm.model_dump(mode="json")
    if request.response_schema is not None:
        payload["response_schema"] = {
            "name": request.response_schema.name,
            "schema": request.response_schema.schema,
        }
    if scope is not None:
        payload["scope"] = scope
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def follow_up_cache_key(first_key: str, request: GenerationRequest) -> str:
    """The cache key of a follow-up turn: its first turn's key and the whole conversation."""
    messages = [message.model_dump(mode="json") for message in request.messages]
    payload = {"v": CACHE_KEY_VERSION, "first": first_key, "messages": messages}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


def user_request(
    text: str,
    settings: GenerationSettings,
    sample_index: int,
    context: dict[str, Any] | None = None,
    *,
    vary_seed: bool = False,
    response_schema: ResponseSchema | None = None,
) -> GenerationRequest:
    """The prompt as a single user message: no system prompt (the provider's default applies).

    When the settings fix a `seed`, sample k > 0 uses `seed + k`: samples stay reproducible but
    are not k identical copies of sample 0. With `vary_seed` (a provider that takes a seed), a
    sample k > 0 gets seed k even when the settings fix none; sample 0 is sent as configured,
    so adding samples later never changes (or re-buys) the first one.
    """
    if sample_index > 0 and (settings.seed is not None or vary_seed):
        settings = settings.model_copy(update={"seed": (settings.seed or 0) + sample_index})
    return GenerationRequest(
        messages=(ChatMessage(role="user", content=text),),
        settings=settings,
        sample_index=sample_index,
        context=dict(context or {}),
        response_schema=response_schema,
    )


@dataclass(frozen=True)
class Job:
    """One request whose result becomes one row of a result table.

    `key` is the row's stable id (generation_id / judgment_id), also used as the batch custom id,
    the lease key and the shard key. `row` holds the identifying columns the stage writes with
    every result. `turn` counts follow-up turns: a follow-up job keeps the key and row of its
    first turn, and carries the whole conversation in its request.
    """

    key: str
    spec: ModelSpec
    request: GenerationRequest
    cache_key: str
    row: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    turn: int = 0


# -- sharding ------------------------------------------------------------------------------------
_SHARD_RE = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (0-based): a job belongs to it when hash(key) % count == index."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        match = _SHARD_RE.match(text)
        if not match:
            raise ValueError(f"--shard must look like K/N (e.g. 0/4), got {text!r}")
        index, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 0 <= index < count:
            raise ValueError(
                f"--shard {text}: need N >= 1 and 0 <= K < N (shards are numbered from 0, "
                "like SLURM_ARRAY_TASK_ID with --array=0-(N-1))"
            )
        return cls(index, count)

    def owns(self, job_key: str) -> bool:
        return shard_of(job_key, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(job_key: str, count: int) -> int:
    digest = hashlib.sha256(job_key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count


def select_shard(jobs: Iterable[Job], shard: Shard | None) -> list[Job]:
    return [job for job in jobs if shard is None or shard.owns(job.key)]


# -- completions <-> JSON --------------------------------------------------------------------------
def completion_to_dict(completion: Completion) -> dict[str, Any]:
    return {
        "text": completion.text,
        "reasoning": completion.reasoning,
        "raw": completion.raw,
        "usage": {
            "input_tokens": completion.usage.input_tokens,
            "output_tokens": completion.usage.output_tokens,
            "reasoning_tokens": completion.usage.reasoning_tokens,
        },
        "request_id": completion.request_id,
        "finish_reason": completion.finish_reason,
        "provider_model": completion.provider_model,
        "latency_s": completion.latency_s,
    }


def completion_from_dict(data: dict[str, Any]) -> Completion:
    usage = data.get("usage") or {}
    return Completion(
        text=str(data.get("text") or ""),
        reasoning=data.get("reasoning"),
        raw=dict(data.get("raw") or {}),
        usage=TokenUsage(
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            reasoning_tokens=_count_or_unknown(usage.get("reasoning_tokens", 0)),
        ),
        request_id=data.get("request_id"),
        finish_reason=data.get("finish_reason"),
        provider_model=data.get("provider_model"),
        latency_s=data.get("latency_s"),
    )


def _count_or_unknown(value: Any) -> int | None:
    """A stored token count; None (a provider that gave no figure) stays unknown, not 0."""
    return None if value is None else int(value)
