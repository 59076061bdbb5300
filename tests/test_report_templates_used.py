"""The report's "Prompt templates" table counted only the generation prompts made with each
template ("Prompts"), so `judge.md` and `recognise.md` read "0" in a run judged and probed with
them. It says what used each one: the stored rows that name it, by kind. The real CLI, the openai
SDK and the local OpenAI server."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.testing.servers import ChatCall, OpenAIServer


def answer(call: ChatCall) -> str:
    if call.prompt.startswith("Do you recognise the following poem?"):  # recognise.md
        return '{"title": null, "author": null}'
    return VALID_JUDGE_ANSWER


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, [*args, "--no-progress"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_each_template_counts_the_rows_made_with_it(
    tmp_path: Path, user_model: Callable[[str, str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    run = str(tmp_path / "run")
    invoke("generate", "--run", run, "--dataset", "demo", "--models", "markov", "--limit", "2")
    with OpenAIServer(answer, api_key=TEST_KEY) as server:
        user_model(
            "judges",
            "j",
            f"name: j\nprovider: openai-compatible\nmodel: m\nbase_url: {server.base_url}\n"
            f"api_key_env: {TEST_KEY_ENV}\n",
        )
        invoke("judge", "--run", run, "--judge", "j")
        invoke("judge", "recognise", "--run", run, "--judge", "j")
    page = tmp_path / "report.html"
    result = CliRunner().invoke(app, ["report", "--run", run, "--out", str(page)])
    assert result.exit_code == 0, result.output
    text = page.read_text(encoding="utf-8")
    table = text[text.index("<h3>Prompt templates</h3>") :]
    table = table[: table.index("</table>")]
    assert "<th>Used by (stored rows)</th>" in table
    cells = re.findall(
        r"<tr><td>([^<]+)</td><td><code>[0-9a-f]{64}</code></td><td>([^<]*)</td>", table
    )
    assert {name: html.unescape(used) for name, used in cells} == {
        "generation.jinja": "2 prompts, 4 generations",  # 2 human poems, 2 markov ones
        "judge.md": "4 judgments",
        "recognise.md": "2 recognitions",  # the human poems
    }
