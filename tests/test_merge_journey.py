"""`merge` of run stores made on two "machines" (folders) through the real CLI: what must not be
counted twice, silently mixed or reported as a conflict, and what a full disk says."""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.form.checker import CHECKER_VERSION
from poemetric.form.user_lexicon import default_version
from poemetric.store import RunStore
from poemetric.store.db import DB_NAME
from poemetric.store.merge import merge_runs
from poemetric.testing.servers import OpenAIServer

ROOT = Path(__file__).resolve().parents[1]
MARKOV = (ROOT / "generators" / "markov.yaml").read_text(encoding="utf-8")


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, [*args], env={"COLUMNS": "400"})


def _generate(run: Path, *extra: str) -> None:
    result = _run("generate", "--no-progress", "--run", str(run), "--limit", "3", *extra)
    assert result.exit_code == 0, result.output


def _merge(dest: Path, *sources: Path) -> Result:
    return _run("merge", *map(str, sources), "--into", str(dest))


def _count(run: Path, table: str) -> int:
    with RunStore(run, create=False) as store:
        return store.count(table)


def test_the_same_answers_stored_on_two_machines_are_no_conflict(tmp_path: Path) -> None:
    """Both machines ran `markov` on the same prompts: the same poems, but each cached answer
    kept its own `latency_s`, and merge reported every cached answer as a conflict ('differs in
    completion'), telling the user of conflicts where the two stores agree."""
    a, b = tmp_path / "a", tmp_path / "b"
    for run in (a, b):
        _generate(run, "--models", "markov")
    result = _merge(tmp_path / "all", a, b)
    assert result.exit_code == 0, result.output
    assert "the destination's rows were kept" not in result.output, result.output
    report = merge_runs([a, b], tmp_path / "again")
    assert report.conflicts == []
    assert report.tables["response_cache"].identical == _count(b, "response_cache") > 0


def test_stores_of_two_generation_templates_are_refused(tmp_path: Path) -> None:
    """A run keeps one generation template; stores prepared with two merged silently, with two
    prompts, and two human rows, for every poem (the human poems counted twice)."""
    template = tmp_path / "mine.jinja"
    template.write_text(
        (ROOT / "prompts" / "generation.jinja").read_text(encoding="utf-8") + "\nBe brief.\n",
        encoding="utf-8",
    )
    mine, default = tmp_path / "mine", tmp_path / "default"
    _generate(mine, "--models", "markov", "--template", str(template))
    _generate(default, "--models", "markov")
    dest = tmp_path / "all"
    result = _merge(dest, default, mine)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    flat = " ".join(result.output.split())
    assert f"{default} and {mine} were prepared with different generation prompt templates" in flat
    assert "'mine.jinja'" in flat
    assert "each human poem would count once per template" in flat
    assert not (dest / DB_NAME).exists()
    # Merged into an existing run of the other template, nothing is written either.
    result = _merge(default, mine)
    assert result.exit_code == 2 and _count(default, "prompts") == 3, result.output


