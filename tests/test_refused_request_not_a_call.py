"""A request the adapter refuses before sending it (`refuse_settings`: a setting its API does
not have, in a `ModelSpec` built through the Python API, which no model-file check sees) is
stored as an error, but it is no call: the summary counted one call per refused job, as if
each had been sent (and paid for)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.providers.base import GenerationSettings
from poemetric.testing.servers import OpenAIServer


def test_a_request_refused_before_sending_is_an_error_not_a_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = prepared_store(tmp_path, poems=3)
    with OpenAIServer(lambda call: "A poem", api_key=TEST_KEY) as server:
        refused = GenerationSettings(reasoning_budget_tokens=100)  # no such OpenAI setting
        spec = openai_spec(server.base_url).model_copy(update={"settings": refused})
        report = run_generation(store, [spec], options=FAST)
        assert server.generation_requests == []  # nothing was sent
    model = report.models[0]
    assert model.errors == 3 and model.ok == 0
    assert "reasoning_budget_tokens: not an OpenAI chat-completions setting" in str(
        model.first_error
    )
    assert model.called == 0
    assert ", 0 calls, $0.0000" in report.summary_line(), report.summary_line()
    assert store.count("generations", "author = 'remote' AND status = 'error'") == 3
