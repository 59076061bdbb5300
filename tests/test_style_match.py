"""Style matching through the runner against the local OpenAI-protocol server: balanced trials,
a blind prompt, strict parsing, cached and resumable answers, accuracy with Wilson CIs."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any, cast

import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    IsolatedProvider,
    openai_spec,
    prepared_store,
    scripted_spec,
)
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.ghostwriting.style_scores import load_style_matches, style_accuracy, style_positions
from poemetric.providers.registry import register_provider
from poemetric.store import RunStore
from poemetric.style.answer import StyleAnswerError, parse_style_answer
from poemetric.style.stage import run_style_matching, style_trials
from poemetric.testing.servers import ChatCall, Fault, OpenAIServer

SECTION = re.compile(r"^# (Reference poem|Candidate [ABCD])\n\n(.*?)(?=\n\n# |\Z)", re.S | re.M)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    """The 16 demo poems with their human rows: 6 poets, 3 of whom have more than one poem."""
    return prepared_store(tmp_path, poems=16)


class Oracle:
    """A judge that knows every demo poem's poet and answers with the right letter, except for
    a scripted first few answers."""

    def __init__(self, store: RunStore, script: list[str] | None = None) -> None:
        rows = store.query("SELECT author, content FROM poems")
        self.poet = {r["content"].strip(): r["author"] for r in rows}
        self.script = list(script or [])
        self.lock = threading.Lock()

    def __call__(self, call: ChatCall) -> str:
        with self.lock:
            if self.script:
                return self.script.pop(0)
        sections = dict(SECTION.findall(call.prompt))
        target = self.poet[sections.pop("Reference poem").strip()]
        return next(
            name[-1] for name, text in sections.items() if self.poet[text.strip()] == target
        )


def test_trials_are_balanced_blind_to_the_original_and_reproducible(store: RunStore) -> None:
    plan = style_trials(store)
    poets = {r["poem_id"]: r["author"] for r in store.query("SELECT poem_id, author FROM poems")}
    origin = {r["generation_id"]: r["poem_id"] for r in store.query("SELECT * FROM generations")}
    # Milton, Coleridge and Wilde have one poem each: their poems cannot be matched.
    assert len(plan.skipped) == 3
    assert all("no other poem" in reason for reason in plan.skipped.values())
    by_poem: dict[str, list[str]] = {}
    for trial in plan.trials:
        letters = [c.poet for c in trial.candidates]
        right = "ABCD".index(trial.correct_choice)
        assert letters[right] == trial.target_poet == poets[origin[trial.generation_id]]
        assert trial.candidates[right].poem_id != origin[trial.generation_id]
        others = letters[:right] + letters[right + 1 :]
        assert len(set(others)) == 3 and trial.target_poet not in others
        by_poem.setdefault(trial.generation_id, []).append(trial.correct_choice)
    assert len(by_poem) == 13
    assert all(sorted(letters) == ["A", "B", "C", "D"] for letters in by_poem.values())
    assert style_trials(store) == plan
    assert style_trials(store, seed=1) != plan


def test_the_judge_sees_five_poems_and_nothing_about_their_authors(store: RunStore) -> None:
    with OpenAIServer(Oracle(store), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="oracle-judge")
        report = run_style_matching(store, judge, options=FAST)
        assert report.models[0].ok == 52 and report.errors == 0  # 13 poems x 4 trials
        prompts = [r.body["messages"][0]["content"] for r in server.generation_requests]
    poets = {r["author"] for r in store.query("SELECT author FROM poems")}
    assert all(len(SECTION.findall(p)) == 5 for p in prompts)
    assert not any(poet in prompt for poet in poets for prompt in prompts)
    # Outside the five poems every prompt is the same text: nothing else reaches the judge.
    frames = {SECTION.sub(lambda m: f"# {m.group(1)}\n\n", p) for p in prompts}
    assert len(frames) == 1
    table = style_accuracy(load_style_matches(store))
    (row,) = table.to_dict("records")
    assert (row["author"], row["trials"], row["correct"], row["accuracy"]) == ("human", 52, 52, 1.0)
    assert 0.93 < row["ci_low"] < 1.0 and row["ci_high"] == 1.0


def test_answers_are_cached_and_a_run_resumes_without_repeating_a_call(store: RunStore) -> None:
    faults = [None] * 10 + [Fault.server_error(500)] * 60
    with OpenAIServer(Oracle(store), api_key=TEST_KEY, faults=faults) as server:
        judge = openai_spec(server.base_url, name="j", max_retries=0, max_concurrency=1)
        first = run_style_matching(store, judge, options=FAST)
        assert first.models[0].ok == 10 and first.errors == 42
        server.faults.script.clear()  # type: ignore[attr-defined]
        second = run_style_matching(store, judge, options=FAST)
        assert second.models[0].already_done == 10 and second.models[0].ok == 42
        assert server.duplicate_successes() == []
        third = run_style_matching(store, judge, options=FAST)
        assert third.models[0].already_done == 52 and third.models[0].called == 0
    assert store.count("style_matches", "status = 'ok'") == 52


def test_unclear_answers_are_errors_reparsed_from_the_cache(store: RunStore) -> None:
    script = ["A or B", "I would say the second one.", "B, maybe C"]
    with OpenAIServer(Oracle(store, script), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="j", max_concurrency=1)
        options = dataclasses.replace(FAST, limit=1)
        report = run_style_matching(store, judge, options=options, authors=["human"])
        assert report.errors == 3 and len(server.generation_requests) == 4
        rows = store.query("SELECT * FROM style_matches WHERE status = 'error'")
        assert {r["response_text"] for r in rows} == set(script)
        assert all(r["error"].startswith("unparsable answer") for r in rows)
        again = run_style_matching(store, judge, options=options, authors=["human"])
        assert again.models[0].from_cache == 3 and len(server.generation_requests) == 4
        refresh = dataclasses.replace(options, refresh_failed_parses=True)
        final = run_style_matching(store, judge, options=refresh, authors=["human"])
        assert final.models[0].ok == 3 and len(server.generation_requests) == 7
    assert store.count("style_matches", "status = 'ok' AND correct = 1") == 4


def test_a_judge_that_always_says_b_scores_chance_and_shows_its_bias(store: RunStore) -> None:
    with OpenAIServer(lambda call: "**B**", api_key=TEST_KEY) as server:
        run_style_matching(store, openai_spec(server.base_url, name="lazy"), options=FAST)
    matches = load_style_matches(store)
    (row,) = style_accuracy(matches).to_dict("records")
    assert row["accuracy"] == 0.25 and row["ci_low"] < 0.25 < row["ci_high"]
    positions = style_positions(matches).set_index("choice")
    assert positions["chosen_share"].to_dict() == {"A": 0.0, "B": 1.0, "C": 0.0, "D": 0.0}
    assert set(positions["correct_share"]) == {0.25}


@pytest.mark.parametrize(
    ("answer", "letter"),
    [
        ("B", "B"),
        (" c\n", "C"),
        ("**D**", "D"),
        ("(A)", "A"),
        ('"B."', "B"),
        ("Candidate C", "C"),
        ("Answer: D", "D"),
        ("**Answer:** A", "A"),
        ("The imagery and the syntax point to one poet.\nAnswer: C", "C"),
        ("<think>A? no, B.</think>\nB", "B"),
        ('{"answer": "d"}', "D"),
    ],
)
def test_one_clear_choice_is_read(answer: str, letter: str) -> None:
    assert parse_style_answer(answer) == letter


@pytest.mark.parametrize(
    "answer",
    [
        "",
        "A or B",
        "B, maybe C",
        "E",
        "None of them",
        "The second one",
        "I think it is B because of the imagery",
        "Answer: A\nOn reflection,\nAnswer: B",
        '{"answer": "B", "confidence": 0.4}',
        '{"answer": "E"}',
    ],
)
def test_anything_else_is_rejected(answer: str) -> None:
    with pytest.raises(StyleAnswerError):
        parse_style_answer(answer)


def test_cli_runs_a_judge_from_the_roster(store: RunStore, monkeypatch: pytest.MonkeyPatch) -> None:
    with OpenAIServer(Oracle(store), api_key=TEST_KEY) as server:
        monkeypatch.setenv("POEMETRIC_LOCAL_BASE_URL", server.base_url)
        monkeypatch.setenv("POEMETRIC_LOCAL_MODEL", "test-model")
        monkeypatch.setenv("POEMETRIC_LOCAL_API_KEY", TEST_KEY)
        args = ["ghostwriting", "style-match", "--run", str(store.run_dir), "--judge",
                "local-openai", "--limit", "2", "--no-progress"]  # fmt: skip
        result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "Style matching by local-openai" in result.output
    # the command stores answers and prints; `analyze` writes the tables (its help said the
    # command wrote style_matching.csv, which no file backed)
    assert not (store.run_dir / "analysis" / "style_matching.csv").exists()
    pointer = f"tables: `poemetric analyze --run {store.run_dir}` writes style_matching.csv"
    assert pointer in result.output
    helped = CliRunner().invoke(app, ["ghostwriting", "style-match", "--help"], terminal_width=200)
    assert "goes to style_matching.csv" not in helped.output
    assert "analyze writes it to RUN/analysis/style_matching.csv" in " ".join(helped.output.split())
    analyzed = CliRunner().invoke(app, ["analyze", "--run", str(store.run_dir)])
    assert analyzed.exit_code == 0, analyzed.output
    assert (store.run_dir / "analysis" / "style_matching.csv").is_file()
    assert Counter(r["correct"] for r in store.query("SELECT correct FROM style_matches")) == {1: 8}
    unknown = CliRunner().invoke(app, [*args[:5], "nope"])
    assert unknown.exit_code == 2 and "unknown judge" in unknown.output


def test_shards_of_a_style_matching_run_merge_into_one(tmp_path: Path) -> None:
    from poemetric.runner.jobs import Shard
    from poemetric.store.merge import merge_runs

    shards = [prepared_store(tmp_path / f"shard{k}", poems=16) for k in range(2)]
    with OpenAIServer(Oracle(shards[0]), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="j")
        for k, shard in enumerate(shards):
            options = dataclasses.replace(FAST, shard=Shard(k, 2))
            run_style_matching(shard, judge, options=options)
            shard.close()
    report = merge_runs([tmp_path / "shard0", tmp_path / "shard1"], tmp_path / "merged")
    assert not report.conflicts
    with RunStore(tmp_path / "merged", create=False) as merged:
        assert merged.count("style_matches", "status = 'ok' AND correct = 1") == 52


def test_a_local_engine_judge_runs_in_its_own_process(store: RunStore) -> None:
    register_provider("isolated", IsolatedProvider)
    judge = scripted_spec(name="local-judge", provider="isolated", model="local")
    report = run_style_matching(store, judge, options=FAST)
    rows = store.query("SELECT status, error, raw_response FROM style_matches")
    assert report.models[0].mode == "offline-chunks" and report.models[0].errors == len(rows) > 0
    assert os.getpid() not in {json.loads(r["raw_response"])["pid"] for r in rows}
    # The engine answers "poem 0": kept as unparsable answers, as in the parent.
    assert all(r["error"].startswith("unparsable answer: ") for r in rows)


def test_refresh_failed_parses_is_the_option_of_judge_and_recognise() -> None:
    """The same runner re-parses the cache first for all three, so the help says the same."""
    from typer.main import get_command

    root = get_command(app)

    def refresh_help(*path: str) -> str | None:
        command: Any = root
        for name in path:
            command = command.get_command(None, name)  # the root imports a command's module
        (option,) = [p for p in command.params if p.name == "refresh_failed_parses"]
        return cast(str | None, option.help)

    helps = {refresh_help("judge"), refresh_help("judge", "recognise")}
    helps.add(refresh_help("ghostwriting", "style-match"))
    assert len(helps) == 1 and "still cannot be parsed" in str(helps.pop())
