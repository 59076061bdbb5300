"""`poemetric form scan`'s rhyme column: letters are shared only by rhymes the scheme inference
counts (perfect, slant); an eye rhyme (*though/through*) gets a letter of its own and a note, not
the letter of the word it looks like. Poems are written for these tests."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.form.checker import check_poem
from poemetric.form.forms import SONNET_SCHEMES
from poemetric.form.scan_letters import scan_letters
from tests.test_form_scan_extract import SONNET as AUTUMN_SONNET

runner = CliRunner()

#: Lines 1/3 (though/through) and 2/4 (five/give) rhyme to the eye only; 5/7 (said/spread)
#: rhyme perfectly, 6/8 (come/home) as a slant rhyme.
EYE_RHYMES = """The evening settled on the yard, and though
the kitchen clock had struck the hour of five,
I watched the swallows threading in and through
the rafters, as if they had time to give.
My mother called me in, and then she said
the supper would not wait for me to come,
so I went in to where the bread was spread
and found the kitchen warm, and all at home."""

#: Rhymed throughout, perfectly: no note column.
RHYMED = """The lamp is lit, the curtains drawn,
the cat asleep upon the chair;
the garden waits for frost and dawn,
and silence settles on the stair."""


def _scan(tmp_path: Path, text: str, form: str) -> tuple[dict[str, list[str]], str]:
    """The table's columns by header (one row per line: a wide terminal) and the output."""
    poem = tmp_path / "poem.txt"
    poem.write_text(text, encoding="utf-8")
    result = runner.invoke(
        app, ["form", "scan", str(poem), "--form", form, "--no-extract"], env={"COLUMNS": "300"}
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("┃"))
    names = [cell.strip() for cell in header.strip("┃").split("┃")]
    rows = [
        [cell.strip() for cell in line.strip("│").split("│")]
        for line in lines
        if line.startswith("│")
    ]
    return {name: [row[k] for row in rows] for k, name in enumerate(names)}, result.stdout


def test_scan_gives_eye_rhymes_their_own_letter_and_a_note(tmp_path: Path) -> None:
    columns, output = _scan(tmp_path, EYE_RHYMES, "ballad")
    assert "".join(columns["rhyme"]) == "ABCDEFEF"  # was ABABCDCD
    assert columns.get("note") == [
        "",
        "",
        "eye rhyme with line 1 (though/through)",
        "eye rhyme with line 2 (five/give)",
        "",
        "",
        "",
        "",
    ]
    # The display changed, not the verdict: the same summary as `form check`'s.
    assert check_poem(EYE_RHYMES, "ballad").summary in output.replace("\n", " ")


def test_scan_letters_of_a_sonnet_are_the_scheme_it_passes_with(tmp_path: Path) -> None:
    """*lines* (line 10) does not rhyme with *sheaves* (line 7): shown as one letter, the sonnet
    read ABABCDCD ECEC FF while the checker passed it as Shakespearean. The two share only the
    inflection -es, so they are not an eye rhyme either (the note said they were)."""
    columns, _ = _scan(tmp_path, AUTUMN_SONNET, "sonnet")
    result = check_poem(AUTUMN_SONNET, "sonnet")
    assert result.passed and result.facts["scheme"].startswith("Shakespearean")
    assert "".join(columns["rhyme"]) == SONNET_SCHEMES["Shakespearean"]  # was ABABCDCDECECFF
    assert "note" not in columns  # was "eye rhyme with line 7 (sheaves/lines)" on line 10


def test_scan_has_no_note_column_without_eye_rhymes(tmp_path: Path) -> None:
    columns, _ = _scan(tmp_path, RHYMED, "ballad")
    assert "".join(columns["rhyme"]) == "ABAB" and "note" not in columns


def test_slant_rhymes_share_a_letter_and_historical_ones_are_named() -> None:
    shown = scan_letters(["love", "move", "though", "through", "great", "treat", "come", "home"])
    assert shown.letters == "AABCDEFF"
    assert shown.notes[3] == "eye rhyme with line 3 (though/through)"
    assert shown.notes[5] == "historical rhyme with line 5 (great/treat)"
    assert sum(bool(note) for note in shown.notes) == 2
