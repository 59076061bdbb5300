"""`judge --max-cost` whose budget fits the first answers but not their re-asks: the summary
counted those jobs under `budget-skipped` (as if nothing had been paid for them) with `errors` 0,
and only a line under the table said that their answers were stored, unusable, awaiting a re-ask.
They now have a column of their own, `pending re-ask`, as `analyze` and the report count them
(`poemetric.judge.pending`); `budget-skipped` counts the jobs never called. The real CLI, the
openai SDK and the local OpenAI server."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_judge_reask_stop import judge_dir, judged_run
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.judge.pending import judgment_errors
from poemetric.store import RunStore
from poemetric.testing.servers import ChatCall, OpenAIServer


def refused_then_valid(call: ChatCall) -> str:
    if len(call.messages) > 1:
        return VALID_JUDGE_ANSWER
    return "I'm sorry, I cannot evaluate this poem."


def summary_row(output: str, model: str) -> dict[str, str]:
    """The summary table's cells of `model`, by column header (one-line headers: wide)."""
    lines = output.splitlines()
    header = next(line for line in lines if line.startswith("┃ model"))
    row = next(line for line in lines if line.startswith(f"│ {model} "))
    names = [cell.strip() for cell in header.strip("┃").split("┃")]
    return dict(zip(names, (cell.strip() for cell in row.strip("│").split("│")), strict=True))


def test_reasks_the_budget_left_unsent_are_pending_not_budget_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = judged_run(tmp_path / "run")
    with OpenAIServer(refused_then_valid, api_key=TEST_KEY) as server:
        monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(judge_dir(tmp_path, server.base_url)))
        args = ["judge", "--run", str(run), "--judge", "remote-test", "--limit", "1"]
        # $0.01 pays for both first answers (about $0.0014 each), not for their re-asks too
        result = CliRunner().invoke(app, [*args, "--max-cost", "0.01"], env={"COLUMNS": "220"})
        assert result.exit_code == 1, result.output
        assert len(server.generation_requests) == 2  # both first turns paid, no re-ask sent
        cells = summary_row(result.output, "remote-test")
        assert cells["budget-skipped"] == "0", result.output  # each job was called and paid
        assert (cells["ok"], cells["errors"], cells["pending re-ask"]) == ("0", "0", "2")
        assert cells["cost $"] != "0.0000"
        cut = "Stopped at the --max-cost budget (jobs skipped per model: remote-test 2 re-asks)"
        assert cut in " ".join(result.output.split())
        with RunStore(run) as store:  # as analyze and the report count them: pending a re-ask
            errors = judgment_errors(store, "remote-test")
        assert (len(errors.pending), len(errors.failed)) == (2, 0)

        finished = CliRunner().invoke(app, args, env={"COLUMNS": "220"})
        assert finished.exit_code == 0, finished.output
        cells = summary_row(finished.output, "remote-test")
        assert (cells["ok"], cells["pending re-ask"], cells["budget-skipped"]) == ("2", "0", "0")
        assert len(server.generation_requests) == 4  # the re-asks only: first answers cached


def test_the_bar_counts_the_first_answers_paid_when_the_budget_leaves_their_re_asks_unsent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer that needs a re-ask added nothing to its model's progress bar (only the job's
    last answer did): with --max-cost leaving both re-asks unsent, the bar read `0 tok $0.0000`
    beside a summary that cost $0.0028. The bar counts every answer paid."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = judged_run(tmp_path / "run")
    with OpenAIServer(refused_then_valid, api_key=TEST_KEY) as server:
        monkeypatch.setenv("POEMETRIC_JUDGES_DIR", str(judge_dir(tmp_path, server.base_url)))
        args = ["judge", "--run", str(run), "--judge", "remote-test", "--limit", "1"]
        result = CliRunner().invoke(app, [*args, "--max-cost", "0.01"], env={"COLUMNS": "220"})
    assert result.exit_code == 1, result.output
    bar = next(line for line in result.output.splitlines() if " tok " in line).split()
    cells = summary_row(result.output, "remote-test")
    tokens_in, tokens_out = (int(n.replace(",", "")) for n in cells["tokens in/out"].split("/"))
    assert int(bar[bar.index("tok") - 1].replace(",", "")) == tokens_in + tokens_out, bar
    assert bar[bar.index("tok") + 1] == f"${cells['cost $']}" != "$0.0000", bar
    assert bar[-2:] == ["budget-skipped:", "2"], bar  # both re-asks, unsent, said on the bar
