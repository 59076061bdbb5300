"""A mistyped form in a dataset file is named with the form it looks like.

`dataset validate` said only "unknown form 'sonet'; expected one of ..." where `form check` of
the same file said "did you mean 'sonnet'?" (and every other mistyped name in POEMetric is
answered so): a scholar's spreadsheet with `sonet`, `Limerik` or `limerick(s)` was left to
find the difference by eye. A form that resembles none (`Haiku`) gets no guess; nothing is
corrected silently: the row is still an error.

A plural or another spelling the form checker reads as a form (`Sonnets`, `ghazals`, `ghazel`)
was refused by the dataset while `form check` of the same file checked it: the dataset now reads
a form as the checker does (its `normalize_form`).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.data import PoemForm, load_dataset
from poemetric.form_names import normalize_form

COLUMNS = ["form", "title", "author", "content", "meter_pattern", "rhyme_pattern", "theme"]
POEM = "A cat on the mat\nSat flat as a hat\nAnd that was that."
KNOWN = "expected one of ballad, ghazal, limerick, pantoum, sestina, sonnet, villanelle"


def _validate(tmp_path: Path, form: str) -> list[str]:
    data = tmp_path / "poems.csv"
    with data.open("w", encoding="utf-8-sig", newline="") as stream:
        writer = csv.writer(stream, lineterminator="\r\n")
        writer.writerow(COLUMNS)
        writer.writerow([form, "Mat", "Ann Example", POEM, "", "AAA", "cats"])
        writer.writerow(
            ["limerick", "Mat 2", "Ann Example", POEM + "\nOr so.\nI hope.", "", "", ""]
        )
    result = CliRunner().invoke(app, ["dataset", "validate", str(data)])
    assert result.exit_code == 1, result.output
    return [line for line in result.output.splitlines() if line.startswith(f"{data}:")]


@pytest.mark.parametrize(
    ("form", "meant"),
    [
        ("sonet", "sonnet"),
        ("Limerik", "limerick"),
        ("limerick(s)", "limerick"),
        ("viilanele", "villanelle"),
    ],
)
def test_a_mistyped_form_names_the_form_it_looks_like(
    tmp_path: Path, form: str, meant: str
) -> None:
    (line,) = _validate(tmp_path, form)
    data = tmp_path / "poems.csv"
    assert line == f"{data}:2: form: unknown form {form!r}; {KNOWN}; did you mean {meant!r}?"


def test_a_form_like_none_gets_no_guess(tmp_path: Path) -> None:
    (line,) = _validate(tmp_path, "Haiku")
    assert line == f"{tmp_path / 'poems.csv'}:2: form: unknown form 'Haiku'; {KNOWN}"


@pytest.mark.parametrize("form", ["petrarchan sonnet", "Shakespearean Sonnet"])
def test_a_sonnet_named_with_its_kind_is_told_to_give_the_form_alone(
    tmp_path: Path, form: str
) -> None:
    """'petrarchan sonnet' was "unknown form" with no guess, where `form check` said 'sonnet'."""
    (line,) = _validate(tmp_path, form)
    data = tmp_path / "poems.csv"
    assert line == (
        f"{data}:2: form: unknown form {form!r}; {KNOWN}; did you mean 'sonnet'? (give the form "
        "alone: a kind such as Petrarchan or Shakespearean is told by the rhyme_pattern, "
        "'ABBAABBA CDECDE' or 'ABAB CDCD EFEF GG')"
    )


def test_an_empty_form_is_said_to_be_empty(tmp_path: Path) -> None:
    """An empty cell was "unknown form ''", as if '' were a form POEMetric lacks."""
    (line,) = _validate(tmp_path, "  ")
    assert line == (
        f"{tmp_path / 'poems.csv'}:2: form: empty form: every poem needs one of ballad, ghazal, "
        "limerick, pantoum, sestina, sonnet, villanelle"
    )


@pytest.mark.parametrize(
    ("form", "named", "not_it"),
    [("Ballade", "ballade", "ballad"), ("Double-Sestina", "double sestina", "sestina")],
)
def test_a_form_of_its_own_is_not_taken_for_the_form_it_looks_like(
    tmp_path: Path, form: str, named: str, not_it: str
) -> None:
    """A ballade was told "did you mean 'ballad'?" (a double sestina 'sestina'), so a user
    relabelled it and had models prompted for ballads and ballades checked as ballads, where
    the form checker reads a ballade as the French form it is."""
    (line,) = _validate(tmp_path, form)
    assert line.startswith(f"{tmp_path / 'poems.csv'}:2: form: unknown form {form!r}; {KNOWN}; ")
    assert "did you mean" not in line and f"not a {not_it}:" in line
    assert line.endswith(f"`form scan --form '{named}'` check a {named})")


SPELLINGS = ["Sonnets", "  LIMERICKS ", "ghazals", "ghazel", "Villanelles", "sestinas", "Pantoums"]


@pytest.mark.parametrize("form", SPELLINGS)
def test_a_form_the_checker_reads_is_read_as_that_form(tmp_path: Path, form: str) -> None:
    data = tmp_path / "poems.csv"
    with data.open("w", encoding="utf-8", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(COLUMNS)
        writer.writerow([form, "Mat", "Ann Example", POEM, "", "", "cats"])
    (poem,) = load_dataset(data).poems
    assert poem.form.value == normalize_form(form) == PoemForm.parse(form.lower()).value
    assert poem.poem_id.startswith(f"{poem.form.value}-ann-example-mat-")
