"""The one interface every model provider implements, and the typed model configuration.

A provider adapter is a small class: it turns a `GenerationRequest` into one call of its SDK (or
local engine) and returns a `Completion`, or raises `ProviderError` saying whether the failure is
worth retrying. Retries, rate limits, caching and storage live in the batch runner, not here.
The interface of a batch API (`BatchCapable`, `FindsBatches`) is in `batch_api`, the failures
(`ProviderError`, `TagRefused`, `refuse_settings`) in `provider_error`, both imported from here
as well.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, field_validator
from pydantic_core import PydanticCustomError

# The batch API's interface, in a module of its own; imported from here as well.
from poemetric.providers.batch_api import BatchCapable as BatchCapable
from poemetric.providers.batch_api import BatchSearch as BatchSearch
from poemetric.providers.batch_api import BatchState as BatchState
from poemetric.providers.batch_api import BatchStatus as BatchStatus
from poemetric.providers.batch_api import FindsBatches as FindsBatches
from poemetric.providers.batch_api import creating_batch as creating_batch
from poemetric.providers.batch_api import sends_batches as sends_batches

# A provider's failures (`ProviderError`), in a module of their own; imported from here as well.
from poemetric.providers.provider_error import ProviderError as ProviderError
from poemetric.providers.provider_error import TagRefused as TagRefused
from poemetric.providers.provider_error import refuse_settings as refuse_settings

Role = Literal["system", "user", "assistant"]


def _no_boolean(kind: str, words: str) -> BeforeValidator:
    """Refuse true/false where a number goes: pydantic reads `max_tokens: true` as 1."""

    def check(value: Any) -> Any:
        if isinstance(value, bool):
            raise PydanticCustomError(kind, words)
        return value

    return BeforeValidator(check)


#: A whole number or a number of a model file, never a boolean (`true` is not 1).
Whole = Annotated[int, _no_boolean("int_type", "Input should be a valid integer")]
Number = Annotated[float, _no_boolean("float_type", "Input should be a valid number")]


class ChatMessage(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str


class GenerationSettings(BaseModel):
    """Sampling settings. `None` everywhere means "the provider's (or model's) own default".

    The paper uses each model's default sampling settings, so a model file normally sets nothing
    here except what a provider needs to work at all (e.g. `max_tokens` for Anthropic, which has no
    default, or for vLLM, whose default of 16 tokens would cut every poem).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    temperature: Number | None = Field(default=None, ge=0)
    top_p: Number | None = Field(default=None, gt=0, le=1)
    top_k: Whole | None = Field(default=None, ge=1)
    max_tokens: Whole | None = Field(default=None, ge=1)
    seed: Whole | None = None
    stop: tuple[str, ...] | None = None
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    reasoning_budget_tokens: Whole | None = Field(default=None, ge=0)
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Provider-specific request fields, passed through as-is."
    )

    def merged(self, override: GenerationSettings | None) -> GenerationSettings:
        """These settings with every field that `override` sets explicitly replaced."""
        if override is None:
            return self
        data = self.model_dump()
        data.update(override.model_dump(exclude_unset=True))
        return GenerationSettings.model_validate(data)


class VLLMOptions(BaseModel):
    """Engine options for models served by vLLM's offline engine."""

    model_config = ConfigDict(extra="forbid")

    tensor_parallel_size: Whole = 1
    pipeline_parallel_size: Whole = 1
    max_model_len: Whole | None = None
    dtype: str = "auto"
    gpu_memory_utilization: Number = 0.9
    trust_remote_code: bool = False
    distributed_executor_backend: str | None = Field(
        default=None, description="'ray' for multi-node; vLLM's default otherwise."
    )
    engine_kwargs: dict[str, Any] = Field(default_factory=dict)


class RateLimits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_concurrency: Whole = Field(default=8, ge=1)
    requests_per_minute: Number | None = Field(default=None, gt=0)
    tokens_per_minute: Number | None = Field(default=None, gt=0)
    timeout_s: Number = Field(default=600.0, gt=0)
    max_retries: Whole = Field(default=6, ge=0)


