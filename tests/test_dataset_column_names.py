"""`dataset validate` named the rename of a `poem` (or `text`) column to `content`, but a file
with the other usual names of the schema's columns (`poet` for `author`, `Poem Name` for
`title`, `meter`, `rhyme_scheme`, `topic`) was only "missing column headers" beside "ignored
columns": it now says what to rename them to, in CSV and JSONL files alike."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app

runner = CliRunner()


def _problems(path: Path) -> list[str]:
    result = runner.invoke(app, ["dataset", "validate", str(path)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    return [line for line in result.output.splitlines() if line.startswith(str(path))]


def test_a_poet_column_is_named_with_its_rename_to_author(tmp_path: Path) -> None:
    csv_file = tmp_path / "poems.csv"
    csv_file.write_text(
        'form,title,poet,poem,meter_pattern,rhyme_pattern,theme\nsonnet,T,A,"one\ntwo",,,\n',
        encoding="utf-8",
    )
    assert _problems(csv_file) == [
        f"{csv_file}:1: author, content: missing column headers (required: form, title, author, "
        "content, meter_pattern, rhyme_pattern, theme); the dataset schema calls the poem column "
        "'content' ('poem' is the column `form check` reads): rename 'poem' to 'content'; the "
        "dataset schema names this column differently: rename 'poet' to 'author'"
    ]


def test_other_usual_names_and_other_spellings_are_named_together(tmp_path: Path) -> None:
    csv_file = tmp_path / "poems.csv"
    header = "Form,Poem Name,Poet,content,Meter,rhyme_scheme,Topic"
    csv_file.write_text(f'{header}\nsonnet,T,A,"one\ntwo",,,\n', encoding="utf-8")
    (problem,) = _problems(csv_file)
    assert problem.endswith(
        "; column names are exact (lower case, as in the schema): rename 'Form' to 'form'; the "
        "dataset schema names these columns differently: rename 'Poem Name' to 'title', 'Poet' "
        "to 'author', 'Meter' to 'meter_pattern', 'rhyme_scheme' to 'rhyme_pattern', 'Topic' to "
        "'theme'"
    )


def test_a_jsonl_poet_key_is_named_once_not_on_every_record(tmp_path: Path) -> None:
    jsonl = tmp_path / "poems.jsonl"
    record = {"form": "sonnet", "title": "T", "poet": "A", "content": "one\ntwo"}
    record.update(meter_pattern="", rhyme_pattern="", theme="")
    jsonl.write_text("".join(json.dumps({**record, "title": f"T{i}"}) + "\n" for i in range(3)))
    assert _problems(jsonl) == [
        f"{jsonl}: author: no record has the key 'author'; the dataset schema names this column "
        "differently: rename 'poet' to 'author'"
    ]


def test_a_poem_text_and_a_scheme_column_are_named_with_their_renames(tmp_path: Path) -> None:
    """`poem_text` and `scheme` (a researcher's own names) were left out of the renames, so the
    hint named five of the seven columns and left the poem's own column to be guessed."""
    csv_file = tmp_path / "poems.csv"
    header = "poem_title,poet,poem_form,metre,scheme,topic,poem_text"
    csv_file.write_text(f'\ufeff{header}\r\nT,A,sonnet,,,,"one\r\ntwo"\r\n', encoding="utf-8")
    (problem,) = _problems(csv_file)
    assert problem.endswith(
        "rename 'poem_form' to 'form', 'poem_title' to 'title', 'poet' to 'author', 'poem_text' "
        "to 'content', 'metre' to 'meter_pattern', 'scheme' to 'rhyme_pattern', 'topic' to 'theme'"
    )
    checked = runner.invoke(app, ["form", "check", str(csv_file), "-o", str(tmp_path / "c.csv")])
    assert checked.exit_code == 2
    assert " ".join(checked.output.split()).endswith(
        "the dataset schema names these columns differently: rename 'poem_text' to 'content', "
        "'poem_form' to 'form'"
    ), checked.output
