"""The interface of a provider's asynchronous, discounted batch API (`BatchCapable`), and of a
batch list the runner can search for a submission whose answer was lost (`FindsBatches`).

`poemetric.providers.base` re-exports every name here: adapters import them from either.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Literal

if TYPE_CHECKING:
    from poemetric.providers.base import Completion, GenerationRequest, Provider, ProviderError

BatchState = Literal["in_progress", "completed", "failed", "expired", "cancelled"]


@dataclass
class BatchStatus:
    """Progress of one provider-side batch job (OpenAI Batch, Anthropic Message Batches, Gemini)."""

    batch_id: str
    state: BatchState
    total: int = 0
    completed: int = 0
    failed: int = 0
    #: Why the batch failed as a whole, where the provider says so apart from its requests
    #: (Gemini's operation `error`): said in the error of each request left without a result.
    error: str | None = None

    @property
    def done(self) -> bool:
        """True once the batch will not change any more (results can be collected)."""
        return self.state != "in_progress"


class BatchCapable(ABC):
    """Mixin for providers with an asynchronous, discounted batch API (about half price).

    Custom ids are the runner's keys: `batch_results` maps each id given to `submit_batch` to its
    `Completion`, or to a `ProviderError` for a request that failed or was never processed.
    """

    #: Whether `submit_batch` (and `submit_tagged_batch`) call `creating_batch()` right before
    #: the one request that may create the batch. The runner then writes its row of the
    #: submission (`poemetric.runner.batch_intent`) only then: a process killed before it (while
    #: it imports its SDK or uploads an input file) left no batch, and the next run submits those
    #: jobs again instead of stopping the model. False (a third-party adapter that does not
    #: say): the row is written before `submit_batch` is called, as any moment of it may create
    #: the batch.
    announces_creation: ClassVar[bool] = False
    #: The provider's limits on one batch: how many requests it may hold, and how many bytes
    #: its requests may come to (as `batch_item_bytes` counts them). None: none known. The
    #: runner splits the jobs it submits so that no batch goes past either.
    max_batch_requests: ClassVar[int | None] = None
    max_batch_bytes: ClassVar[int | None] = None

    def batch_item_bytes(self, custom_id: str, request: GenerationRequest) -> int:
        """What one request adds to a submission, in bytes, counted against `max_batch_bytes`
        (no less than it takes on the wire). Default: 0 (no byte limit is known)."""
        return 0

    @abstractmethod
    async def submit_batch(self, items: Sequence[tuple[str, GenerationRequest]]) -> str:
        """Submit (custom_id, request) pairs as one batch job; return the provider's batch id."""

    @abstractmethod
    async def batch_status(self, batch_id: str) -> BatchStatus:
        """Poll one batch job."""

    @abstractmethod
    async def batch_results(self, batch_id: str) -> dict[str, Completion | ProviderError]:
        """Results of a finished batch job, keyed by custom id."""


def announces_creation(provider: object) -> bool:
    """Whether `provider` says `creating_batch()` before the request that creates its batch
    (`BatchCapable.announces_creation`). A subclass that redefines a submission method (a name
    holding "submit") below the class that declared it is not taken at its word: it may create
    the batch without saying so, so its row is written before the submission, as for an adapter
    that does not say."""
    cls = type(provider)
    if getattr(cls, "announces_creation", False) is not True:
        return False
    for klass in cls.__mro__:
        if "announces_creation" in vars(klass):
            return True
        if any("submit" in name for name in vars(klass)):
            return False
    return False


#: What `creating_batch()` calls in the submission under way (`announcing_creation`).
_on_creation: ContextVar[Callable[[], None] | None] = ContextVar(
    "poemetric_batch_creation", default=None
)


def creating_batch() -> None:
    """Said by an adapter whose `announces_creation` is True right before the request that may
    create its batch (nothing after it but that request): the runner stores its row of the
    submission now, before the batch can exist. Called more than once (a retried submission),
    the row is written once."""
    hook = _on_creation.get()
    if hook is not None:
        hook()


@contextmanager
def announcing_creation(hook: Callable[[], None]) -> Iterator[None]:
    """`hook` is what `creating_batch()` calls inside (the runner's, around one submission)."""
    token = _on_creation.set(hook)
    try:
        yield
    finally:
        _on_creation.reset(token)


@dataclass(frozen=True)
class BatchSearch:
    """What a provider's batch list holds of one tagged submission (`FindsBatches`): the ids of
    the batches carrying its tag, and how many batches were `searched` (listed)."""

    found: tuple[str, ...]
    searched: int


class FindsBatches(ABC):
    """Optional mixin, beside `BatchCapable`, for a batch API whose batch list shows a tag sent
    with each submission (OpenAI's `metadata`, Gemini's `display_name`). The runner then submits
    with `submit_tagged_batch`, the tag being the `unconfirmed-...` row it wrote before; when
    the answer to a submission is lost (a timeout, a dropped connection, a 500), the same run (a
    few times, after short waits) and then the next one ask `find_batches` for that tag and
    adopt the batch they find instead of stopping the model; a submission answered 503 or 529 is
    looked for so before each retry, which is not sent when its batch is found. A provider
    without it (Anthropic's Message Batches carry no such field; a third-party adapter that does
    not say) keeps the manual way: look in the provider's batch list, then `poemetric batches
    abandon ... --force`."""

    @abstractmethod
    async def submit_tagged_batch(
        self, items: Sequence[tuple[str, GenerationRequest]], tag: str
    ) -> str:
        """As `submit_batch`, the batch carrying `tag` where `find_batches` can see it."""

    @abstractmethod
    async def find_batches(self, tag: str, *, since: float) -> BatchSearch:
        """The batches of the provider's list that carry `tag` (free: a list call pays for
        nothing), leaving out those cancelled (a user gave them up). `since` (Unix time, a
        margin for clock skew taken off already): a batch created before it cannot carry the
        tag, so the list may be read only down to there."""


def sends_batches(cls: type[Provider]) -> bool:
    """Whether `--batch` sends this provider's calls through its batch API (at
    `pricing.batch_discount`): a `BatchCapable` provider that the runner does not hand chunks to
    in-process instead (`prefers_batches`, as `execute_model` decides)."""
    return issubclass(cls, BatchCapable) and not cls.prefers_batches
