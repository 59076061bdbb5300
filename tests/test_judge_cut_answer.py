"""An answer read although the token limit cut it: a numbered list whose last comment stops
mid-sentence has every score, so it is read; it was stored `ok` with the fragment as the
comment and nothing to tell it from a whole one (the judgments table keeps no finish reason).
Its parse notes now say it was cut, and a re-parse keeps that note.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_judge_answer_record import ONE, judge_spec, judgment, one_poem_run
from test_runner_support import TEST_KEY, TEST_KEY_ENV

from poemetric.judge.finish import CUT_ANSWER_NOTE
from poemetric.judge.reparse import reparse_run
from poemetric.judge.stage import run_judging
from poemetric.testing.servers import OpenAIServer, Reply

CUT_LIST = (
    "1. 4\n2. 5\n3. 3\n4. 4\n5. 2\n6. 3\n7. 4\n8. 0\n9. No devices to speak of.\n10. 4\n"
    "11. Solid and even.\n12. 2\n13. It reads as if the lines had been"
)


@pytest.fixture(autouse=True)
def _api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)


def test_an_answer_read_although_cut_says_so_in_its_notes(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    cut = Reply(text=CUT_LIST, finish_reason="length")
    with OpenAIServer(lambda call: cut, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url, settings={"max_tokens": 60})
        run_judging(store, spec, options=ONE, authors=["machine"])
        assert len(server.generation_requests) == 1  # its scores are read: nothing re-asked
    row = judgment(store)
    assert row["status"] == "ok" and row["human_authorship"] == 2
    assert row["comment_human_authorship"] == "It reads as if the lines had been"
    (note,) = [n for n in json.loads(row["parse_notes"]) if n.startswith(CUT_ANSWER_NOTE)]
    assert "finish reason 'length'" in note and "max_tokens 60" in note

    assert reparse_run(store).changed == 0  # the text alone cannot tell: the note stays
    assert json.loads(judgment(store)["parse_notes"]) == json.loads(row["parse_notes"])

    # Stored as an error by an earlier parser that could not read the list, the cut named in
    # its error: read now, it gets the note.
    store.conn.execute(
        "UPDATE judgments SET status = 'error', parse_notes = NULL, error = ?",
        ("unparsable answer: no answer; the answer was cut at the token limit (...)",),
    )
    assert len(reparse_run(store).now_ok) == 1
    assert any(n.startswith(CUT_ANSWER_NOTE) for n in json.loads(judgment(store)["parse_notes"]))


def test_an_answer_the_model_ended_gets_no_such_note(tmp_path: Path) -> None:
    store = one_poem_run(tmp_path)
    whole = Reply(text=CUT_LIST + " wound too tight.")
    with OpenAIServer(lambda call: whole, api_key=TEST_KEY) as server:
        spec = judge_spec("openai-compatible", server.base_url)
        run_judging(store, spec, options=ONE, authors=["machine"])
    notes = json.loads(judgment(store)["parse_notes"])
    assert notes and not any(n.startswith(CUT_ANSWER_NOTE) for n in notes)
