"""A server that rate-limits (429) or fails transiently (5xx) for a while: the runner waits and
sends the calls again, and the stage succeeds, but the summary said nothing of it, so a
throttled or failing endpoint looked like a slow model. The summary now says how many calls
were sent again, and why."""

from __future__ import annotations

from pathlib import Path

from test_runner_leases import model_dir
from test_runner_support import TEST_KEY, TEST_KEY_ENV
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.testing.servers import Fault, OpenAIServer


def generate(tmp_path: Path, server: OpenAIServer) -> str:
    models = model_dir(tmp_path, "models", server.base_url, "remote-test")
    result = CliRunner().invoke(
        app,
        ["generate", "--run", str(tmp_path / "run"), "--dataset", "demo", "--models",
         "remote-test", "--limit", "2", "--no-progress"],
        env={TEST_KEY_ENV: TEST_KEY, "POEMETRIC_GENERATORS_DIR": str(models), "COLUMNS": "300"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_the_summary_says_how_many_calls_were_sent_again_and_why(tmp_path: Path) -> None:
    faults = [Fault.rate_limited(0.01)] * 3 + [Fault.server_error(500), Fault.server_error(503)]
    with OpenAIServer(api_key=TEST_KEY, faults=faults) as server:
        output = generate(tmp_path, server)
        assert len(server.successful_generations) == 2
    assert (
        "remote-test: 3 calls were rate-limited (HTTP 429) and 2 calls failed transiently "
        "(HTTP 5xx, a timeout or a dropped connection); each was sent again after a wait"
    ) in output


def test_a_run_without_retries_says_nothing_of_them(tmp_path: Path) -> None:
    with OpenAIServer(api_key=TEST_KEY) as server:
        output = generate(tmp_path, server)
    assert "sent again" not in output and "rate-limited" not in output
