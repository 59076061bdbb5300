"""The providers a command's early refusal creates are closed, as the runner closes its own.

`start_refusals` (a command none of whose models can start stops before it writes) created each
model's provider to ask its `preflight()` and dropped it: an adapter that opens a client or
starts a thread in its constructor, and releases it in `aclose` (docs/providers.md: the runner
calls it after each model, a refused one too), left it open, a non-daemon thread keeping the
process alive after the command.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import pytest

from poemetric.providers import registry
from poemetric.providers.base import (
    Completion,
    GenerationRequest,
    ModelSpec,
    Provider,
    ProviderError,
)
from poemetric.runner.preflight import start_refusals


class ThreadedProvider(Provider):
    """Starts a worker thread in its constructor (a token refresher, a connection pool's
    keeper) and stops it in `aclose`; refuses to start where `options.refuse` is set."""

    remote: ClassVar[bool] = False
    option_keys: ClassVar[frozenset[str] | None] = frozenset({"refuse"})
    made: ClassVar[list[ThreadedProvider]] = []

    def __init__(self, spec: ModelSpec) -> None:
        super().__init__(spec)
        self.done = threading.Event()
        self.worker = threading.Thread(target=self.done.wait, daemon=True)
        self.worker.start()
        type(self).made.append(self)

    def preflight(self) -> None:
        if self.spec.options.get("refuse"):
            raise ProviderError("threaded: no credentials", retryable=False)

    async def generate(self, request: GenerationRequest) -> Completion:  # pragma: no cover
        raise AssertionError("the preflight makes no call")

    async def aclose(self) -> None:
        self.done.set()
        self.worker.join(timeout=5)


@pytest.fixture
def threaded(monkeypatch: pytest.MonkeyPatch) -> type[ThreadedProvider]:
    monkeypatch.setitem(registry._REGISTERED, "threaded-test", ThreadedProvider)
    monkeypatch.setattr(ThreadedProvider, "made", [])
    return ThreadedProvider


def spec(name: str, **options: Any) -> ModelSpec:
    return ModelSpec.model_validate(
        {"name": name, "provider": "threaded-test", "model": "t-1", "options": options}
    )


def test_start_refusals_closes_every_provider_it_created(
    threaded: type[ThreadedProvider],
) -> None:
    refusals = start_refusals([spec("refused", refuse=True), spec("starts")])
    assert refusals == {"refused": "threaded: no credentials"}
    assert len(threaded.made) == 2
    assert all(not provider.worker.is_alive() for provider in threaded.made)


def test_the_command_refusal_closes_what_it_asked(threaded: type[ThreadedProvider]) -> None:
    import typer

    from poemetric.cli.paid_stage import refuse_when_none_can_start

    with pytest.raises(typer.Exit) as refused:
        refuse_when_none_can_start([spec("a", refuse=True), spec("b", refuse=True)])
    assert refused.value.exit_code == 1
    refuse_when_none_can_start([spec("c", refuse=True), spec("d")])  # d can start: goes on
    assert len(threaded.made) == 4
    assert all(not provider.worker.is_alive() for provider in threaded.made)


class QuotingProvider(ThreadedProvider):
    """A third-party adapter whose refusal quotes the key it was given (as some SDK errors do)."""

    def preflight(self) -> None:
        raise ProviderError(f"quoting: key {self.spec.options['key']} rejected", retryable=False)


def test_the_demo_judge_refusal_redacts_a_key_the_adapter_quoted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`demo --judge NAME` refuses a judge that cannot start before any work; its line printed
    the adapter's text as it came, a quoted key too, where every runner line is redacted."""
    import typer

    from poemetric.cli.demo_cmd import _refuse_a_judge_without_its_key

    secret = "sk-quoted-0123456789abcdef"
    monkeypatch.setenv("QUOTING_KEY", secret)
    monkeypatch.setattr(QuotingProvider, "made", [])
    monkeypatch.setattr(QuotingProvider, "option_keys", frozenset({"key"}))
    monkeypatch.setitem(registry._REGISTERED, "quoting-test", QuotingProvider)
    judge = ModelSpec.model_validate(
        {
            "name": "quoting",
            "provider": "quoting-test",
            "model": "q-1",
            "api_key_env": "QUOTING_KEY",
            "options": {"key": secret},
        }
    )
    with pytest.raises(typer.Exit) as refused:
        _refuse_a_judge_without_its_key(judge)
    printed = capsys.readouterr()
    assert refused.value.exit_code != 0
    assert "rejected; nothing was run" in printed.err + printed.out
    assert secret not in printed.err + printed.out
