"""A setting the provider cannot send for the model makes the file unusable, named with its file
and line (`Provider.refused_settings`). An OpenAI reasoning model's `temperature` or `top_p` was
silently left out of every request, while `models show` and the run's stored settings named it
as used; the OpenAI API's `top_k` failed every call, one error row per job."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_roster_options import _user_folder
from test_roster_unusable import _invoke

from poemetric.roster import load_catalog

O3 = "name: NAME\nprovider: openai\nmodel: o3-mini\nsettings:\n  max_tokens: 900\n  temperature: 0.2\n"
REASON = (
    "settings.temperature: a reasoning model takes none (the API samples at its own fixed "
    "value, and would refuse or ignore it): remove it from the model's settings, or write "
    "options.reasoning_model: false if the model is not one"
)


def test_a_reasoning_models_temperature_makes_the_file_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _user_folder(tmp_path, monkeypatch, {"my-o3": O3})
    path = folder / "my-o3.yaml"
    run = tmp_path / "run"
    code, out, err = _invoke(
        "generate", "--run", str(run), "--models", "my-o3", "--limit", "1", "--dry-run"
    )
    assert (code, out) == (2, ""), err
    assert err.splitlines() == [
        f"error: {path}:6: model 'my-o3' cannot be used: {REASON}; details: "
        "`poemetric models show my-o3`"
    ]
    assert not run.exists()

    code, out, err = _invoke("models")
    assert code == 0, err
    assert f"  my-o3: {REASON}  ({path}:6)" in out.splitlines()

    code, out, err = _invoke("models", "show", "my-o3")
    assert code == 2 and f"{path}:6: settings.temperature: a reasoning model" in err


def test_what_each_openai_file_may_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _user_folder(
        tmp_path,
        monkeypatch,
        {
            "both": O3 + "  top_p: 0.9\n",
            "not-reasoning": O3 + "options:\n  reasoning_model: false\n",
            "by-option": "name: NAME\nprovider: openai-compatible\nmodel: r1\n"
            "base_url: http://127.0.0.1:9/v1\napi_key_env: false\n"
            "options: {reasoning_model: true}\nsettings: {top_p: 0.9, top_k: 20}\n",
            "chat": "name: NAME\nprovider: openai\nmodel: gpt-4o\n"
            "settings: {temperature: 0.2, top_p: 0.9}\n",
            "top-k": "name: NAME\nprovider: openai\nmodel: gpt-4o\nsettings: {top_k: 20}\n",
            "budget": "name: NAME\nprovider: openai\nmodel: o1\n"
            "settings: {reasoning_budget_tokens: 2000}\n",
        },
    )
    catalog = load_catalog()
    unusable = catalog.unusable
    assert unusable["both"].reason == REASON + " (and 1 more)"
    assert "both.yaml:7: settings.top_p: a reasoning model takes none" in unusable["both"].detail
    assert unusable["by-option"].reason.startswith("settings.top_p: a reasoning model")
    assert unusable["top-k"].reason == (
        "settings.top_k: the OpenAI API has no top_k; remove it from the model's settings"
    )
    assert unusable["budget"].reason.startswith(
        "settings.reasoning_budget_tokens: not an OpenAI chat-completions setting"
    )
    usable = catalog.specs()
    assert usable["not-reasoning"].settings.temperature == 0.2
    assert usable["chat"].settings.top_p == 0.9


def test_settings_the_other_adapters_cannot_send_make_the_file_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anthropic's `seed` and `reasoning_effort`, vLLM's and transformers' reasoning settings
    and transformers' `stop` were refused by the adapter at every call: the file loaded,
    `poemetric models` listed it as usable, and a run stored one error row per job (tried
    again, and refused again, by every later run)."""
    _user_folder(
        tmp_path,
        monkeypatch,
        {
            "claude-seed": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings:\n  max_tokens: 900\n  seed: 7\n",
            "claude-effort": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings: {reasoning_effort: high}\n",
            "claude-ok": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings: {temperature: 0.7, top_k: 40}\n",
            "claude-thinking-ok": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings: {temperature: 1, top_p: 0.95, reasoning_budget_tokens: 2048}\n",
            "claude-thinking": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings: {temperature: 0.7, top_k: 40, top_p: 0.9, reasoning_budget_tokens: 2048}\n",
            "vllm-budget": "name: NAME\nprovider: vllm\nmodel: org/m\n"
            "settings: {max_tokens: 900, reasoning_budget_tokens: 2000}\n",
            "hf-stop": "name: NAME\nprovider: transformers\nmodel: org/m\n"
            "settings: {stop: ['END']}\n",
            "hf-ok": "name: NAME\nprovider: transformers\nmodel: org/m\n"
            "settings: {temperature: 0.7, top_k: 40, seed: 3}\n",
        },
    )
    catalog = load_catalog()
    unusable = catalog.unusable
    assert unusable["claude-seed"].reason.startswith(
        "settings.seed: the Anthropic Messages API has no seed"
    )
    assert "claude-seed.yaml:6: settings.seed" in unusable["claude-seed"].detail
    assert unusable["claude-effort"].reason.startswith(
        "settings.reasoning_effort: the Anthropic Messages API has no reasoning_effort; "
        "use reasoning_budget_tokens"
    )
    assert unusable["claude-thinking"].reason == (
        "settings.temperature: extended thinking (reasoning_budget_tokens) takes no temperature "
        "but 1; remove it (and 2 more)"
    )
    assert unusable["vllm-budget"].reason.startswith(
        "settings.reasoning_budget_tokens: not a vLLM sampling setting"
    )
    assert unusable["hf-stop"].reason.startswith(
        "settings.stop: not supported by the transformers provider"
    )
    usable = catalog.specs()
    assert usable["claude-ok"].settings.top_k == 40
    assert usable["claude-thinking-ok"].settings.top_p == 0.95
    assert usable["hf-ok"].settings.seed == 3


