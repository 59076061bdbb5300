"""`analyze` of a run whose `judge` was stopped (SIGTERM) between an unusable answer and its
re-ask: that judgment is stored as an error row until the next `judge` sends the re-ask, and
`analyze` counted it as a parse failure (the `judges` table's parse failures and rate, the note
"judgment(s) failed to parse"). It is now pending: in no failure count or rate, and the notes and
the table's caption say so. Real processes, a real signal, the local OpenAI server."""

from __future__ import annotations

import re
import shlex
import threading
from pathlib import Path

import pandas as pd
import pytest
from test_cluster_signals import stopped
from test_judge_reask_stop import judge_dir, judged_run, start, stop_with_first_turns_held
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import analyze_cmd, app
from poemetric.testing.servers import ChatCall, OpenAIServer

REFUSAL = "I'm sorry, I cannot evaluate this poem."


class OneOfTwoRefused:
    """First turns: held until `release` is set, then one valid answer and one refusal
    (unusable); re-asks: a valid answer at once."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.lock = threading.Lock()
        self.answered = 0

    def __call__(self, call: ChatCall) -> str:
        if len(call.messages) > 1:
            return VALID_JUDGE_ANSWER
        self.release.wait(timeout=60)
        with self.lock:
            self.answered += 1
            return VALID_JUDGE_ANSWER if self.answered == 1 else REFUSAL


def analyzed(run: Path) -> tuple[dict[str, object], str, str]:
    """`poemetric analyze`: the `judges` row of remote-test, the terminal output (whitespace
    folded) and the judges table's Markdown."""
    result = CliRunner().invoke(app, ["analyze", "--run", str(run)])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(run / "analysis" / "judges.csv").set_index("judge")
    markdown = (run / "analysis" / "judges.md").read_text()
    return dict(table.loc["remote-test"]), " ".join(result.output.split()), markdown


def reported(run: Path) -> str:
    """`poemetric report`: the page's text, tags dropped and whitespace folded."""
    result = CliRunner().invoke(app, ["report", "--run", str(run)])
    assert result.exit_code == 0, result.output
    page = (run / "report" / "index.html").read_text()
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def test_a_judgment_pending_its_reask_is_no_parse_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    monkeypatch.setattr(analyze_cmd.console, "width", 200)
    run = judged_run(tmp_path / "run")
    responder = OneOfTwoRefused()
    with OpenAIServer(responder, api_key=TEST_KEY) as server:
        env = {"POEMETRIC_JUDGES_DIR": str(judge_dir(tmp_path, server.base_url))}
        # one answer ok, one refusal whose re-ask is never sent
        _, output = stop_with_first_turns_held(tmp_path, run, env, server, responder.release)
        assert "remote-test: 1 unusable answer not re-asked yet" in output, output

        before, said, markdown = analyzed(run)
        assert (before["judgments"], before["ok"], before["pending_reasks"]) == (2, 1, 1)
        assert (before["parse_failures"], before["call_errors"]) == (0, 0)
        assert before["parse_failure_rate"] == 0  # of the 1 answer received, not 1 in 2
        assert before["first_turn_refusals"] == before["final_refusals"] == 0
        assert "1 judgment is pending a re-ask" in said
        command = f"poemetric judge --run {shlex.quote(str(run))} --judge remote-test"
        assert f"running `{command}` again finishes them" in said
        assert "failed to parse" not in said
        assert "| Pending re-asks |" in markdown and "Pending re-asks: judgments whose" in markdown
        page = reported(run)
        assert "Judgments failed 0 Judgments pending a re-ask 1" in page
        # The judges table: judged 1, parse failures 0 (0%) and 1 pending a re-ask, call errors 0
        assert "remote-test 1 0 (0%); 1 pending a re-ask 0" in page
        assert "unparsable answer: " not in page  # no first error: the answer awaits a re-ask
        assert '"x":"pending"' in page  # its card says so, not "No judgment (failed)"

        resume = start(tmp_path, run, env, "resumed.log")
        resumed_output = stopped(resume, tmp_path / "resumed.log")
        assert resume.returncode == 0, resumed_output

    after, said, markdown = analyzed(run)
    assert (after["judgments"], after["ok"], after["parse_failures"]) == (2, 2, 0)
    assert (after["reasked"], after["reasked_ok"], after["first_turn_refusals"]) == (1, 1, 1)
    assert "pending_reasks" not in after and "Pending re-asks" not in markdown
    assert "pending a re-ask" not in said and "failed to parse" not in said
    page = reported(run)
    assert "Judgments failed 0 Not judged" in page and "pending a re-ask" not in page
