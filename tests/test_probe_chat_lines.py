"""`probe build --tasks last_line --generator API-MODEL`: the new last lines asked of a chat model
(the real SDKs against the local servers), seeds only where the provider takes them, and failed
calls said, not swallowed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_runner_support import TEST_KEY, TEST_KEY_ENV
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.testing.http_base import LocalServer
from poemetric.testing.servers import AnthropicServer, ChatCall, Fault, OpenAIServer

PROVIDERS = {"anthropic": "anthropic", "openai": "openai"}


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


@pytest.fixture
def model_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "generators"
    folder.mkdir()
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    return folder


def rhyming(call: ChatCall) -> str:
    """A last line ending on the partner word the prompt names (an identical rhyme)."""
    partner = re.search(r"rhyme with \u201c(.+?)\u201d", call.prompt)
    return f"And that was the end of the {partner.group(1) if partner else 'x'}."


def model_file(folder: Path, server: LocalServer, *extra: str) -> None:
    lines = [
        "name: liner",
        f"provider: {PROVIDERS[server.api]}",
        "model: liner-1",
        f"base_url: {server.base_url}",
        f"api_key_env: {TEST_KEY_ENV}",
        *extra,
    ]
    (folder / "liner.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def build(pairs: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        ["probe", "build", "lear-limericks", "-o", str(pairs), "--tasks", "last_line",
         "--limit", "2", "--generator", "liner", "--attempts", "2"],
        env={"COLUMNS": "300"},
    )  # fmt: skip
    return result.exit_code, result.output


def test_an_anthropic_generator_is_sent_no_seed(tmp_path: Path, model_folder: Path) -> None:
    """Every request carried the poem's seed, which the Anthropic adapter refuses: each call
    failed, the errors were dropped, and the command printed "0 pairs" with exit status 0."""
    pairs = tmp_path / "pairs.jsonl"
    with AnthropicServer(rhyming, api_key=TEST_KEY) as server:
        model_file(model_folder, server)
        code, output = build(pairs)
        bodies = [r.body for r in server.generation_requests]
    assert code == 0, output
    assert len(bodies) == 4 and not any("seed" in body for body in bodies)
    written = [json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()]
    assert len(written) == 2 and {p["task"] for p in written} == {"last_line_chat"}


def test_a_provider_that_takes_a_seed_gets_each_poems_seed(
    tmp_path: Path, model_folder: Path
) -> None:
    with OpenAIServer(rhyming, api_key=TEST_KEY) as server:
        model_file(model_folder, server)
        code, output = build(tmp_path / "pairs.jsonl")
        seeds = [r.body.get("seed") for r in server.generation_requests]
    assert code == 0, output
    # Two poems, two samples each: sample 1 takes its poem's seed + 1.
    assert None not in seeds and seeds[1] == seeds[0] + 1 and seeds[3] == seeds[2] + 1


def test_every_call_failing_is_an_error_with_the_first_reason(
    tmp_path: Path, model_folder: Path
) -> None:
    """A seed in the model file (which Anthropic has no use for) fails every call: "0 pairs"."""
    pairs = tmp_path / "pairs.jsonl"
    with AnthropicServer(rhyming, api_key=TEST_KEY) as server:
        model_file(model_folder, server, "settings:", "  seed: 3")
        code, output = build(pairs)
    assert code == 1 and not pairs.exists()
    assert (
        "error: last_line: all 4 calls to liner failed, no line was written; first error: "
        "anthropic: the Messages API has no seed" in " ".join(output.split())
    )


def test_some_calls_failing_are_counted_under_the_pairs(tmp_path: Path, model_folder: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    with AnthropicServer(rhyming, api_key=TEST_KEY, faults=[Fault.server_error(503)]) as server:
        model_file(model_folder, server)
        code, output = build(pairs)
    assert code == 1 and pairs.exists()  # the pairs made are kept
    assert (
        "last_line: 1 of 4 calls to liner failed, their poems got fewer candidate lines; first "
        "error: anthropic: HTTP 503: " in output
    )
    assert "injected server error 503" in output
