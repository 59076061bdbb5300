"""The remote adapters import their SDK when a client is built, not with their module: a model
whose SDK is missing is still listed, and says which package to install when it would run."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from provider_support import chat_request, run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.providers.anthropic_provider import AnthropicProvider
from poemetric.providers.base import ModelSpec, ProviderError
from poemetric.providers.google_provider import GoogleProvider
from poemetric.providers.openai_provider import OpenAIProvider
from poemetric.providers.remote_common import SDKProvider

ADAPTERS: list[tuple[type[SDKProvider[Any]], str, str, str]] = [
    (OpenAIProvider, "openai", "openai", "OPENAI_API_KEY"),
    (AnthropicProvider, "anthropic", "anthropic", "ANTHROPIC_API_KEY"),
    (GoogleProvider, "google", "google.genai", "GEMINI_API_KEY"),
]


@pytest.mark.parametrize(("cls", "provider", "module", "key_env"), ADAPTERS)
def test_a_missing_sdk_is_named_with_the_package_to_install(
    monkeypatch: pytest.MonkeyPatch,
    cls: type[SDKProvider[Any]],
    provider: str,
    module: str,
    key_env: str,
) -> None:
    monkeypatch.setenv(key_env, "test-key")
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now fails: not installed
    spec = ModelSpec(name="m", provider=provider, model="m", base_url="http://127.0.0.1:9")
    adapter = cls(spec)
    with pytest.raises(ProviderError) as preflight:
        adapter.preflight()
    with pytest.raises(ProviderError) as call:
        run(adapter, chat_request())
    for error in (preflight.value, call.value):
        assert not error.retryable
        assert f"SDK (Python module {module!r})" in str(error)
        assert f"pip install '{cls.sdk_package}'" in str(error)
    assert "is not installed" in str(preflight.value)
    assert "cannot be imported" in str(call.value)


def test_a_dry_run_lists_a_model_whose_sdk_is_missing_as_unable_to_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setitem(sys.modules, "openai", None)
    listed = CliRunner().invoke(app, ["models"])
    assert listed.exit_code == 0 and "gpt-4o" in listed.output
    run = str(tmp_path / "run")
    dry_run = ["generate", "--dry-run", "--models", "gpt-4o", "--dataset", "demo"]
    plan = CliRunner().invoke(
        app,
        [*dry_run, "--run", run, "--no-progress"],
        env={"COLUMNS": "250"},
    )
    assert plan.exit_code == 0, plan.output
    assert "cannot run" in plan.output
    assert "its SDK (Python module 'openai') is not installed: pip install 'openai>=1.50'" in (
        plan.output
    )


@pytest.mark.parametrize(("cls", "provider", "module", "key_env"), ADAPTERS)
@pytest.mark.parametrize("step", ["batch_status", "batch_results"])
def test_a_batch_poll_without_the_sdk_says_which_package_to_install(
    monkeypatch: pytest.MonkeyPatch,
    cls: type[SDKProvider[Any]],
    provider: str,
    module: str,
    key_env: str,
    step: str,
) -> None:
    """The client is built inside the poll's try: the error it raises goes through `translate`,
    which must hand it back without importing the SDK (it raised a bare ImportError)."""
    monkeypatch.setenv(key_env, "test-key")
    monkeypatch.setitem(sys.modules, module, None)
    spec = ModelSpec(name="m", provider=provider, model="m", base_url="http://127.0.0.1:9")
    adapter = cls(spec)
    with pytest.raises(ProviderError) as poll:
        asyncio.run(getattr(adapter, step)("batch-1"))
    assert not poll.value.retryable
    assert f"pip install '{cls.sdk_package}'" in str(poll.value)
