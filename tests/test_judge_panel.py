"""Judge panels, samples, judge templates, non-poems, and parsing without calls (`judge parse`,
`judge reparse`), through the CLI against the local OpenAI server."""

from __future__ import annotations

import json
import re
import shlex
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from judge_corpus import ANSWER as ANSWER_ITEMS
from judge_corpus import compact, corpus
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    VALID_JUDGE_ANSWER,
    prepared_store,
    scripted_spec,
    use_scripted,
)
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.providers.base import Completion, GenerationRequest
from poemetric.roster import RosterError, load_catalog, load_roster, select_models
from poemetric.store import RunStore
from poemetric.store.schema import MIGRATIONS
from poemetric.testing.servers import ChatCall, OpenAIServer

ANSWER = f"```json\n{VALID_JUDGE_ANSWER}\n```"


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def write_judge(
    user_model: Callable[..., Path],
    name: str,
    base_url: str,
    provider: str = "openai",
    **extra: str,
) -> Path:
    """A user's judge file for a judge served at `base_url`; returns the judges' folder."""
    lines = [f"name: {name}", f"provider: {provider}", "model: judge-model",
             f"base_url: {base_url}", f"api_key_env: {TEST_KEY_ENV}",
             *(f"{key}: {value}" for key, value in extra.items())]  # fmt: skip
    return user_model("judges", name, "\n".join(lines) + "\n").parent


