"""Which id `poemetric form check` writes: a dataset file without an id column got its record
numbers ("1", "2", ...), which joined with nothing in a run prepared from the same file (the
run stores the loader's derived poem ids). The poems here were written for these tests."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.data.schema import ID_SOURCE_COLUMNS
from poemetric.form.io import DATASET_ID_COLUMNS
from poemetric.store import RunStore

runner = CliRunner()

COLUMNS = ["form", "title", "author", "content", "meter_pattern", "rhyme_pattern", "theme"]


def _limerick(thing: str) -> str:
    return (
        f"A {thing} that lived down by the quay\n"
        "Would dream of the wide open sea;\n"
        "It sailed in a cup,\n"
        "Till the tide took it up,\n"
        "And it never came home for its tea."
    )


def _rows() -> list[dict[str, str]]:
    return [
        {
            "form": "Limerick",
            "title": f"The {thing.title()}",
            "author": "Nobody Known",
            "content": _limerick(thing),
            "meter_pattern": "anapestic",
            "rhyme_pattern": "aabba",
            "theme": "a small voyage",
        }
        for thing in ("kettle", "thimble", "lantern")
    ]


def _write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _ids(source: Path, tmp_path: Path) -> list[str]:
    out = tmp_path / f"{source.stem}-{source.suffix[1:]}-checks.jsonl"
    result = runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    assert result.exit_code in (0, 1), result.output
    return [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()]


def test_a_dataset_file_without_ids_gets_the_poem_ids_of_a_run_prepared_from_it(
    tmp_path: Path,
) -> None:
    csv_file = _write_csv(tmp_path / "mine.csv", _rows())
    jsonl_file = tmp_path / "mine.jsonl"
    jsonl_file.write_text("".join(json.dumps(row) + "\n" for row in _rows()), encoding="utf-8")
    run = tmp_path / "run"
    made = runner.invoke(
        app,
        ["generate", "--run", str(run), "--dataset", str(csv_file), "--models", "markov",
         "--no-progress"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    with RunStore(run) as store:
        stored = [str(r[0]) for r in store.query("SELECT poem_id FROM poems ORDER BY position")]
        joined = {str(r[0]) for r in store.query("SELECT poem_id FROM generations")}
    assert len(stored) == 3 and stored[0].startswith("limerick-nobody-known-the-kettle-")
    for source in (csv_file, jsonl_file):
        ids = _ids(source, tmp_path)
        assert ids == stored, source.name  # was ["1", "2", "3"]
        assert set(ids) == joined


def test_ids_given_in_the_file_are_kept_and_a_blank_one_is_derived(tmp_path: Path) -> None:
    rows = [{"id": poem_id, **row} for poem_id, row in zip(("k1", "", "k3"), _rows(), strict=True)]
    ids = _ids(_write_csv(tmp_path / "with_ids.csv", rows), tmp_path)
    assert ids[0] == "k1" and ids[2] == "k3"
    # A blank id cell means "derive it" to the loader, so the run has this id.
    assert ids[1].startswith("limerick-nobody-known-the-thimble-")


def test_raw_answers_and_unusable_dataset_records_keep_their_record_numbers(
    tmp_path: Path,
) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"form": "limerick", "response": _limerick(thing)}) + "\n"
            for thing in ("kettle", "thimble")
        ),
        encoding="utf-8",
    )
    assert _ids(answers, tmp_path) == ["1", "2"]
    rows = _rows()
    rows[1]["author"] = ""  # the loader rejects it: no run has a poem for it
    ids = _ids(_write_csv(tmp_path / "partly.csv", rows), tmp_path)
    assert ids[1] == "2" and ids[0].startswith("limerick-") and ids[2].startswith("limerick-")


def test_form_check_reads_the_columns_the_loader_derives_ids_from() -> None:
    assert tuple(DATASET_ID_COLUMNS) == tuple(ID_SOURCE_COLUMNS)


def test_a_dataset_file_with_poem_id_and_id_gets_the_ids_the_run_stores(tmp_path: Path) -> None:
    """Both columns, different values: `form check` took `id` first (for answers files) while
    the loader, and so a run prepared from the file, took `poem_id`; and the loader took a blank
    `poem_id` cell as "derive it", hiding the row's `id`. One rule now: the first non-empty of
    `poem_id`, `id`, else derived."""
    given = [("p-kettle", "row-1"), ("", "row-2"), ("", "")]
    rows = [
        {"poem_id": poem_id, "id": row_id, **row}
        for (poem_id, row_id), row in zip(given, _rows(), strict=True)
    ]
    source = _write_csv(tmp_path / "both.csv", rows)
    run = tmp_path / "run"
    made = runner.invoke(
        app,
        ["generate", "--run", str(run), "--dataset", str(source), "--models", "markov",
         "--no-progress"],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    with RunStore(run) as store:
        stored = [str(r[0]) for r in store.query("SELECT poem_id FROM poems ORDER BY position")]
    assert stored[:2] == ["p-kettle", "row-2"]  # the second was derived
    assert stored[2].startswith("limerick-nobody-known-the-lantern-")
    assert _ids(source, tmp_path) == stored  # was ["row-1", "row-2", ...]
