"""A command none of whose models can start (API key unset) is refused before it writes.

`generate --models gpt-4o --limit 5` without OPENAI_API_KEY, on a run made with `--limit 3`,
ran nothing but had already prepared the two new poems' prompts and recorded gpt-4o's
selection (`--limit 5`) and model entry; `judge` recorded the keyless judge's selection and
model entry the same way.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.paths import resource_path
from poemetric.store.db import DB_NAME

#: Its line 3 is `provider: openai`, which chose the variable the key is read from.
GPT_4O = resource_path("generators", "gpt-4o.yaml")
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*KEY_VARIABLES, "POEMETRIC_JUDGE"):
        monkeypatch.delenv(name, raising=False)


def stored_selection(run: Path) -> dict[str, Any]:
    """What the run records of its stages' models and poems: the `selections` and `models`
    meta entries, and the prompts and rows it holds."""
    with sqlite3.connect(run / DB_NAME) as conn:
        meta = {
            key: json.loads(value) for key, value in conn.execute("SELECT key, value FROM meta")
        }
        counts = {
            table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
            for table in ("prompts", "generations", "judgments")
        }
    return {"selections": meta.get("selections"), "models": meta.get("models"), **counts}


def poemetric(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "400"})


def markov_run(run: Path, limit: str = "3") -> None:
    made = poemetric("generate", "--no-progress", "--run", str(run), "--models", "markov",
                     "--limit", limit)  # fmt: skip
    assert made.exit_code == 0, made.output


def test_generate_with_no_model_that_can_start_leaves_the_run_as_it_was(tmp_path: Path) -> None:
    run = tmp_path / "run"
    markov_run(run)
    before = stored_selection(run)
    stored = (run / DB_NAME).read_bytes()
    refused = poemetric("generate", "--no-progress", "--run", str(run), "--models", "gpt-4o",
                        "--limit", "5")  # fmt: skip
    assert refused.exit_code == 1, refused.output
    assert (
        f"error: gpt-4o cannot run: model 'gpt-4o' (provider 'openai', {GPT_4O}:3) needs an API "
        "key: set the environment variable OPENAI_API_KEY; nothing was run, the run is left as it "
        "was"
    ) in " ".join(refused.output.split())
    assert stored_selection(run) == before
    assert (run / DB_NAME).read_bytes() == stored
    # a new run is not made at all
    fresh = tmp_path / "fresh"
    assert poemetric("generate", "--run", str(fresh), "--models", "gpt-4o").exit_code == 1
    assert not fresh.exists()


def test_models_with_one_cause_share_the_refusal(tmp_path: Path) -> None:
    refused = poemetric("generate", "--run", str(tmp_path / "r"), "--models",
                        "gpt-4o,o1,claude-3.5-sonnet")  # fmt: skip
    assert refused.exit_code == 1
    text = " ".join(refused.output.split())
    assert "error: gpt-4o, o1 cannot run: each model (provider 'openai') needs an API key" in text
    claude = resource_path("generators", "claude-3.5-sonnet.yaml")
    assert (
        f"claude-3.5-sonnet cannot run: model 'claude-3.5-sonnet' (provider 'anthropic', {claude}:3)"
        in text
    )


def test_a_model_that_cannot_start_beside_one_that_can_is_reported_by_the_runner(
    tmp_path: Path,
) -> None:
    """Not a refusal: the other model runs, the keyless one is reported with its jobs, and
    recorded as started (`merge` names a model started but never stored)."""
    run = tmp_path / "run"
    markov_run(run)
    result = poemetric("generate", "--no-progress", "--run", str(run), "--models",
                       "markov,gpt-4o", "--limit", "5")  # fmt: skip
    assert result.exit_code == 1, result.output
    assert "gpt-4o cannot run (5 jobs left pending)" in " ".join(result.output.split())
    assert stored_selection(run)["prompts"] == 5


@pytest.mark.parametrize(
    "command", [("judge",), ("judge", "recognise"), ("ghostwriting", "style-match")]
)
def test_a_judge_that_cannot_start_records_nothing(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    run = tmp_path / "run"
    markov_run(run)
    before = stored_selection(run)
    stored = (run / DB_NAME).read_bytes()
    panel = () if command[-1] == "style-match" else ("gpt-4o,claude-3.7-sonnet",)  # one judge
    judges = ("gemini-2.5-pro", *panel)
    for judge in judges:
        refused = poemetric(*command, "--no-progress", "--run", str(run), "--judge", judge,
                            "--limit", "2")  # fmt: skip
        assert refused.exit_code == 1, refused.output
        assert "nothing was run, the run is left as it was" in " ".join(refused.output.split())
        assert stored_selection(run) == before
        assert (run / DB_NAME).read_bytes() == stored
    # A plan prices a judge before its key is set.
    plan = poemetric(*command, "--no-progress", "--run", str(run), "--judge", "gemini-2.5-pro",
                     "--limit", "2", "--dry-run")  # fmt: skip
    assert plan.exit_code == 0 and "gemini-2.5-pro cannot run (" in " ".join(plan.output.split())


def test_a_missing_key_names_the_line_of_the_file_that_asked_for_it(
    tmp_path: Path, user_model: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal named the variable alone: with several copies of a model file, or a
    misspelt `api_key_env:`, nothing said which file to open. It names the file and the line of
    `api_key_env:`; a lookalike variable that is set is named, its value never."""
    secret = "sk-lookalike-value-never-shown"
    monkeypatch.setenv("MY_PROXY_KEY", secret)
    text = "name: mine\nprovider: openai\nmodel: gpt-4o\n\napi_key_env: MY_PROXI_KEY\n"
    path = user_model("generators", "mine", text)
    refused = poemetric("generate", "--run", str(tmp_path / "r"), "--models", "mine")
    assert refused.exit_code == 1, refused.output
    assert (
        f"model 'mine' (provider 'openai', {path}:5) needs an API key: set the environment "
        "variable MY_PROXI_KEY; MY_PROXY_KEY is set"
    ) in " ".join(refused.output.split())
    assert secret not in refused.output
