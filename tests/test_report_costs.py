"""The report's total cost is every paid call of the run: `judge recognise` (and the other
stages with tables of their own) included, not only generations and judgments."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_runner_support import TEST_KEY, TEST_KEY_ENV, openai_spec, prepared_store

from poemetric.judge.recognise import run_recognition
from poemetric.report import build_report
from poemetric.testing.servers import OpenAIServer


def test_total_cost_counts_judge_recognise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TEST_KEY_ENV, TEST_KEY)
    store = prepared_store(tmp_path / "run", poems=2)
    answer = json.dumps({"title": "", "author": ""})
    with OpenAIServer(lambda call: answer, api_key=TEST_KEY) as server:
        run_recognition(store, [openai_spec(server.base_url, name="judge-r")])
    (row,) = store.query("SELECT SUM(cost_usd) AS cost FROM recognitions")
    paid = float(row["cost"])
    assert paid > 0
    page = build_report(store).read_text(encoding="utf-8")
    store.close()
    found = re.search(r"<dt>Total cost</dt><dd>([0-9.]+) USD([^<]*)</dd>", page)
    assert found is not None
    assert float(found.group(1)) == pytest.approx(round(paid, 4))  # was 0.0000
    assert found.group(2) == f" (generation 0.0000, judging 0.0000, judge recognise {paid:.4f})"
