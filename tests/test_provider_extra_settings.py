"""A key of `settings.extra` that the adapter already sends from a typed setting (or from the
model file and the prompt) is refused, on loading the model file and before sending: `extra`
went into the request last, so `extra.temperature: 0.2` beside `temperature: 0.7` was sent as
0.2 while the run recorded 0.7 (and past the checks that read the typed setting: an OpenAI
reasoning model's temperature). Other keys of `extra` go out as written. The real SDKs against
the local wire servers; vLLM and transformers at their sampling step (no engine needed)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from provider_support import chat_request, failure, local_spec, run
from test_roster_options import _user_folder

from poemetric.providers.anthropic_provider import AnthropicProvider
from poemetric.providers.base import GenerationSettings, ModelSpec, Provider, ProviderError
from poemetric.providers.google_provider import GoogleProvider
from poemetric.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider
from poemetric.providers.transformers_provider import TransformersProvider
from poemetric.providers.vllm_provider import VLLMProvider
from poemetric.roster import load_catalog
from poemetric.testing import AnthropicServer, GeminiServer, OpenAIServer
from poemetric.testing.http_base import LocalServer

KEY = "test-SECRET-key-0123456789"


@pytest.fixture(autouse=True)
def api_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "COMPATIBLE_KEY"):
        monkeypatch.setenv(name, KEY)


def openai(server: LocalServer, model: str = "gpt-4o") -> Provider:
    return OpenAIProvider(local_spec(server, name="m", provider="openai", model=model))


def compatible(server: LocalServer) -> Provider:
    spec = local_spec(
        server, name="m", provider="openai-compatible", model="m", api_key_env="COMPATIBLE_KEY"
    )
    return OpenAICompatibleProvider(spec)


def claude(server: LocalServer) -> Provider:
    return AnthropicProvider(local_spec(server, name="c", provider="anthropic", model="claude-x"))


def gemini(server: LocalServer, thinking: bool = False) -> Provider:
    spec = local_spec(server, name="g", provider="google", model="gemini-x", thinking=thinking)
    return GoogleProvider(spec)


#: (server, adapter, typed settings, extra, the refused key, the typed setting it names)
REFUSED: dict[str, tuple[type[LocalServer], Callable[[LocalServer], Provider], dict[str, Any],
                         dict[str, Any], str, str]] = {
    "openai temperature": (OpenAIServer, openai, {"temperature": 0.7}, {"temperature": 0.2},
                           "extra.temperature", "settings.temperature"),
    # a reasoning model takes no temperature: extra's went past that refusal
    "openai reasoning model": (OpenAIServer, lambda s: openai(s, "o3-mini"), {"max_tokens": 900},
                               {"temperature": 0.2, "max_completion_tokens": 50},
                               "extra.temperature", "settings.temperature"),
    "compatible max_tokens": (OpenAIServer, compatible, {"max_tokens": 900}, {"max_tokens": 50},
                              "extra.max_tokens", "settings.max_tokens"),
    "compatible model": (OpenAIServer, compatible, {}, {"model": "another"}, "extra.model",
                         "the model file's model"),
    "anthropic stop": (AnthropicServer, claude, {"stop": ("END",)}, {"stop_sequences": ["##"]},
                       "extra.stop_sequences", "settings.stop"),
    "anthropic system": (AnthropicServer, claude, {}, {"system": "Be terse."}, "extra.system",
                         "the prompt's system messages"),
    "google camel case": (GeminiServer, gemini, {"max_tokens": 900}, {"maxOutputTokens": 50},
                          "extra.maxOutputTokens", "settings.max_tokens"),
    "google thinking beside the budget": (GeminiServer, gemini, {"reasoning_budget_tokens": 1024},
                                          {"thinking_config": {"thinking_budget": 0}},
                                          "extra.thinking_config",
                                          "settings.reasoning_budget_tokens"),
    "google thinking beside thinking: true": (GeminiServer, lambda s: gemini(s, thinking=True), {},
                                              {"thinkingConfig": {"thinking_budget": 0}},
                                              "extra.thinkingConfig", "thinking: true"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REFUSED))
def test_an_extra_key_a_typed_setting_sends_is_refused_before_sending(case: str) -> None:
    server_class, adapter, typed, extra, key, named = REFUSED[case]
    with server_class(api_key=KEY) as server:
        error = failure(adapter(server), chat_request(**typed, extra=extra))
        assert server.requests == []
    assert not error.retryable and error.not_sent
    assert f": {key}: " in str(error) and named in str(error), str(error)


def test_other_extra_keys_are_sent_as_written() -> None:
    with OpenAIServer(api_key=KEY) as server:
        run(compatible(server), chat_request(temperature=0.7, extra={"min_p": 0.05}))
        body = server.generation_requests[0].body
    assert (body["temperature"], body["min_p"]) == (0.7, 0.05)
    with AnthropicServer(api_key=KEY) as server:
        run(claude(server), chat_request(temperature=0.7, extra={"metadata": {"user_id": "u1"}}))
        body = server.generation_requests[0].body
    assert (body["temperature"], body["metadata"]) == (0.7, {"user_id": "u1"})
    # Google's own thinking block alone (what the typed settings cannot say) goes out as written.
    block = {"thinking_budget": 512, "include_thoughts": False}
    with GeminiServer(api_key=KEY) as server:
        run(gemini(server), chat_request(temperature=0.7, extra={"thinking_config": block}))
        config = server.generation_requests[0].body["generationConfig"]
    assert config["temperature"] == 0.7
    sent = config.get("thinkingConfig") or config["thinking_config"]  # the SDK sends either
    assert sent in (block, {"thinkingBudget": 512, "includeThoughts": False}), sent


def test_the_in_process_engines_refuse_them_before_sampling() -> None:
    """vLLM's `SamplingParams` and transformers' `generate()` arguments took `extra` last too
    (`extra.max_new_tokens` replaced `max_tokens`): refused before the engine is touched."""
    vllm = VLLMProvider(ModelSpec(name="v", provider="vllm", model="org/m"))
    with pytest.raises(ProviderError, match=r"vllm: extra\.max_tokens: .*settings\.max_tokens"):
        vllm.sampling_params(chat_request(extra={"max_tokens": 64}), [])
    local = TransformersProvider(ModelSpec(name="t", provider="transformers", model="org/m"))
    with pytest.raises(ProviderError, match=r"extra\.max_new_tokens: .*settings\.max_tokens"):
        local.sampling(GenerationSettings(max_tokens=300, extra={"max_new_tokens": 64}))


def test_a_model_file_with_one_is_unusable_named_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _user_folder(
        tmp_path,
        monkeypatch,
        {
            "gpt": "name: NAME\nprovider: openai\nmodel: gpt-4o\nsettings:\n  temperature: 0.7\n"
            "  extra:\n    seed: 3\n    temperature: 0.2\n",
            "claude": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings: {extra: {max_tokens: 50}}\n",
            "gemini": "name: NAME\nprovider: google\nmodel: gemini-x\nthinking: true\n"
            "settings:\n  extra:\n    thinking_config: {thinking_budget: 0}\n",
            "vllm": "name: NAME\nprovider: vllm\nmodel: org/m\n"
            "settings:\n  max_tokens: 900\n  extra:\n    stop: ['##']\n",
            "hf": "name: NAME\nprovider: transformers\nmodel: org/m\n"
            "settings:\n  extra:\n    max_new_tokens: 64\n",
            "vllm-ok": "name: NAME\nprovider: vllm\nmodel: org/m\n"
            "settings: {max_tokens: 900, extra: {repetition_penalty: 1.1}}\n",
            "gemini-ok": "name: NAME\nprovider: google\nmodel: gemini-x\n"
            "settings: {extra: {thinking_config: {thinking_budget: 512}}}\n",
        },
    )
    unusable = load_catalog().unusable
    assert unusable["gpt"].reason == (
        "settings.extra.seed: the adapter sends settings.seed as seed: write settings.seed "
        "instead (from extra it would replace or bypass that setting in every request, and the "
        "run would record the setting, not what was sent) (and 1 more)"
    )
    assert f"{folder / 'gpt.yaml'}:8: settings.extra.temperature: " in unusable["gpt"].detail
    assert unusable["claude"].reason.startswith(
        "settings.extra.max_tokens: the adapter sends settings.max_tokens as max_tokens"
    )
    assert unusable["gemini"].reason.startswith(
        "settings.extra.thinking_config: a thinking_config block beside thinking: true"
    )
    assert f"{folder / 'gemini.yaml'}:7: settings.extra.thinking_config" in (
        unusable["gemini"].detail
    )
    assert unusable["vllm"].reason.startswith(
        "settings.extra.stop: the adapter sends settings.stop as stop"
    )
    assert unusable["hf"].reason.startswith(
        "settings.extra.max_new_tokens: the adapter sends settings.max_tokens as max_new_tokens"
    )
    usable = load_catalog().specs()
    assert usable["vllm-ok"].settings.extra == {"repetition_penalty": 1.1}
    assert usable["gemini-ok"].settings.extra == {"thinking_config": {"thinking_budget": 512}}
