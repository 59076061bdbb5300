"""`judge recognise`: the memorisation probe through the three SDKs, and its fuzzy matching."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_judge_structured import DIALECTS, judge_spec
from test_runner_support import TEST_KEY, TEST_KEY_ENV, prepared_store

from poemetric.analysis import analyze_run
from poemetric.judge.recognise import (
    TITLE_MATCH,
    RecognitionParseError,
    arabic_numerals,
    author_similarity,
    is_recognised,
    parse_recognition,
    run_recognition,
    title_similarity,
)
from poemetric.store import RunStore
from poemetric.testing.servers import ChatCall, Reply


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_matching_is_normalised_and_fuzzy() -> None:
    assert author_similarity("W. B. Yeats", "William Butler Yeats") == 1.0
    assert author_similarity("Yeats", "William Butler Yeats") == 1.0
    assert author_similarity("John Keats", "William Butler Yeats") < 0.85
    assert author_similarity("Thomas Hardy", "Thomas Hardie") > 0.85
    assert title_similarity("The Raven", "raven") == 1.0
    assert title_similarity("Sonnet 18", "Sonnet 18: Shall I compare thee") == 1.0
    assert title_similarity("Ode to a Nightingale", "Ode on a Grecian Urn") < 0.8
    assert title_similarity("Élégie", "Elegie") == 1.0
    assert is_recognised(1.0, 1.0, "The Raven", "Poe")
    assert not is_recognised(1.0, 0.2, "The Raven", "Poe")
    assert is_recognised(0.0, 1.0, "", "Poe")  # the dataset has no title: the author decides
    assert not is_recognised(1.0, 1.0, "", "Anonymous")


@pytest.mark.parametrize(
    ("answered", "truth"),
    [
        ("Sonnet 1", "Sonnet 18: Shall I compare thee to a summer's day?"),  # a prefix
        ("Sonnet 11", "Sonnet 116: Let me not to the marriage of true minds"),
        ("Sonnet 19", "Sonnet 18"),  # one digit apart: difflib's ratio is 0.89
        ("Sonnet 130", "Sonnet 18: Shall I compare thee"),
    ],
)
def test_another_numbered_title_is_not_the_poem(answered: str, truth: str) -> None:
    # Shakespeare's sonnets differ by their number alone: naming the wrong one (with the right
    # author) is not recognising the poem.
    assert title_similarity(answered, truth) < TITLE_MATCH
    assert not is_recognised(title_similarity(answered, truth), 1.0, truth, "William Shakespeare")
    assert title_similarity("Sonnet 18", "Sonnet 18: Shall I compare thee") == 1.0
    assert title_similarity("Shall I compare thee (Sonnet 18)", "Sonnet 18") == 1.0


@pytest.mark.parametrize(
    ("answered", "truth", "same"),
    [
        ("Sonnet XVIII", "Sonnet 18", True),  # a fuzzy 0.67: not recognised
        ("SONNET XVIII", "Sonnet 18: Shall I compare thee to a summer's day?", True),
        ("Holy Sonnet XIV: Batter my heart", "Holy Sonnet 14", True),
        ("Psalm XXIII", "Psalm 23", True),
        ("Canto LXXXI", "Canto 81", True),
        ("Book I: The Garden", "Book 1: The Garden", True),
        ("Elegy XIV", "Elegy 14", True),
        ("Sonnet XIX", "Sonnet 18", False),  # another number, written in Roman numerals
        ("Canto I", "Canto 2", False),  # a fuzzy 0.86: recognised before
        ("Sonnet CXVI", "Sonnet 18: Shall I compare thee", False),
    ],
)
def test_roman_numerals_in_titles_are_numbers(answered: str, truth: str, same: bool) -> None:
    """ "Sonnet XVIII" for "Sonnet 18" was left to the fuzzy score (0.67, not recognised), and
    "Canto I" for "Canto 2" passed it (0.86): a Roman numeral is read as its number."""
    assert (title_similarity(answered, truth) >= TITLE_MATCH) is same
    assert (title_similarity(truth, answered) >= TITLE_MATCH) is same


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Sonnet XVIII", "Sonnet 18"),
        ("Part I", "Part 1"),
        ("Elegy XIV.", "Elegy 14."),
        ("Who Am I", "Who Am I"),  # the pronoun ends a title
        ("I Wandered Lonely as a Cloud", "I Wandered Lonely as a Cloud"),
        ("Song I Heard", "Song I Heard"),  # the pronoun after a numbered word
        ("Mix", "Mix"),  # a word, not upper case
        ("CIVIL WAR", "CIVIL WAR"),  # not a numeral
        ("THE BEST MIX", "THE BEST MIX"),  # an all-capitals title's last word
        ("Part IIII", "Part IIII"),  # not a well-formed numeral
        ("V for Vendetta", "V for Vendetta"),  # neither after a numbered word nor at the end
    ],
)
def test_only_standalone_numerals_are_read(title: str, expected: str) -> None:
    assert arabic_numerals(title) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"title": "The Raven", "author": "Edgar Allan Poe"}', ("The Raven", "Edgar Allan Poe")),
        ('<think>maybe Poe</think>```json\n{"title": null, "author": "Poe"}\n```', (None, "Poe")),
        ("I do not recognise this poem.", (None, None)),
        ('{"title": "unknown", "author": ""}', (None, None)),
    ],
)
def test_recognition_answers(text: str, expected: tuple[str | None, str | None]) -> None:
    assert parse_recognition(text) == expected


def test_two_different_names_are_refused() -> None:
    with pytest.raises(RecognitionParseError):
        parse_recognition('{"title": "A", "author": "B"} or rather {"title": "C", "author": "D"}')


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_recognise_through_each_sdk(tmp_path: Path, dialect: str) -> None:
    store = prepared_store(tmp_path, poems=3)
    poems = store.query("SELECT title, author, content FROM poems ORDER BY position")
    known = poems[0]

    def respond(call: ChatCall) -> Reply:
        if known["content"].strip() in call.prompt:
            answer: dict[str, Any] = {"title": known["title"], "author": known["author"]}
        else:
            answer = {"title": "", "author": ""}
        if call.schema is not None:
            return Reply(text="", structured=answer)
        return Reply(text=json.dumps(answer) if answer["title"] else "I do not know this poem.")

    structured = "auto" if dialect == "anthropic" else "off"
    with DIALECTS[dialect][0](respond, api_key=TEST_KEY) as server:
        spec = judge_spec(dialect, server.base_url, structured=structured)
        report = run_recognition(store, [spec])
        assert report.models[0].ok == 3 and report.errors == 0
        again = run_recognition(store, [spec])
        assert again.models[0].already_done == 3 and len(server.generation_requests) == 3
    rows = store.query("SELECT * FROM recognitions ORDER BY recognised DESC")
    assert [r["recognised"] for r in rows] == [1, 0, 0]
    assert rows[0]["answered_author"] == known["author"] and rows[0]["author_similarity"] == 1.0


def test_recognise_cli_reports_the_share(tmp_path: Path, user_model: Callable[..., Path]) -> None:
    from test_judge_panel import invoke, write_judge

    from poemetric.testing.servers import OpenAIServer

    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    with RunStore(run) as store:
        first = store.query("SELECT title, author FROM poems ORDER BY position")[0]
    answer = json.dumps({"title": first["title"], "author": first["author"]})
    with OpenAIServer(lambda call: answer, api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url)
        code, output = invoke(
            "judge", "recognise", "--run", str(run), "--judge", "j", "--no-progress"
        )
    assert code == 0, output
    assert "j: recognised 1 of 2 human poems (50.0%)" in output
    with RunStore(run) as store:
        (row,) = analyze_run(store).table("recognition").to_dict("records")
    assert (row["judge"], row["poems"], row["recognised"]) == ("j", 2, 1)
    assert row["recognised_share"] == 0.5


def test_recognise_refreshes_an_unparsable_cached_answer_only_when_asked(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    from test_judge_panel import invoke, write_judge

    from poemetric.testing.servers import OpenAIServer

    run = tmp_path / "run"
    prepared_store(run, poems=1).close()
    answers = ["Hmm, hard to say: {'title'"]
    with OpenAIServer(lambda call: answers[-1], api_key=TEST_KEY) as server:
        write_judge(user_model, "j", server.base_url)
        recognise = ["judge", "recognise", "--run", str(run), "--judge", "j", "--no-progress"]
        assert invoke(*recognise)[0] == 1  # unparsable: stored as an error
        answers.append('{"title": "", "author": ""}')
        assert invoke(*recognise)[0] == 1  # re-parsed from the cache, nobody asked
        assert len(server.generation_requests) == 1
        code, output = invoke(*recognise, "--refresh-failed-parses")
        assert code == 0, output
        assert len(server.generation_requests) == 2
    with RunStore(run) as store:
        (row,) = store.query("SELECT status, recognised FROM recognitions")
    assert (row["status"], row["recognised"]) == ("ok", 0)


def test_analysis_notes_the_recognise_answers_it_left_out(
    tmp_path: Path, user_model: Callable[..., Path]
) -> None:
    """`analyze` made the recognition table of the answers it could read and said nothing of
    the others: a judge with one unreadable answer of two showed `poems` 1 without a word (one
    whose every answer failed had no row at all)."""
    from test_judge_panel import invoke, write_judge

    from poemetric.testing.servers import OpenAIServer

    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    with RunStore(run) as store:
        first = store.query("SELECT title, author, content FROM poems ORDER BY position")[0]

    def respond(call: ChatCall) -> str:
        if first["content"].strip() in call.prompt:
            return json.dumps({"title": first["title"], "author": first["author"]})
        return "Here is a poem of my own:\nThe rain came down"

    with OpenAIServer(respond, api_key=TEST_KEY) as server:
        # Named by its display name, as the recognition table names it; the command keeps `j`.
        write_judge(user_model, "j", server.base_url, display_name="Judge J")
        code, _ = invoke("judge", "recognise", "--run", str(run), "--judge", "j", "--no-progress")
        assert code == 1
    with RunStore(run) as store:
        result = analyze_run(store)
    (row,) = result.table("recognition").to_dict("records")
    assert (row["judge"], row["poems"]) == ("j", 1)
    (note,) = [note for note in result.notes if "recognise answer" in note]
    assert note.startswith(
        "1 recognise answer of judge 'Judge J' failed and is left out of the recognition table "
        "(the first: unparsable answer"
    )
    assert note.endswith(
        f"`poemetric judge recognise --run {run} --judge j` reads the stored answers again, "
        "--refresh-failed-parses asks again"
    )