def run_with_machine_poems(tmp_path: Path, poems: int = 2) -> Path:
    """A run with `poems` human poems and as many 'machine' ones; the first machine answer is
    empty and the second a refusal when `poems` >= 3."""

    def behaviour(request: GenerationRequest, number: int) -> Completion:
        position = request.context["poem_id"]
        if poems >= 3 and position == first_ids[0]:
            return Completion(text="")
        if poems >= 3 and position == first_ids[1]:
            return Completion(text="I'm sorry, but I can't write a poem about that.")
        return Completion(text=f"A poem\nabout {position}\nin three lines")

    run = tmp_path / "run"
    with prepared_store(run, poems=poems) as store:
        first_ids = [r[0] for r in store.query("SELECT poem_id FROM poems ORDER BY position")]
        use_scripted(behaviour)
        run_generation(store, [scripted_spec(name="machine")], options=FAST)
    return run


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_a_panel_with_samples_runs_side_by_side(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = run_with_machine_poems(tmp_path, poems=2)
    with OpenAIServer(lambda call: ANSWER, api_key=TEST_KEY) as server:
        judges = write_judge(user_model, "seeded", server.base_url, provider="openai")
        write_judge(user_model, "compatible", server.base_url, provider="openai-compatible")
        (judges / "groups.yaml").write_text("panel: [seeded, compatible]\n")
        code, output = invoke("judge", "--run", str(run), "--judge", "panel", "--samples", "2",
                              "--no-progress")  # fmt: skip
        assert code == 0, output
        seeds = [(r.body["model"], r.body.get("seed")) for r in server.generation_requests]
    assert len(seeds) == 2 * 4 * 2  # 2 judges x 4 poems x 2 samples
    # A provider that takes a seed gets a new one per extra sample; sample 0 is sent as is.
    assert sorted(s for _, s in seeds if s is not None) == [1] * 4
    with RunStore(run) as store:
        rows = store.query(
            "SELECT judge, COUNT(*) AS n FROM judgments WHERE status = 'ok' GROUP BY judge"
        )
    assert {r["judge"]: r["n"] for r in rows} == {"seeded": 8, "compatible": 8}


def test_non_poems_are_not_sent_and_counted(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = run_with_machine_poems(tmp_path, poems=3)
    with OpenAIServer(lambda call: ANSWER, api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url)
        code, output = invoke("judge", "--run", str(run), "--judge", "j", "--no-progress")
        assert code == 0, output
        assert len(server.generation_requests) == 4  # 3 human poems + 1 real machine poem
    assert "2 answers are not poems" in output
    with RunStore(run) as store:
        skipped = store.query(
            "SELECT error FROM judgments WHERE status = 'not_judged' ORDER BY error"
        )
    assert [r["error"].split(":")[0] for r in skipped] == ["empty", "refusal"]


def test_the_line_on_non_poems_names_every_reason_they_are_skipped_for() -> None:
    """The line said "(empty or a refusal)" of poems the judge was not sent for being a single
    line or not in Latin script too (`poemetric.screening`): a run of one-line answers read
    "4 answers are not poems (empty or a refusal)", their rows "a single line, not a poem"."""
    from rich.console import Console

    from poemetric.runner.report import ModelReport, StageReport
    from poemetric.runner.stage_problems import render_problems

    console = Console(record=True, width=200)
    report = StageReport("judge", models=[ModelReport("j", "openai", jobs=4, not_sent=4)])
    render_problems(report, console)
    assert (
        "j: 4 answers are not poems (empty, a refusal, a single line or not in Latin script): "
        "stored as not judged, not sent."
    ) in console.export_text()


def test_judge_file_template_and_a_second_template_is_refused(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = run_with_machine_poems(tmp_path, poems=1)
    seen: list[str] = []

    def respond(call: ChatCall) -> str:
        seen.append(call.prompt)
        return ANSWER

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        judges = write_judge(user_model, "variant", server.base_url, template="judge-v2")
        (judges / "judge-v2.md").write_text("VARIANT\n{generation_prompt}\n---\n{the_poem}\n")
        code, output = invoke("judge", "--run", str(run), "--judge", "variant", "--no-progress")
        assert code == 0, output
        assert seen and all(prompt.startswith("VARIANT") for prompt in seen)
        other = tmp_path / "other.md"
        other.write_text("OTHER {generation_prompt} {the_poem}")
        code, output = invoke("judge", "--run", str(run), "--judge", "variant",
                              "--judge-template", str(other), "--no-progress")  # fmt: skip
    assert code == 2 and "another template" in output and "judge-v2.md" in output
    # The copy goes where judge files are read from: the user's folder, not `judges/` (which
    # only a checkout's bundled judges are read from), and the copy's `name:` must follow.
    said = " ".join(output.split())
    assert f"copy its file ({judges / 'variant.yaml'}) to {judges / 'variant-<variant>.yaml'}" in (
        said
    ), said
    assert "set `name: variant-<variant>` and `template:` in it" in said
    with RunStore(run) as store:
        (row,) = store.query("SELECT DISTINCT template_hash FROM judgments")
        (name,) = store.query("SELECT name FROM templates WHERE template_hash = ?", (row[0],))
    assert name[0] == "judge-v2.md"


def test_a_judge_template_without_placeholders_is_refused_at_load(
    user_model: Callable[..., Path],
) -> None:
    judges = write_judge(user_model, "bad", "http://127.0.0.1:9/v1", template="nothing.md")
    (judges / "nothing.md").write_text("no placeholders here")
    assert "bad" not in load_roster("judges")  # unusable: the other judges still load
    with pytest.raises(RosterError, match=r"bad\.yaml:6: judge 'bad' cannot be used: template "):
        select_models("bad", kind="judges")
    unusable = load_catalog("judges").unusable["bad"]
    assert re.search(r"bad\.yaml:6: template .*placeholder", unusable.detail)


def test_judge_parse_reads_the_corpus_exactly(tmp_path: Path) -> None:
    cases = corpus()
    source = tmp_path / "answers.jsonl"
    source.write_text(
        "".join(json.dumps({"id": c.id, "response": c.response}) + "\n" for c in cases)
    )
    out = tmp_path / "parsed.jsonl"
    code, output = invoke("judge", "parse", str(source), "--output", str(out))
    assert code == 1, output  # some answers are rejected
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert len(results) == len(cases)
    for case in cases:
        result = results[case.id]
        if case.scores is not None:
            assert result["ok"] and result["scores"] == case.scores, case.id
        else:
            assert not result["ok"] and result["scores"] is None, case.id
            assert case.reason in result["error"], case.id


def test_judge_parse_notes_each_left_out_comment_once(tmp_path: Path) -> None:
    source = tmp_path / "answers.jsonl"
    answers = {
        "null": {**ANSWER_ITEMS, "9": None},
        "empty": {**ANSWER_ITEMS, "9": ""},
        "object": {**ANSWER_ITEMS, "9": {"x": [1]}},
    }
    source.write_text(
        "".join(json.dumps({"id": k, "response": compact(v)}) + "\n" for k, v in answers.items())
    )
    out = tmp_path / "parsed.jsonl"
    assert invoke("judge", "parse", str(source), "--output", str(out))[0] == 0
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    notes = {key: result["notes"] for key, result in results.items()}
    assert notes["null"] == notes["empty"] == ["comments absent: 9"]
    assert "9" not in results["empty"]["comments"]  # stored as absent (NULL), not as ""
    assert notes["object"] == ["item 9 (comment_literary_devices): not text, left out"]


def test_judge_parse_exit_codes(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"id": 1, "response": VALID_JUDGE_ANSWER}) + "\n")
    assert invoke("judge", "parse", str(good), "-o", str(tmp_path / "a.jsonl"))[0] == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": 1, "response": VALID_JUDGE_ANSWER}) + "\n{not json\n")
    code, output = invoke("judge", "parse", str(bad), "-o", str(tmp_path / "b.jsonl"))
    assert code == 2 and "bad.jsonl:2: not JSON" in output
    assert (
        invoke("judge", "parse", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "c"))[0] == 2
    )
    # A mistyped input leaves an earlier output as it was.
    earlier = tmp_path / "a.jsonl"
    before = earlier.read_text()
    assert invoke("judge", "parse", str(tmp_path / "god.jsonl"), "-o", str(earlier))[0] == 2
    assert earlier.read_text() == before and before


def test_reparse_corrects_stored_answers_without_calls(tmp_path: Path) -> None:
    run = run_with_machine_poems(tmp_path, poems=1)
    answer = json.loads(VALID_JUDGE_ANSWER)
    with RunStore(run) as store:
        generations = [r[0] for r in store.query("SELECT generation_id FROM generations")]
        old_misread = {**answer, "10": "4.5"}  # an old parser read this as 4
        numbered = "\n".join(f"{k}. {v}" for k, v in answer.items())  # an old parser refused this
        for number, (generation, text, status) in enumerate(
            zip(generations, [json.dumps(old_misread), numbered], ["ok", "error"], strict=True)
        ):
            store.save_judgment({"judgment_id": f"j{number}", "generation_id": generation,
                                 "judge": "old", "sample_index": 0, "status": status,
                                 "response_text": text, "overall_quality": 4, "form": 4})  # fmt: skip
    code, output = invoke("judge", "reparse", "--run", str(run))
    assert code == 0, output
    assert "1 now read, 1 now rejected" in output and "item 10" in output
    # the command that re-asks them names the run and the judge (said `poemetric judge`)
    again = f"poemetric judge --run {shlex.quote(str(run))} --judge old"
    assert f"Rejected answers are now errors: `{again}` re-asks" in " ".join(output.split())
    with RunStore(run) as store:
        rows = {r["judgment_id"]: r for r in store.query("SELECT * FROM judgments")}
    assert rows["j0"]["status"] == "error" and rows["j0"]["overall_quality"] is None
    assert rows["j1"]["status"] == "ok" and rows["j1"]["overall_quality"] == 4


def test_a_version_1_store_migrates_with_its_judgments(tmp_path: Path) -> None:
    path = tmp_path / "poemetric.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0] + "; PRAGMA user_version = 1;")
    conn.executescript(
        "INSERT INTO poems VALUES ('p', 'd', 0, 'sonnet', 't', 'a', 'text', NULL, NULL, NULL, NULL, '{}');"
        "INSERT INTO templates VALUES ('h', 'g', 'x');"
        "INSERT INTO prompts VALUES ('pr', 'p', 'h', 'prompt');"
        "INSERT INTO generations (generation_id, prompt_id, poem_id, author, status, created_at)"
        " VALUES ('g', 'pr', 'p', 'human', 'ok', 'now');"
        "INSERT INTO judgments (judgment_id, generation_id, judge, status, form, created_at)"
        " VALUES ('j', 'g', 'old', 'ok', 5, 'now');"
    )
    conn.close()
    with RunStore(tmp_path) as store:
        (row,) = store.query("SELECT * FROM judgments")
        assert (row["form"], row["reasks"], row["refusal"]) == (5, 0, 0)
        store.save_judgment({"judgment_id": "k", "generation_id": "g", "judge": "new",
                             "sample_index": 0, "status": "not_judged", "error": "empty"})  # fmt: skip
        assert store.count("judgments") == 2


def test_ctrl_c_during_judging_says_how_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import poemetric.judge.stage as stage

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    run = run_with_machine_poems(tmp_path, poems=1)
    monkeypatch.setattr(stage, "run_judging", interrupted)
    monkeypatch.setattr("sys.argv", ["poemetric", "judge", "--run", str(run), "--judge", "gpt-4o"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unused")
    code, output = invoke("judge", "--run", str(run), "--judge", "gpt-4o")
    assert code == 130
    assert "Every answer received so far is saved" in output
    assert f"poemetric judge --run {run} --judge gpt-4o" in output


def test_a_second_run_leaves_the_rows_not_judged_as_they_are(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """Each run of `judge` stored every non-poem's row again, one transaction each: its
    `attempts` counted the runs (3 after three runs, nothing ever sent) and `created_at` moved
    to the last run."""
    run = run_with_machine_poems(tmp_path, poems=3)
    query = "SELECT judgment_id, error, attempts, created_at FROM judgments ORDER BY judgment_id"
    with OpenAIServer(lambda call: ANSWER, api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url)
        code, output = invoke("judge", "--run", str(run), "--judge", "j", "--no-progress")
        assert code == 0, output
        with RunStore(run) as store:
            first = [tuple(r) for r in store.query(query)]
        for _ in range(2):
            code, output = invoke("judge", "--run", str(run), "--judge", "j", "--no-progress")
            assert code == 0, output
            assert "2 answers are not poems" in output
        assert len(server.generation_requests) == 4  # nothing sent again
    with RunStore(run) as store:
        assert [tuple(r) for r in store.query(query)] == first
        attempts = store.query("SELECT attempts FROM judgments WHERE status = 'not_judged'")
    assert [r["attempts"] for r in attempts] == [1, 1]


def test_a_bundled_judges_variant_goes_to_a_folder_of_ones_own_in_a_pip_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In a pip install the bundled judges are inside the wheel, a folder no user file belongs
    in: the variant goes to a folder of one's own that POEMETRIC_JUDGES_DIR names."""
    import poemetric.paths
    from poemetric.judge.stage import _variant_hint
    from poemetric.paths import resource_path

    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)
    bundled = resource_path("judges") / "gemini-2.5-pro.yaml"
    if poemetric.paths.installed_root().name != "_resources":  # a checkout's judges/ is its own
        assert f"to {resource_path('judges') / 'gemini-2.5-pro-<variant>.yaml'}" in _variant_hint(
            "gemini-2.5-pro"
        )  # a checkout's judges/ is the user's to edit
    monkeypatch.setattr(
        poemetric.paths, "installed_root", lambda: Path("/site/poemetric/_resources")
    )
    assert _variant_hint("gemini-2.5-pro") == (
        f"copy its file ({bundled}) to gemini-2.5-pro-<variant>.yaml in a folder of your own, "
        "set `name: gemini-2.5-pro-<variant>` and `template:` in it and export "
        "POEMETRIC_JUDGES_DIR=that-folder"
    )
