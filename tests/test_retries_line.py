"""A server that rate-limits (429) or fails transiently (5xx) for a while: the runner waits and
sends the calls again, and the stage succeeds, but the summary said nothing of it, so a
throttled or failing endpoint looked like a slow model. The summary now says how many calls
waited to be sent again, and why."""

from __future__ import annotations

import re
from pathlib import Path

from test_runner_leases import model_dir
from test_runner_support import TEST_KEY, TEST_KEY_ENV
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.testing.exchange import ChatCall, ResponderError
from poemetric.testing.servers import Fault, OpenAIServer


def generate(
    tmp_path: Path, server: OpenAIServer, *, progress: bool = False, exit_code: int = 0
) -> str:
    models = model_dir(tmp_path, "models", server.base_url, "remote-test")
    result = CliRunner().invoke(
        app,
        ["generate", "--run", str(tmp_path / "run"), "--dataset", "demo", "--models",
         "remote-test", "--limit", "2", *([] if progress else ["--no-progress"])],
        env={TEST_KEY_ENV: TEST_KEY, "POEMETRIC_GENERATORS_DIR": str(models), "COLUMNS": "300",
             "POEMETRIC_PROGRESS_EVERY": "0.1"},
    )  # fmt: skip
    assert result.exit_code == exit_code, result.output
    return " ".join(result.output.split())


def test_the_summary_says_how_many_calls_were_sent_again_and_why(tmp_path: Path) -> None:
    faults = [Fault.rate_limited(0.01)] * 3 + [Fault.server_error(500), Fault.server_error(503)]
    with OpenAIServer(api_key=TEST_KEY, faults=faults) as server:
        output = generate(tmp_path, server)
        assert len(server.successful_generations) == 2
    assert (
        "remote-test: 3 calls were rate-limited (HTTP 429) and 2 calls failed transiently "
        "(HTTP 5xx, a timeout or a dropped connection); each waited to be sent again"
    ) in output


def test_the_summary_does_not_say_a_retry_was_sent_when_the_model_stopped_first(
    tmp_path: Path,
) -> None:
    """A call rate-limited (429) waits to be sent again; the model's other call is answered
    401 meanwhile, which stops the model: the waiting call is never sent again (left for the
    next run), and the summary said "each was sent again after a wait"."""

    def key_refused(call: ChatCall) -> str:
        raise ResponderError(401, "Incorrect API key provided")

    with OpenAIServer(key_refused, api_key=TEST_KEY, faults=[Fault.rate_limited(1.0)]) as server:
        output = generate(tmp_path, server, exit_code=1)
        assert [r.status for r in server.generation_requests] == [429, 401]  # no retry sent
    assert "remote-test: 1 call was rate-limited (HTTP 429); each waited to be sent again" in (
        output
    )
    assert "sent again after" not in output


def test_a_run_without_retries_says_nothing_of_them(tmp_path: Path) -> None:
    with OpenAIServer(api_key=TEST_KEY) as server:
        output = generate(tmp_path, server)
    assert "sent again" not in output and "rate-limited" not in output


def test_the_progress_shows_the_retries_while_the_server_throttles(tmp_path: Path) -> None:
    """The bar (and a log's progress lines) stood at 0/2 with an ETA while every call waited
    out 429s: nothing said the server was throttling the model."""
    faults = [Fault.rate_limited(0.4)] * 6
    with OpenAIServer(api_key=TEST_KEY, faults=faults) as server:
        output = generate(tmp_path, server, progress=True)
    # a progress line of the log while no job is done yet: "[12:00:01] remote-test: 0/2 (0%),
    # 0:00:01 elapsed, 0 tok, $0  retries: 4 after 429s"
    assert re.search(r"remote-test: 0/2 \(0%\), [^\[]*retries: \d+ after 429s", output), output


def test_the_progress_says_how_many_jobs_the_budget_skipped(tmp_path: Path) -> None:
    """Jobs skipped at --max-cost move the bar on (they are through for this run): the bar read
    `2/2` as if every poem was written, and nothing on it or in a log's lines said otherwise."""
    models = tmp_path / "models"
    models.mkdir()
    (models / "priced.yaml").write_text(
        "name: priced\nprovider: openai-compatible\nmodel: test-model\nbase_url: {url}\n"
        f"api_key_env: {TEST_KEY_ENV}\npricing: {{input_per_mtok: 10, output_per_mtok: 40}}\n"
    )
    with OpenAIServer(api_key=TEST_KEY) as server:
        text = (models / "priced.yaml").read_text().replace("{url}", server.base_url)
        (models / "priced.yaml").write_text(text)
        result = CliRunner().invoke(
            app,
            ["generate", "--run", str(tmp_path / "run"), "--dataset", "demo", "--models",
             "priced", "--limit", "2", "--max-cost", "0.0001"],
            env={TEST_KEY_ENV: TEST_KEY, "POEMETRIC_GENERATORS_DIR": str(models),
                 "COLUMNS": "300"},
        )  # fmt: skip
        assert not server.generation_requests  # an estimate of 800 tokens is $0.032
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())
    assert re.search(r"priced \S+ 2/2 .* budget-skipped: 2", output), output