class Pricing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    input_per_mtok: Number = Field(default=0.0, ge=0, description="USD per million input tokens")
    output_per_mtok: Number = Field(default=0.0, ge=0, description="USD per million output tokens")
    batch_discount: Number = Field(
        default=0.5, ge=0, le=1, description="price factor in batch mode"
    )

    def cost(self, input_tokens: int, output_tokens: int, *, batch: bool = False) -> float:
        usd = (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6
        return usd * (self.batch_discount if batch else 1.0)


class ModelSpec(BaseModel):
    """One model, as declared by one YAML file in `generators/` or `judges/`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Short unique name used on the command line, e.g. 'gpt-4o'.")
    provider: str = Field(description="Registered provider name, e.g. 'openai', 'vllm', 'markov'.")
    model: str = Field(description="The provider's model id, e.g. 'gpt-4o-2024-08-06'.")
    display_name: str | None = None
    groups: tuple[str, ...] = ()
    in_all: bool = Field(
        default=True,
        description="false: left out of the built-in group `all` (a demo model, whose output says "
        "nothing: judges/smollm2-135m.yaml); still run when named, or through a group it joins.",
    )
    open_weights: bool = False
    thinking: bool = False
    base_url: str | None = None
    api_key_env: str | Literal[False] | None = Field(
        default=None,
        description="Environment variable holding the API key (never the key); None: the "
        "provider's default variables; False: no key (`openai-compatible`, a server that checks "
        "none: its SDK gets the placeholder `NO_KEY`).",
    )
    settings: GenerationSettings = Field(default_factory=GenerationSettings)
    pricing: Pricing = Field(default_factory=Pricing)
    limits: RateLimits = Field(default_factory=RateLimits)
    vllm: VLLMOptions | None = None
    options: dict[str, Any] = Field(
        default_factory=dict, description="Provider-specific options (not sampling settings)."
    )
    # -- judge files only ----------------------------------------------------------------------
    template: str | None = Field(
        default=None,
        description="Judge prompt template: a file in prompts/ ('judge-v2' or 'judge-v2.md') or "
        "a path (relative to the judge file); default: the paper's prompts/judge.md.",
    )
    structured: Literal["off", "auto"] = Field(
        default="off",
        description="'auto': ask for structured output (OpenAI json_schema, Gemini response "
        "schema, Anthropic tool use, vLLM guided JSON); 'off': the paper's free-text answer.",
    )
    reask: Whole = Field(
        default=1,
        ge=0,
        le=5,
        description="Follow-up turns after an unparsable answer, each carrying the reason.",
    )
    notes: str | None = None
    #: `FILE:LINE` of the field that chose the key's variable (`api_key_env:`, else `provider:`),
    #: set by the roster for the missing-key refusal; not a setting, so never stored.
    _key_asked_at: str | None = PrivateAttr(default=None)
    #: The model file it was read from, set by the roster: warnings name it (a model of
    #: $POEMETRIC_GENERATORS_DIR is not in generators/); not a setting, so never stored.
    _model_file: str | None = PrivateAttr(default=None)

    def model_file(self) -> str:
        """The file to change for this model: the one it was read from, else where a model file
        of its name goes (`generators/NAME.yaml`, for a spec made in Python)."""
        return self._model_file or f"generators/{self.name}.yaml"

    @field_validator("api_key_env", mode="before")
    @classmethod
    def _key_variable_or_false(cls, value: Any) -> Any:
        """A variable's name, null, or `false` (no key); not `true`, `0` or a number."""
        if value is None or value is False or isinstance(value, str):
            return value
        raise ValueError(
            "must be the name of the environment variable holding the key, or false for a "
            "server that checks no key (provider openai-compatible)"
        )

    @field_validator("structured", mode="before")
    @classmethod
    def _structured_from_yaml_boolean(cls, value: Any) -> Any:
        """YAML reads an unquoted `off` (also `no`, `false`) as false, and `on`, `yes`, `true` as
        true: `structured: off`, as the docs write it, is the default, and true is `auto`."""
        if value is False:
            return "off"
        if value is True:
            return "auto"
        return value

    @property
    def label(self) -> str:
        return self.display_name or self.name


@dataclass(frozen=True)
class ResponseSchema:
    """Structured output wanted from the model: a JSON Schema for one object.

    Each provider asks for it its own way (OpenAI `json_schema` strict, Gemini
    `response_json_schema`, Anthropic a forced tool call, vLLM guided decoding); the text of the
    `Completion` is then that object as JSON.
    """

    name: str
    schema: dict[str, Any] = field(hash=False)
    description: str = ""


@dataclass(frozen=True)
class GenerationRequest:
    messages: tuple[ChatMessage, ...]
    settings: GenerationSettings
    sample_index: int = 0
    #: Stage context for offline generators (poem id, form, original text, dataset name...).
    #: Never sent to remote APIs and not part of the response-cache key.
    context: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: Structured output (part of the cache key); None = free text.
    response_schema: ResponseSchema | None = None


@dataclass(frozen=True)
class RunCorpus:
    """The poems of a run's dataset snapshot, handed to offline generators that learn from them.

    Equality and hashing use `fingerprint` only, so a model built from a corpus can be cached
    without hashing every poem on every request.
    """

    fingerprint: str
    poems: tuple[tuple[str, str], ...] = field(compare=False)


@dataclass
class TokenUsage:
    """A response's token counts. `output_tokens` includes any reasoning, as billed.
    `reasoning_tokens` is None where the provider gives no figure for a response that reasoned
    (Anthropic's usage counts thinking only inside `output_tokens`): unknown, stored as NULL,
    not 0, which would claim that the model did not reason."""

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int | None = 0


@dataclass
class Completion:
    """What a provider returned for one request."""

    text: str
    reasoning: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)
    usage: TokenUsage = field(default_factory=TokenUsage)
    request_id: str | None = None
    finish_reason: str | None = None
    provider_model: str | None = None
    latency_s: float | None = None