def test_a_thinking_budget_the_messages_api_refuses_makes_the_file_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Messages API takes `thinking.budget_tokens` from 1024 and below `max_tokens` (the
    local server refuses the others with a 400, as the API does): such a file loaded as usable
    and a run stored one error row per job. The shipped Claude file stays usable."""
    _user_folder(
        tmp_path,
        monkeypatch,
        {
            "claude-small-budget": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings:\n  reasoning_budget_tokens: 512\n",
            "claude-budget-over": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings:\n  max_tokens: 2048\n  reasoning_budget_tokens: 2048\n",
            "claude-budget-ok": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings:\n  max_tokens: 2049\n  reasoning_budget_tokens: 2048\n",
            "claude-no-thinking": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings:\n  max_tokens: 300\n  reasoning_budget_tokens: 0\n",
        },
    )
    catalog = load_catalog()
    unusable = catalog.unusable
    assert unusable["claude-small-budget"].reason == (
        "settings.reasoning_budget_tokens: extended thinking takes a budget of 1024 tokens or "
        "more (0 or none: no thinking); 512 is refused"
    )
    assert "claude-small-budget.yaml:5: settings.reasoning_budget_tokens" in (
        unusable["claude-small-budget"].detail
    )
    assert unusable["claude-budget-over"].reason.startswith(
        "settings.max_tokens: 2048 is not above reasoning_budget_tokens 2048"
    )
    assert "claude-budget-over.yaml:5: settings.max_tokens" in (
        unusable["claude-budget-over"].detail
    )
    usable = catalog.specs()
    assert usable["claude-budget-ok"].settings.max_tokens == 2049
    assert usable["claude-no-thinking"].settings.reasoning_budget_tokens == 0
    assert usable["claude-3.7-sonnet"].settings.reasoning_budget_tokens == 16000


def test_a_thinking_block_in_extra_makes_the_file_unusable_as_the_typed_budget_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`settings.extra.thinking` with a temperature loaded as usable, and each call was answered
    400 (temperature other than 1 with extended thinking): one error row per job."""
    _user_folder(
        tmp_path,
        monkeypatch,
        {
            "claude-extra-thinking": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings:\n  temperature: 0.7\n"
            "  extra: {thinking: {type: enabled, budget_tokens: 2048}}\n",
            "claude-extra-ok": "name: NAME\nprovider: anthropic\nmodel: claude-x\n"
            "settings:\n  extra: {thinking: {type: enabled, budget_tokens: 2048}}\n",
        },
    )
    catalog = load_catalog()
    unusable = catalog.unusable
    assert unusable["claude-extra-thinking"].reason == (
        "settings.temperature: extended thinking (extra.thinking) takes no temperature but 1; "
        "remove it"
    )
    assert "claude-extra-thinking.yaml:5: settings.temperature" in (
        unusable["claude-extra-thinking"].detail
    )
    assert "claude-extra-ok" in catalog.specs()
