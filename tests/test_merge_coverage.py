"""`merge` said nothing, and exited 0, where the merged run covers only part of its poems:

* a judge run without `--shard` on a store holding one generation shard recorded the whole
  judge stage there, so merged with the other generation shards, the other shards' poems were
  silently unjudged (so were the form checks, recognitions and style-match trials made the same
  way);
* a store with no shard record at all (its only model of the first stage stopped partway)
  merged as complete: it could not be told from a store written before shard records.

The merged run is read now, by each stage's own rule of what it covers: each stage and model
that covers part of it is named `incomplete: ...`, with the command that covers the rest, and
the merge exits 1. Stores are made by the real commands, the judges and the generator served by
the local OpenAI-compatible server."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

from click.testing import Result
from test_runner_support import TEST_KEY, TEST_KEY_ENV, VALID_JUDGE_ANSWER
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.store.db import DB_NAME
from poemetric.store.shards import SHARD_META_KEYS
from poemetric.style.stage import style_trials
from poemetric.testing.servers import ChatCall, Fault, OpenAIServer

UserModel = Callable[[str, str, str], Path]
POEM = "Roses are red,\nviolets are blue,\nsugar is sweet,\nand so are you."


def _cli(*args: str | Path) -> Result:
    env = {TEST_KEY_ENV: TEST_KEY, "COLUMNS": "400"}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def _ok(*args: str | Path) -> Result:
    result = _cli(*args)
    assert result.exit_code == 0, result.output
    return result


def _incomplete(result: Result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("incomplete")]


def _answer(call: ChatCall) -> str:
    """A judge's answer to each stage's prompt: recognise, style-match, or the questionnaire."""
    if call.prompt.startswith("Do you recognise"):
        return '{"title": null, "author": null}'
    if "four candidate poems" in call.prompt:
        return "B"
    return VALID_JUDGE_ANSWER


def _model_file(user_model: UserModel, kind: str, name: str, server: OpenAIServer) -> None:
    user_model(
        kind,
        name,
        f"name: {name}\nprovider: openai-compatible\nmodel: m\nbase_url: {server.base_url}\n"
        f"api_key_env: {TEST_KEY_ENV}\nlimits: {{max_concurrency: 1}}\n",
    )


def _markov(run: Path, store: Path) -> int:
    with RunStore(run / store) as held:
        return held.count("generations", "author = 'markov'")


def test_a_judge_run_on_one_generation_shard_is_named(
    tmp_path: Path, user_model: UserModel
) -> None:
    """Judged and form-checked on shard 0/2 only: the poems of shard 1/2 have neither."""
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, part in enumerate(parts):
        _ok("generate", "--no-progress", "--run", part, "--limit", "8", "--shard", f"{k}/2")
    unjudged = _markov(tmp_path, parts[1])
    assert unjudged and _markov(tmp_path, parts[0])  # each shard holds poems of markov
    dest = tmp_path / "all"
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("judge", "--run", parts[0], "--judge", "tj", "--no-progress")
        _ok("form", "run", "--run", parts[0], "--no-progress")
        result = _cli("merge", *parts, "--into", dest)
        assert result.exit_code == 1, result.output
        judge, form = _incomplete(result)
        assert judge.startswith(
            f"incomplete: judge of model tj: {unjudged} of the 16 poems in {dest} have no "
            f"judgment of it (markov {unjudged})"
        ), judge
        assert f"run poemetric judge --run {dest} --judge tj to judge them" in judge, judge
        assert form.startswith(
            f"incomplete: form check: {unjudged} of the 16 poems in {dest} have no form check "
            f"(markov {unjudged})"
        ), form
        assert f"run poemetric form run --run {dest} to check them" in form, form

        # analyze on the merged run names the judge's gap too (the report shows its notes), the
        # author as its tables name it.
        analyzed = _ok("analyze", "--run", dest, "--out", tmp_path / "tables", "--no-progress")
        flat = " ".join(analyzed.output.split())
        said = f"{unjudged} generations were not judged by tj (Markov baseline {unjudged})"
        assert said in flat, flat

        # Covered on the merged run as the lines say: merging a shard again says nothing.
        _ok("judge", "--run", dest, "--judge", "tj", "--no-progress")
        _ok("form", "run", "--run", dest, "--no-progress")
    result = _ok("merge", parts[1], "--into", dest)
    assert not _incomplete(result), result.output


def test_recognise_and_style_match_of_part_of_the_poems_are_named(
    tmp_path: Path, user_model: UserModel
) -> None:
    """A judge asked to recognise, and to style-match, the poems of a 4-poem run, merged with an
    8-poem run: the 4 other human poems have no answer, their poems no trial."""
    small, large, dest = tmp_path / "small", tmp_path / "large", tmp_path / "all"
    _ok("generate", "--no-progress", "--run", small, "--limit", "4")
    _ok("generate", "--no-progress", "--run", large, "--limit", "8")
    with OpenAIServer(_answer, api_key=TEST_KEY) as server:
        _model_file(user_model, "judges", "tj", server)
        _ok("judge", "recognise", "--run", small, "--judge", "tj", "--no-progress")
        style = ["ghostwriting", "style-match", "--judge", "tj", "--trials", "1", "--no-progress"]
        _ok(*style, "--run", small)
        result = _cli("merge", small, large, "--into", dest)
        assert result.exit_code == 1, result.output
        with RunStore(dest) as merged:
            eligible = {t.generation_id for t in style_trials(merged, trials_per_poem=1).trials}
            matched = merged.count("style_matches")
        assert 0 < matched < len(eligible)
        recognise, style_match = _incomplete(result)
        assert recognise.startswith(
            f"incomplete: recognise of model tj: 4 of the 8 human poems in {dest} have no "
            "answer of it (human 4)"
        ), recognise
        assert f"run poemetric judge recognise --run {dest} --judge tj" in recognise, recognise
        lacking = len(eligible) - matched
        assert style_match.startswith(
            f"incomplete: style-match of model tj: {lacking} of the {len(eligible)} poems that "
            f"can have a style-match trial in {dest} have no trial of it"
        ), style_match
        assert f"poemetric ghostwriting style-match --run {dest} --judge tj" in style_match

        _ok("judge", "recognise", "--run", dest, "--judge", "tj", "--no-progress")
        _ok(*style, "--run", dest)
    result = _ok("merge", large, "--into", dest)
    assert not _incomplete(result), result.output


def test_a_store_whose_only_model_stopped_partway_is_incomplete(
    tmp_path: Path, user_model: UserModel
) -> None:
    """Its key refused after two poems: the store holds 2 of tg's 6 poems and no shard record
    at all, which the merge took for complete (exit 0, nothing said)."""
    run, dest = tmp_path / "run", tmp_path / "all"
    generate = ["generate", "--no-progress", "--run", run, "--models", "tg", "--limit", "6"]
    faults = [None, None, *[Fault.client_error(401, "key revoked")] * 8]
    with OpenAIServer(lambda call: POEM, faults=faults) as server:
        _model_file(user_model, "generators", "tg", server)
        assert _cli(*generate).exit_code == 1
    with RunStore(run) as store:
        assert store.count("generations", "author = 'tg'") == 2
        assert all(store.get_meta(key) is None for key in SHARD_META_KEYS)
    result = _cli("merge", run, "--into", dest)
    assert result.exit_code == 1, result.output
    [line] = _incomplete(result)
    assert line.startswith(
        f"incomplete: generate of model tg: 4 of the 6 poems it was asked to write in {dest} (one "
        f"per prompt and sample) are in none of the merged stores; {run} holds part of them and no "
        "shard record of the generate stage: it stopped partway there"
    ), line

    # Resumed there, and merged again: complete.
    with OpenAIServer(lambda call: POEM) as server:
        _model_file(user_model, "generators", "tg", server)
        _ok(*generate)
    result = _ok("merge", run, "--into", dest)
    assert not _incomplete(result), result.output

    # A store holding every poem but no shard record (written before they were kept) is told
    # from it by what it holds: complete.
    older = tmp_path / "older"
    shutil.copytree(run, older)
    with sqlite3.connect(older / DB_NAME) as conn:
        conn.executemany("DELETE FROM meta WHERE key = ?", [(key,) for key in SHARD_META_KEYS])
    conn.close()
    result = _ok("merge", older, "--into", tmp_path / "from-older")
    assert not _incomplete(result), result.output


def test_the_form_check_line_carries_the_threshold_the_checks_were_made_at(
    tmp_path: Path,
) -> None:
    """Checked at `--threshold 0.8`, the merged run's missing checks were to be made by a plain
    `form run` (0.7), which checks every row made at 0.8 again, not only the missing ones."""
    parts = [tmp_path / f"part{k}" for k in range(2)]
    for k, part in enumerate(parts):
        _ok("generate", "--no-progress", "--run", part, "--limit", "8", "--shard", f"{k}/2")
    _ok("form", "run", "--run", parts[0], "--no-progress", "--threshold", "0.8")
    dest = tmp_path / "all"
    result = _cli("merge", *parts, "--into", dest)
    assert result.exit_code == 1, result.output
    (form,) = _incomplete(result)
    unchecked = _markov(tmp_path, parts[1])
    assert f"run poemetric form run --run {dest} --threshold 0.8 to check them" in form, form
    checked = _ok("form", "run", "--run", dest, "--no-progress", "--threshold", "0.8")
    with RunStore(parts[0]) as store:
        made = store.count("form_checks")
    assert f"checked {unchecked}, skipped {made} " in checked.output  # only the missing ones


def test_checks_made_at_several_thresholds_are_said(tmp_path: Path) -> None:
    parts = [tmp_path / f"part{k}" for k in range(3)]
    for k, part in enumerate(parts):
        _ok("generate", "--no-progress", "--run", part, "--limit", "8", "--shard", f"{k}/3")
    _ok("form", "run", "--run", parts[0], "--no-progress", "--threshold", "0.8")
    _ok("form", "run", "--run", parts[1], "--no-progress")
    dest = tmp_path / "all"
    (form,) = _incomplete(_cli("merge", *parts, "--into", dest))
    assert "its checks were made at thresholds 0.7 and 0.8: add --threshold" in form, form
    assert f"run poemetric form run --run {dest} to check them" in form, form
