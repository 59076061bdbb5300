"""The shipped `paper30` group against the paper's list of models (Table 3, Appendix E).

The table below is our own record of the 30 models: the label the paper gives each one (its
figures and tables use these labels, and so do ours, through `display_name`), the provider and
id the roster calls it with, and Table 3's open-weights and thinking columns.
"""

from __future__ import annotations

import pytest

from poemetric.roster import load_groups, load_roster

#: label in the paper -> (name, provider, model id, open weights, thinking)
PAPER_MODELS: dict[str, tuple[str, str, str, bool, bool]] = {
    "DeepSeek-V3": ("deepseek-v3", "openai-compatible", "deepseek-chat", True, False),
    "DeepSeek-R1": ("deepseek-r1", "openai-compatible", "deepseek-reasoner", True, True),
    "DeepSeek-R1-Distill-Llama-8B": (
        "deepseek-r1-distill-llama-8b", "vllm", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
        True, False,
    ),
    "DeepSeek-R1-Distill-Llama-70B": (
        "deepseek-r1-distill-llama-70b", "vllm", "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
        True, False,
    ),
    "DeepSeek-R1-Distill-Qwen-1.5B": (
        "deepseek-r1-distill-qwen-1.5b", "vllm", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
        True, False,
    ),
    "DeepSeek-R1-Distill-Qwen-7B": (
        "deepseek-r1-distill-qwen-7b", "vllm", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        True, False,
    ),
    "DeepSeek-R1-Distill-Qwen-14B": (
        "deepseek-r1-distill-qwen-14b", "vllm", "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
        True, False,
    ),
    "DeepSeek-R1-Distill-Qwen-32B": (
        "deepseek-r1-distill-qwen-32b", "vllm", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
        True, False,
    ),
    "Gemma-3-27B": ("gemma-3-27b-it", "vllm", "google/gemma-3-27b-it", True, False),
    "Llama-3.1-8B-Instruct": (
        "llama-3.1-8b-instruct", "vllm", "meta-llama/Llama-3.1-8B-Instruct", True, False,
    ),
    "Llama-3.3-70B-Instruct": (
        "llama-3.3-70b-instruct", "vllm", "meta-llama/Llama-3.3-70B-Instruct", True, False,
    ),
    "Mistral-Large-2411-123B": (
        "mistral-large-instruct-2411", "vllm", "mistralai/Mistral-Large-Instruct-2411",
        True, False,
    ),
    **{
        f"Qwen2.5-{size}-Instruct": (
            f"qwen2.5-{size.lower()}-instruct", "vllm", f"Qwen/Qwen2.5-{size}-Instruct",
            True, False,
        )
        for size in ("0.5B", "1.5B", "3B", "7B", "14B", "32B", "72B")
    },
    "QwQ-32B": ("qwq-32b", "vllm", "Qwen/QwQ-32B", True, True),
    "Claude-3.5-Sonnet": (
        "claude-3.5-sonnet", "anthropic", "claude-3-5-sonnet-20241022", False, False,
    ),
    "Claude-3.7-Sonnet": (
        "claude-3.7-sonnet", "anthropic", "claude-3-7-sonnet-20250219", False, True,
    ),
    "Gemini-2.0-Pro": ("gemini-2.0-pro", "google", "gemini-2.0-pro-exp-02-05", False, False),
    "Gemini-2.5-Pro": ("gemini-2.5-pro", "google", "gemini-2.5-pro", False, True),
    "GPT-3.5-Turbo": ("gpt-3.5-turbo", "openai", "gpt-3.5-turbo-0125", False, False),
    "GPT-4": ("gpt-4", "openai", "gpt-4-0613", False, False),
    "GPT-4o": ("gpt-4o", "openai", "gpt-4o-2024-08-06", False, False),
    "GPT-4.5": ("gpt-4.5", "openai", "gpt-4.5-preview-2025-02-27", False, False),
    "o1": ("o1", "openai", "o1-2024-12-17", False, True),
    "o3-mini": ("o3-mini", "openai", "o3-mini-2025-01-31", False, True),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _no_user_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POEMETRIC_GENERATORS_DIR", raising=False)
    monkeypatch.delenv("POEMETRIC_HOME", raising=False)


def test_paper30_is_the_papers_thirty_models() -> None:
    assert len(PAPER_MODELS) == 30
    names = {entry[0] for entry in PAPER_MODELS.values()}
    assert set(load_groups()["paper30"]) == names


@pytest.mark.parametrize("label", sorted(PAPER_MODELS))
def test_each_paper_model_is_declared_as_the_paper_names_it(label: str) -> None:
    name, provider, model, open_weights, thinking = PAPER_MODELS[label]
    spec = load_roster()[name]
    assert spec.display_name == label  # the label figures and tables show
    assert (spec.provider, spec.model) == (provider, model)
    assert (spec.open_weights, spec.thinking) == (open_weights, thinking)
