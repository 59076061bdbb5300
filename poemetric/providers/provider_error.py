"""A provider's failures: `ProviderError` says whether the batch runner should try a request
again, stop the model, or count a refused key; `TagRefused` a batch tag an API would not take;
`refuse_settings` a setting a provider cannot send. `poemetric.providers.base` re-exports them."""

from __future__ import annotations


class ProviderError(Exception):
    """A failed call. `retryable` says whether the batch runner should try again; `fatal` that
    no request of this model can succeed now (e.g. nothing listens at its local endpoint), so
    the runner stops the model and leaves its jobs pending instead of failing each one.
    `key_refused` marks a refused API key that the status alone does not tell (Gemini answers
    a wrong key with HTTP 400); HTTP 401/403 count as refused keys without it. `not_sent` says
    that the request surely never reached the provider (for a batch submission: that no batch
    can have come of it), which the runner cannot tell from the error alone (an adapter's check
    before sending; OpenAI's batch file upload, before the batch is created)."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool,
        status: int | None = None,
        retry_after_s: float | None = None,
        raw: str | None = None,
        fatal: bool = False,
        key_refused: bool = False,
        not_sent: bool = False,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s
        self.raw = raw
        self.fatal = fatal
        self.key_refused = key_refused
        self.not_sent = not_sent


class TagRefused(ProviderError):
    """A tagged batch submission (`FindsBatches.submit_tagged_batch`) refused because of its
    tag: the batch API answered 400 or 422 naming the field that carries it (an
    OpenAI-compatible server without batch `metadata`). A refusal created no batch
    (`not_sent`), so the runner submits the same batch again untagged (`submit_batch`), once,
    and the model's later submissions in the run go untagged directly."""

    def __init__(self, message: str, *, status: int | None = None, raw: str | None = None) -> None:
        super().__init__(message, retryable=False, status=status, raw=raw, not_sent=True)


def refuse_settings(provider: str, refused: dict[str, str]) -> None:
    """Fail a request with a setting that `provider` cannot send (`refused`, each with why, as
    its `Provider.refused_settings` says them), naming the first. A model file that sets one is
    refused on loading already; a request that carries one anyway fails here, not retried, and
    `not_sent`: a batch submission refused so created no batch (the next run submits its jobs)."""
    if refused:
        field, why = next(iter(refused.items()))
        raise ProviderError(f"{provider}: {field}: {why}", retryable=False, not_sent=True)