class Provider(ABC):
    """Base class for provider adapters. Subclasses set `name` (and `option_keys`) and implement
    `generate`."""

    name: ClassVar[str]
    #: True when one process can serve many requests at once more efficiently as a single batch
    #: (vLLM's offline engine); the runner then calls `generate_batch` with many requests.
    prefers_batches: ClassVar[bool] = False
    #: Whether the provider needs network access / an API key (the roster reads it: a remote
    #: provider's model without prices has an unknown price, not a free one).
    remote: ClassVar[bool] = True
    #: True when each model should run in its own child process so that its resources (GPU
    #: memory of a vLLM engine) are freed before the next model starts.
    isolate_process: ClassVar[bool] = False
    #: True when the provider honours `settings.seed` (repeated samples then vary the seed).
    takes_seed: ClassVar[bool] = False
    #: The keys of the model file's `options:` that this provider reads. A file with any other
    #: key is unusable (a typo such as `ordr: 3` would otherwise be ignored and the default run).
    #: `None`: not declared, so nothing is checked; `frozenset()`: the provider reads no options.
    option_keys: ClassVar[frozenset[str] | None] = None
    #: True when a model file may say `api_key_env: false`: the endpoint checks no key (a local
    #: OpenAI-compatible server). A remote provider without it needs a key: such a file is
    #: unusable.
    accepts_no_key: ClassVar[bool] = False
    #: True when a model file must give `base_url` (there is no default endpoint): a file
    #: without it is unusable, named with its file by `poemetric models`.
    needs_base_url: ClassVar[bool] = False
    #: True when a model file must name its key's variable (`api_key_env`, or `false` for no key):
    #: there is no default variable, so a file without the line is unusable too.
    needs_api_key_env: ClassVar[bool] = False

    def __init__(self, spec: ModelSpec) -> None:
        self.spec = spec

    @classmethod
    def refused_settings(cls, spec: ModelSpec) -> dict[str, str]:
        """The fields of `spec.settings` this provider cannot send for `spec`'s model, each
        with why. A model file that sets one is unusable, named with its file and line, rather
        than run with the setting left out while the run's record says it was used (or failing
        every call). None by default."""
        return {}

    @classmethod
    def refused_options(cls, spec: ModelSpec) -> dict[str, str]:
        """The keys of `spec.options` whose value this provider cannot use, each with why (a
        Markov baseline's `candidates: 0` wrote every line as "..."). A model file that sets
        one is unusable, named with its file and line. None by default."""
        return {}

    @abstractmethod
    async def generate(self, request: GenerationRequest) -> Completion:
        """Run one request. Raise `ProviderError` on failure."""

    async def generate_batch(
        self, requests: Sequence[GenerationRequest]
    ) -> list[Completion | ProviderError]:
        """Run many requests; the default runs them one by one."""
        results: list[Completion | ProviderError] = []
        for request in requests:
            try:
                results.append(await self.generate(request))
            except ProviderError as error:
                results.append(error)
        return results

    def chunk_limit(self) -> int | None:
        """With `prefers_batches`: the most requests worth handing over in one `generate_batch`
        call, or None for no limit. An engine that serves a chunk a few requests at a time
        (transformers' `batch_size`) says so: the runner stores each chunk's answers when it
        returns, so a larger chunk would only delay storing (a stop or a crash would lose it
        all) and lengthen a stop's wait for the chunk in flight."""
        return None

    def preflight(self) -> None:  # noqa: B027 - optional hook
        """Raise a non-retryable `ProviderError` when this provider cannot run at all (no API
        key, engine not installed). The runner calls it before a model's first job, so such a
        model is reported once instead of filling the run with one error row per job."""

    async def warm_up(self) -> None:  # noqa: B027 - optional hook
        """Do the slow set-up the first call would otherwise do (import an SDK, build its
        client). The runner awaits it once per model before the first `generate`, outside the
        per-request timeout (`limits.timeout_s`), which then times the request alone. A failure
        here is not reported: the first call meets it again and stores it with its job."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release clients, engines and sockets."""
