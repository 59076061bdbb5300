"""`poemetric export` in CSV writes an N/A answer (imagery, literary devices) as `NA`, not 0.

The store keeps N/A as 0 ("0 - N/A (No imagery is used)"); written so into judgments.csv, a
spreadsheet's AVERAGE of the `imagery` column (or pandas' `mean()`) counted each N/A as a score
below the scale's 1, and a column of half N/A answers averaged about half its true mean. `NA` is
what pandas and R read as missing and what a spreadsheet's mean passes over; a blank cell stays
"no score" (an unparsable answer, a comment's row). JSONL and Parquet keep the stored 0.
"""

from __future__ import annotations

import csv
import json
import threading
from pathlib import Path

import pandas as pd
import pytest
from test_runner_support import (
    FAST,
    TEST_KEY,
    TEST_KEY_ENV,
    openai_spec,
    prepared_store,
    scripted_spec,
    use_scripted,
)
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.judge.stage import run_judging
from poemetric.questionnaire import COMMENTS
from poemetric.store import RunStore
from poemetric.survey.db import import_answers
from poemetric.testing.servers import ChatCall, OpenAIServer

runner = CliRunner()


def _answer(imagery: object, devices: object) -> str:
    scores = {"1": 4, "2": 5, "3": 3, "4": 4, "5": 2, "6": 3, "10": 4, "12": 2}
    comments = {"9": "none", "11": "solid", "13": "regular"}
    return json.dumps({**scores, "7": imagery, "8": devices, **comments})


class Answers:
    """Imagery N/A on every other poem (as "N/A" and as 0), literary devices always scored;
    the last call garbled (an error row: every score blank)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answers = [
            _answer("N/A", 2),
            _answer(4, 3),
            _answer(0, 5),
            _answer(5, 1),
            _answer("N/A", 4),
            "I liked it.",
        ]

    def __call__(self, call: ChatCall) -> str:
        with self.lock:
            return self.answers.pop(0)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run of 3 poems by 2 authors judged once each (3 imagery N/A, one error row), and an
    expert's answers: form 4, imagery N/A, a comment."""
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    use_scripted()
    store = prepared_store(tmp_path / "run", poems=3)
    run_generation(store, [scripted_spec(name="machine")], options=FAST)
    with OpenAIServer(Answers(), api_key=TEST_KEY) as server:
        judge = openai_spec(server.base_url, name="test-judge", max_concurrency=1)
        report = run_judging(store, judge.model_copy(update={"reask": 0}), options=FAST)
    assert report.models[0].ok == 5 and report.errors == 1
    (gid,) = store.query("SELECT generation_id FROM generations LIMIT 1")[0]
    rows = [("E1", gid, "form", 4.0, None), ("E1", gid, "imagery", 0.0, None),
            ("E1", gid, COMMENTS[0].key, None, "Plain, but it scans.")]  # fmt: skip
    import_answers(store, "sheets", rows, source="sheets.csv", config={})
    store.close()
    return tmp_path / "run"


def _export(run: Path, out: Path, fmt: str) -> None:
    args = ["export", "judgments", "survey_answers", "--run", str(run), "--to", str(out)]
    result = runner.invoke(app, [*args, "--format", fmt])
    assert result.exit_code == 0, result.output


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_csv_writes_na_answers_as_na_and_their_means_leave_them_out(
    run: Path, tmp_path: Path
) -> None:
    _export(run, tmp_path / "csv", "csv")
    rows = _csv(tmp_path / "csv" / "judgments.csv")
    by_status = {status: [r for r in rows if r["status"] == status] for status in ("ok", "error")}
    assert sorted(r["imagery"] for r in by_status["ok"]) == ["4", "5", "NA", "NA", "NA"]
    assert sorted(r["literary_devices"] for r in by_status["ok"]) == ["1", "2", "3", "4", "5"]
    assert [(r["imagery"], r["form"]) for r in by_status["error"]] == [("", "")]
    # A mean of the column, as pandas (and a spreadsheet) computes it, is over the scores only.
    frame = pd.read_csv(tmp_path / "csv" / "judgments.csv")
    assert frame["imagery"].mean() == pytest.approx(4.5)
    assert frame["literary_devices"].mean() == pytest.approx(3.0)
    # The store keeps 0, as the parser gave it.
    with RunStore(run, create=False) as store:
        stored = [r[0] for r in store.query("SELECT imagery FROM judgments WHERE status = 'ok'")]
    assert sorted(stored) == [0, 0, 0, 4, 5]

    answers = {r["question"]: r["score"] for r in _csv(tmp_path / "csv" / "survey_answers.csv")}
    assert answers == {"form": "4", "imagery": "NA", COMMENTS[0].key: ""}


def test_exported_survey_answers_with_na_import_as_they_were(run: Path, tmp_path: Path) -> None:
    """The CSV is still one `survey import` reads back: N/A stored as 0 again."""
    _export(run, tmp_path / "csv", "csv")
    answers = tmp_path / "csv" / "survey_answers.csv"
    imported = runner.invoke(app, ["survey", "import", str(answers), "--run", str(run),
                                   "--survey", "copy"])  # fmt: skip
    assert imported.exit_code == 0, imported.output
    query = "SELECT rater_id, generation_id, question, score, text FROM survey_answers "
    with RunStore(run, create=False) as store:
        original = [tuple(r) for r in store.query(query + "WHERE survey_id = 'sheets' ORDER BY 3")]
        copied = [tuple(r) for r in store.query(query + "WHERE survey_id = 'copy' ORDER BY 3")]
    assert copied == original and any(row[2:4] == ("imagery", 0) for row in copied)


def test_jsonl_and_parquet_keep_the_stored_zero(run: Path, tmp_path: Path) -> None:
    _export(run, tmp_path / "jsonl", "jsonl")
    _export(run, tmp_path / "parquet", "parquet")
    lines = (tmp_path / "jsonl" / "judgments.jsonl").read_text(encoding="utf-8").splitlines()
    imagery = sorted(r["imagery"] for r in map(json.loads, lines) if r["status"] == "ok")
    assert imagery == [0, 0, 0, 4, 5]
    frame = pd.read_parquet(tmp_path / "parquet" / "judgments.parquet")
    assert sorted(frame.loc[frame["status"] == "ok", "imagery"]) == [0, 0, 0, 4, 5]


def test_agree_reads_an_exported_na_as_n_a(run: Path, tmp_path: Path) -> None:
    _export(run, tmp_path / "csv", "csv")
    answers = tmp_path / "csv" / "survey_answers.csv"
    result = runner.invoke(app, ["agree", str(answers), "--format", "json", "--bootstrap", "0"])
    assert result.exit_code == 0, result.output
    items = json.loads(result.stdout)["items"]
    assert (items["imagery"]["n_na"], items["form"]["n_na"]) == (1, 0)
