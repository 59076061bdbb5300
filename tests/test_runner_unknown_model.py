"""A model file whose `model:` the provider does not know (a typo: `gpt-4oo`) sent every job and
stored one 'HTTP 404: The model ... does not exist' error row per job (6,090 requests at the
paper's scale, all retried by the next run); now the first 404 stops the model with one line
that says what to check, and its jobs wait for a run with the right id. The real SDKs against
each provider's local server, which answers an unknown model 404 as the APIs do."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_batch_faults import printed, spec_for
from test_runner_support import FAST, TEST_KEY, TEST_KEY_ENV, generation_rows, prepared_store

from poemetric.generation.stage import run_generation
from poemetric.testing.exchange import ChatCall, ResponderError
from poemetric.testing.servers import AnthropicServer, GeminiServer, OpenAIServer

KNOWN = {"test-model", "claude-test", "gemini-test"}


def known_models_only(call: ChatCall) -> str:
    if call.model.removeprefix("models/") not in KNOWN:
        raise ResponderError(404, f"The model `{call.model}` does not exist")
    return f"Echo: {call.prompt}"


@pytest.mark.parametrize("server_type", [OpenAIServer, AnthropicServer, GeminiServer])
def test_an_unknown_model_id_stops_the_model_at_its_first_404(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server_type: type[OpenAIServer]
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = prepared_store(tmp_path, poems=4)
    with server_type(known_models_only) as server:
        # a generous timeout: on a loaded machine an SDK's first request can take over 5 s, and
        # its retry would be a second call where the test counts one
        right = spec_for(server, "typo", max_concurrency=1, timeout_s=60)
        wrong = right.model_copy(update={"model": right.model + "-typo"})
        report = run_generation(store, [wrong], options=FAST)
        assert len(server.generation_requests) == 1  # nothing sent after the first 404
        (model,) = report.models
        assert (model.errors, model.left_pending) == (0, 4) and report.incomplete
        assert generation_rows(store, "typo") == []  # pending, not error rows
        text = printed(report)
        assert f"typo: the provider knows no model '{wrong.model}'" in text
        assert "HTTP 404" in text and "check `model:`" in text
        assert "4 jobs left for the next run" in text
        (call,) = store.query("SELECT outcome, http_status FROM calls")
        assert (call["outcome"], call["http_status"]) == ("error", 404)

        fixed = run_generation(store, [right], options=FAST)
        assert fixed.models[0].ok == 4 and not fixed.incomplete
        assert len(server.successful_generations) == 4
