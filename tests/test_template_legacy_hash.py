"""A run judged or prepared before a template's byte-order mark was dropped resumes with the
same, unchanged file. Such a run recorded the hash of the text `path.read_text(encoding="utf-8")`
gave (U+FEFF first, and every prompt sent began with it); today's text has no mark, so the hash
differs and the resume was refused as "another template", leaving the run to be paid again.

A run of then is made for real: a file with two marks reads today as one with one mark read
then (U+FEFF first), so judging or preparing with it sends and records exactly what the old code
did; the tests check that hash against the old computation, then resume with the one-mark file."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_judge_panel import ANSWER, invoke, run_with_machine_poems, write_judge
from test_runner_support import TEST_KEY, TEST_KEY_ENV

from poemetric.pipeline import prepare_run
from poemetric.prompts import load_template
from poemetric.store import RunStore, StoreError
from poemetric.testing.servers import ChatCall, OpenAIServer

BOM = b"\xef\xbb\xbf"
JUDGE_TEXT = "BOM JUDGE\r\n{generation_prompt}\r\n---\r\n{the_poem}\r\n"


@pytest.fixture(autouse=True)
def _fresh_templates(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each read of a template file sees its bytes now (a new process would)."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    load_template.cache_clear()
    yield
    load_template.cache_clear()


def old_hash(path: Path) -> str:
    """The template hash the code before the fix recorded: `path.read_text` kept the mark."""
    return hashlib.sha256(path.read_text(encoding="utf-8").encode("utf-8")).hexdigest()


def as_saved_before(path: Path, text: str) -> None:
    """`path` holding `text` as the old code read a one-mark file: two marks today."""
    path.write_bytes(BOM + BOM + text.encode("utf-8"))
    load_template.cache_clear()


def save_with_bom(path: Path, text: str) -> None:
    path.write_bytes(BOM + text.encode("utf-8"))
    load_template.cache_clear()


def test_a_judge_resumes_a_run_judged_before_the_mark_was_dropped(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    run = run_with_machine_poems(tmp_path, poems=2)
    template = tmp_path / "bom-judge.md"
    seen: list[str] = []

    def respond(call: ChatCall) -> str:
        seen.append(call.prompt)
        return ANSWER

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url, template=str(template))
        judge = ["judge", "--run", str(run), "--judge", "j", "--no-progress"]
        as_saved_before(template, JUDGE_TEXT)
        code, output = invoke(*judge, "--limit", "1")  # judged back then: 1 of 2 poems
        assert code == 0, output
        save_with_bom(template, JUDGE_TEXT)  # the same file, read by today's code
        legacy = old_hash(template)
        assert legacy != load_template(template).sha256
        with RunStore(run) as store:
            recorded = store.query("SELECT DISTINCT template_hash FROM judgments")
        assert [row[0] for row in recorded] == [legacy] and len(seen) == 2
        code, output = invoke(*judge)
        assert code == 0, output  # refused before: "already judged 2 poems ... another template"
        assert len(seen) == 4 and all(p.startswith("\ufeffBOM JUDGE\n") for p in seen)
        code, output = invoke(*judge)  # and again: nothing is left, nothing is paid
        assert code == 0 and len(seen) == 4, output
        other = tmp_path / "other.md"  # another template is still another judge
        save_with_bom(other, JUDGE_TEXT.replace("BOM JUDGE", "OTHER"))
        code, output = invoke(*judge, "--judge-template", str(other))
    assert code == 2 and "another template" in output and "bom-judge.md" in output
    with RunStore(run) as store:
        hashes = store.query("SELECT template_hash, COUNT(*) AS n FROM judgments GROUP BY 1")
        templates = store.query("SELECT template_hash FROM templates WHERE name = 'bom-judge.md'")
    assert [(row[0], row[1]) for row in hashes] == [(legacy, 4)]
    assert [row[0] for row in templates] == [legacy]  # no second, unused template recorded


def test_a_run_prepared_before_the_mark_was_dropped_takes_more_poems(tmp_path: Path) -> None:
    template = tmp_path / "generation.jinja"
    text = load_template("generation.jinja").text.replace("\n", "\r\n")
    with RunStore(tmp_path / "run") as store:
        as_saved_before(template, text)
        prepare_run(store, "demo", limit=2, template=template)
        save_with_bom(template, text)
        legacy = old_hash(template)
        assert legacy != load_template(template).sha256
        prepared = prepare_run(store, "demo", limit=3, template=template)  # was a StoreError
        assert prepared.template_hash == legacy and prepared.prompts_added == 1
        prompts = store.query("SELECT template_hash, text FROM prompts")
        assert {row[0] for row in prompts} == {legacy} and len(prompts) == 3
        assert all(row[1].startswith("\ufeff") for row in prompts)  # as the models were sent
        assert [row[0] for row in store.query("SELECT template_hash FROM templates")] == [legacy]
        other = tmp_path / "other.jinja"
        save_with_bom(other, text + "Be brief.\r\n")
        with pytest.raises(StoreError, match="another generation prompt template"):
            prepare_run(store, "demo", limit=3, template=other)