def test_a_model_run_with_other_settings_in_another_store_is_named(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """Shards of one model name run with another seed (a model file edited on one machine)
    merged with status 0 and nothing said: the poems of two configurations under one name."""
    model = MARKOV.replace("name: markov", "name: mk")
    user_model("generators", "mk", model)
    first, second = tmp_path / "part0", tmp_path / "part1"
    _generate(first, "--models", "mk", "--shard", "0/2")
    user_model("generators", "mk", model.replace("seed: 0", "seed: 7"))
    _generate(second, "--models", "mk", "--shard", "1/2")
    dest = tmp_path / "all"
    result = _merge(dest, first, second)
    assert result.exit_code == 1, result.output
    line = " ".join(next(x for x in result.output.splitlines() if x.startswith("mixed:")).split())
    assert "generate of model mk ran in other configurations" in line
    assert f'"seed": 0}} in {first}' in line and f'"seed": 7}} in {second}' in line
    assert str(dest) in line and "its own model file name" in line
    assert _count(dest, "generations") == 6  # written all the same: 3 human, 3 mk

    # The same configuration on both sides (another display name only) is no mix.
    third = tmp_path / "part1-again"
    user_model(
        "generators", "mk", model.replace("display_name: Markov baseline", "display_name: M")
    )
    _generate(third, "--models", "mk", "--shard", "1/2")
    result = _merge(tmp_path / "same", first, third)
    assert result.exit_code == 0 and "mixed" not in result.output, result.output


def test_a_model_run_with_other_provider_options_in_another_store_is_named(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """Shards of one Markov model run with another `options: order` (which the response cache
    keys as another model) merged with status 0 and nothing said; a store recorded before the
    options were (no `engine` in its record) is not taken for another configuration."""
    model = MARKOV.replace("name: markov", "name: mk")
    user_model("generators", "mk", model)
    first, second = tmp_path / "part0", tmp_path / "part1"
    _generate(first, "--models", "mk", "--shard", "0/2")
    user_model("generators", "mk", model.replace("order: 2 ", "order: 3 "))
    _generate(second, "--models", "mk", "--shard", "1/2")
    result = _merge(tmp_path / "all", first, second)
    assert result.exit_code == 1, result.output
    line = " ".join(next(x for x in result.output.splitlines() if x.startswith("mixed:")).split())
    assert "generate of model mk ran in other configurations" in line
    assert line.count("provider or engine options sha256") == 2 and str(second) in line

    with RunStore(second) as store:  # as POEMetric recorded it before
        held = store.get_meta("models")
        del held["generate"]["mk"]["engine"]
        store.set_meta("models", held)
    result = _merge(tmp_path / "old", first, second)
    assert result.exit_code == 0 and "mixed" not in result.output, result.output


def test_a_judge_run_with_another_judge_template_in_another_store_is_named(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    with OpenAIServer(lambda call: VALID_JUDGE_ANSWER) as server:
        user_model(
            "judges",
            "tj",
            f"name: tj\nprovider: openai-compatible\nmodel: m\nbase_url: {server.base_url}\n"
            "api_key_env: false\npricing: {input_per_mtok: 1.0, output_per_mtok: 2.0}\n",
        )
        base = tmp_path / "base"
        _generate(base, "--models", "markov")
        other = tmp_path / "judge.md"
        other.write_text(
            (ROOT / "prompts" / "judge.md").read_text(encoding="utf-8") + "\nBe strict.\n",
            encoding="utf-8",
        )
        runs = [tmp_path / "a", tmp_path / "b"]
        for run, extra in zip(runs, ([], ["--judge-template", str(other)]), strict=True):
            shutil.copytree(base, run)
            args = ["judge", "--run", str(run), "--judge", "tj", "--no-progress", *extra]
            result = _run(*args, "--authors", "human" if extra else "markov")
            assert result.exit_code == 0, result.output
    result = _merge(tmp_path / "all", *runs)
    assert result.exit_code == 1, result.output
    line = " ".join(next(x for x in result.output.splitlines() if x.startswith("mixed:")).split())
    assert "judge of model tj ran in other configurations" in line and "judge template" in line


@pytest.mark.skipif(not hasattr(resource, "RLIMIT_FSIZE"), reason="needs RLIMIT_FSIZE")
def test_a_full_disk_stops_the_merge_with_a_message_and_nothing_half_written(
    tmp_path: Path,
) -> None:
    """A destination that cannot grow (a full disk, a used-up quota: here a file size limit,
    which SQLite meets as a failing write) ended the merge in a traceback."""
    a, b = tmp_path / "a", tmp_path / "b"
    _generate(a, "--models", "markov", "--samples", "40")
    _generate(b, "--models", "markov")
    dest = tmp_path / "dest"
    shutil.copytree(b, dest)
    size = (dest / DB_NAME).stat().st_size

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size + 5001, size + 5001))

    env = {**os.environ, "COLUMNS": "400", "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "poemetric", "merge", str(a), "--into", str(dest)]
    done = subprocess.run(
        command, preexec_fn=limited, capture_output=True, text=True, env=env, check=False
    )
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 2, said  # an error, as every refused merge
    assert "Traceback" not in said
    assert f"could not write {dest}" in said and "disk quota" in said
    assert f"nothing of {a} was written" in said and "run the same merge again" in said
    assert _count(dest, "generations") == _count(b, "generations")

    result = _merge(dest, a)  # room again: the same merge
    assert result.exit_code == 0, result.output
    assert _count(dest, "generations") == _count(a, "generations")


def test_form_checks_by_this_checker_win_over_an_older_checkers(tmp_path: Path) -> None:
    """Two machines form-checked the same poems, one with an older POEMetric (another
    CHECKER_VERSION): every verdict was a conflict and the destination's was kept, the older
    checker's too, so the merged run mixed checker versions until `form run` redid them."""
    old, new = tmp_path / "old", tmp_path / "new"
    _generate(old, "--models", "markov")
    shutil.copytree(old, new)
    for run in (old, new):
        result = _run("form", "run", "--run", str(run), "--no-progress")
        assert result.exit_code == 0, result.output
    with RunStore(old) as store, store.transaction() as conn:
        conn.execute("UPDATE form_checks SET checker_version = 'form-0.1'")
    for order in ((old, new), (new, old)):
        dest = tmp_path / f"from-{order[1].name}"
        report = merge_runs(list(order), dest, checker_version=default_version)
        assert report.conflicts == [], report.conflicts
        with RunStore(dest, create=False) as store:
            versions = {row[0] for row in store.query("SELECT checker_version FROM form_checks")}
        assert versions == {CHECKER_VERSION}
        result = _run("form", "run", "--run", str(dest), "--no-progress")
        assert "checked 0, skipped 6" in result.output, result.output


def test_an_overlapping_model_names_its_conflicts_and_what_to_do(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    """The same model generated on both machines with other answers: the conflict line said only
    that the destination's rows were kept, not how to keep the other store's instead."""
    model = MARKOV.replace("name: markov", "name: mk")
    a, b = tmp_path / "a", tmp_path / "b"
    user_model("generators", "mk", model)
    _generate(a, "--models", "mk")
    user_model("generators", "mk", model.replace("seed: 0", "seed: 7"))
    _generate(b, "--models", "mk")
    poems = {}
    for first, second in ((a, b), (b, a)):
        dest = tmp_path / f"{first.name}-first"
        result = _merge(dest, first, second)
        flat = " ".join(result.output.split())
        assert "3 conflicts: the destination's rows were kept" in flat, result.output
        assert "merge in the other order into a new --into folder" in flat
        assert result.exit_code == 1 and "mixed: generate of model mk" in flat
        with RunStore(dest, create=False) as store:
            poems[first.name] = store.query("SELECT poem FROM generations WHERE author = 'mk'")
        assert len(poems[first.name]) == 3  # once each, never both versions
    assert poems["a"] != poems["b"]


def _served(user_model: Callable[[str, str, str], Path], kind: str, name: str, url: str) -> None:
    user_model(
        kind,
        name,
        f"name: {name}\nprovider: openai-compatible\nmodel: m\nbase_url: {url}\n"
        f"api_key_env: {TEST_KEY_ENV}\npricing: {{input_per_mtok: 1.0, output_per_mtok: 2.0}}\n",
    )


def test_an_answer_bought_on_both_machines_is_kept_once_not_a_conflict(
    tmp_path: Path, user_model: Callable[[str, str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both machines asked `remote` and judge `tj` the same requests and got the same answers,
    each with the provider's own response id: every poem, judgment and cached answer was a
    conflict ("differs in raw_response"), and `--strict` exited 1. Each is kept once (the
    destination's, whichever order) and counted as bought twice; another answer stays a
    conflict."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    a, b, other = tmp_path / "a", tmp_path / "b", tmp_path / "other"
    poems = ["Echo: "]  # what the poet answers before each prompt
    with (
        OpenAIServer(lambda call: poems[-1] + call.prompt, api_key=TEST_KEY) as poet,
        OpenAIServer(lambda call: VALID_JUDGE_ANSWER, api_key=TEST_KEY) as judge,
    ):
        _served(user_model, "generators", "remote", poet.base_url)
        _served(user_model, "judges", "tj", judge.base_url)
        for run in (a, b):
            _generate(run, "--models", "remote")
            judged = _run("judge", "--no-progress", "--run", str(run), "--judge", "tj")
            assert judged.exit_code == 0, judged.output
        poems.append("Another answer: ")  # the same requests, answered otherwise
        _generate(other, "--models", "remote")
    for order in ((a, b), (b, a)):
        dest = tmp_path / f"{order[0].name}-first"
        result = _run("merge", *map(str, order), "--into", str(dest), "--strict")
        assert result.exit_code == 0, result.output
        flat = " ".join(result.output.split())
        # 3 poems of remote, 6 judgments (its poems and the 3 human ones), one cached answer each
        assert "9 answers were bought in two stores: the same request answered alike" in flat
        assert "the destination's rows were kept" not in flat, result.output  # no conflict
        with RunStore(dest, create=False) as store, RunStore(order[0], create=False) as first:
            query = "SELECT * FROM generations ORDER BY generation_id"
            assert [tuple(r) for r in store.query(query)] == [tuple(r) for r in first.query(query)]
    report = merge_runs([a, b], tmp_path / "again")
    assert report.conflicts == []
    assert report.tables["generations"].bought_twice == 3
    assert report.tables["judgments"].bought_twice == 6
    assert report.tables["response_cache"].identical == _count(b, "response_cache") == 9
    assert len(merge_runs([a, other], tmp_path / "another").conflicts) == 3 + 3  # poems, cache


def test_an_answer_bought_before_and_after_unknown_reasoning_counts_is_kept_once(
    tmp_path: Path, user_model: Callable[[str, str, str], Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reasoning tokens the provider gives no figure for were stored as 0 before 2026-11-28 and
    are NULL since: the same answer bought in a store of each kind was a conflict ("differs in
    reasoning_tokens", `--strict` exit 1) instead of an answer bought twice."""
    import sqlite3

    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    old, new = tmp_path / "old", tmp_path / "new"
    with OpenAIServer(lambda call: "Echo: " + call.prompt, api_key=TEST_KEY) as poet:
        _served(user_model, "generators", "remote", poet.base_url)
        for run in (old, new):
            _generate(run, "--models", "remote")
    with sqlite3.connect(new / DB_NAME) as conn:  # as a store written since stores them
        conn.execute("UPDATE generations SET reasoning_tokens = NULL WHERE author = 'remote'")
        conn.execute(
            "UPDATE response_cache SET completion = "
            "json_set(completion, '$.usage.reasoning_tokens', json('null'))"
        )
    with RunStore(old, create=False) as store:
        assert {r[0] for r in store.query("SELECT reasoning_tokens FROM generations "
                                          "WHERE author = 'remote'")} == {0}  # fmt: skip
    for order in ((old, new), (new, old)):
        dest = tmp_path / f"{order[0].name}-first"
        result = _run("merge", *map(str, order), "--into", str(dest), "--strict")
        assert result.exit_code == 0, result.output
        assert "3 answers were bought in two stores" in " ".join(result.output.split())
    report = merge_runs([old, new], tmp_path / "again")
    assert report.conflicts == []
    assert report.tables["generations"].bought_twice == 3
    assert report.tables["response_cache"].identical == 3


def test_only_a_cached_completion_loses_its_bookkeeping_in_the_comparison() -> None:
    """The bookkeeping keys were stripped from every JSON text of every table, and every text
    that parsed as JSON was compared parsed (" 3" equal to "3"); now only objects and arrays
    are compared parsed, and only a cached completion without its bookkeeping."""
    from poemetric.store.merge_tables import same_value

    timed = ('{"text": "a poem", "latency_s": 1.5}', '{"latency_s": 9.0, "text": "a poem"}')
    assert same_value(*timed, bookkeeping=True)
    assert not same_value(*timed)  # another table's JSON keeps every key
    assert same_value('{"a": 1, "b": [1, 2]}', '{"b":[1,2],"a":1}')  # key order, spacing
    assert not same_value(" 3", "3") and not same_value("true", " true")  # texts as they are
    assert not same_value('"x"', "x")
