"""`poemetric export` (CSV) of a text holding a carriage return without a line feed.

Python's csv writer, which pandas writes through, quotes a field holding a character of its line
terminator ("\\n" here) but not a bare "\\r": a model that broke its lines with "\\r" had its
`response_text` written unquoted, and the file read back with an extra row for each break
(pandas) or not at all (the csv module: "new-line character seen in unquoted field").
"""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.generation.stage import run_generation
from poemetric.providers.base import Completion, GenerationRequest

ANSWER = "Old-Mac line breaks\rfrom a local model\rthat writes CR only"


def _answer(request: GenerationRequest, number: int) -> Completion:
    return Completion(text=ANSWER, raw={"n": number})


def _export(run: Path, destination: Path) -> None:
    args = ["export", "generations", "--run", str(run), "--to", str(destination)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output


def test_a_bare_carriage_return_reads_back_in_its_row(tmp_path: Path) -> None:
    run = tmp_path / "run"
    use_scripted(_answer)
    with prepared_store(run, poems=3) as store:
        run_generation(store, [scripted_spec(name="cr-model")], options=FAST)
        stored = store.query("SELECT generation_id, response_text FROM generations ORDER BY 1")
    use_scripted()
    assert [text for _, text in stored].count(ANSWER) == 3
    _export(run, tmp_path / "generations.csv")

    frame = pd.read_csv(tmp_path / "generations.csv", keep_default_na=False)
    assert len(frame) == len(stored)
    by_id = dict(zip(frame["generation_id"], frame["response_text"], strict=True))
    assert by_id == {gid: text or "" for gid, text in stored}
    assert frame["sample_index"].tolist() == [0] * len(stored)  # numbers still numbers

    with (tmp_path / "generations.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["response_text"] for row in rows).count(ANSWER) == 3


def test_files_without_one_are_written_as_before(tmp_path: Path) -> None:
    """Only a file holding such a text is quoted whole; others keep minimal quoting."""
    run = tmp_path / "run"
    use_scripted()
    with prepared_store(run, poems=2) as store:
        run_generation(store, [scripted_spec(name="plain")], options=FAST)
    _export(run, tmp_path / "generations.csv")
    header = (tmp_path / "generations.csv").read_text(encoding="utf-8").split("\n", 1)[0]
    assert header.startswith("generation_id,prompt_id,poem_id,author,")
