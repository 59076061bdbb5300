"""Poem schema, loaders (CSV/TSV/JSONL/Parquet), validation and the bundled demo dataset."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from pathlib import Path

import pytest

from poemetric.data import (
    POEMETRIC_COLUMNS,
    DatasetError,
    Poem,
    PoemForm,
    dataset_registry,
    derive_poem_id,
    load_dataset,
    rhyme_groups,
    validate_file,
    write_dataset,
)
from poemetric.store.db import RunStore

LIMERICK = "A first line here,\nA second line near,\nA third one short,\nA fourth of a sort,\nAnd the last line is clear."


def poem_row(**overrides: str) -> dict[str, str]:
    row = {column: "" for column in POEMETRIC_COLUMNS}
    row.update(form="Limerick", source="test", title="A Test", author="Nobody", content=LIMERICK)
    row.update(overrides)
    return row


def write_csv(path: Path, rows: list[dict[str, str]], *, bom: bool = False) -> Path:
    columns = list(rows[0]) if rows else list(POEMETRIC_COLUMNS)
    with path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


# -- the Poem model ------------------------------------------------------------------------
def test_form_is_case_insensitive_and_unknown_forms_are_rejected() -> None:
    assert Poem.model_validate(poem_row(form="LIMERICK")).form is PoemForm.LIMERICK
    assert Poem.model_validate(poem_row(form=" sonnet ")).form is PoemForm.SONNET
    with pytest.raises(ValueError, match="unknown form 'Haiku'"):
        Poem.model_validate(poem_row(form="Haiku"))


def test_rhyme_pattern_is_normalised_and_validated() -> None:
    poem = Poem.model_validate(poem_row(rhyme_pattern=" ababcdcd  efef gg "))
    assert poem.rhyme_pattern == "ABABCDCD EFEF GG"
    assert poem.rhyme_groups == ["ABABCDCD", "EFEF", "GG"]
    assert rhyme_groups(None) == []
    assert Poem.model_validate(poem_row(rhyme_pattern="")).rhyme_pattern is None
    for bad in ("AB1B", "ABAB/CDCD", "ÄBAB"):
        with pytest.raises(ValueError, match="bad rhyme pattern"):
            Poem.model_validate(poem_row(rhyme_pattern=bad))


@pytest.mark.parametrize("missing", ["None", "none", "NULL", "nan", "NA", "unknown", "N/A"])
def test_a_word_for_a_missing_rhyme_pattern_is_refused(missing: str) -> None:
    """Upper-cased, `None` is letters: it was read as the scheme N-O-N-E (a human limerick then
    failed its own rhyme check, 0.33, "lines 1 and 3 should rhyme (N)") and sent to every model
    as "Rhyme scheme: NONE.". `unknown`, which the prompt leaves out as a missing value, was
    still read as the scheme UNKNOWN: the model was told no scheme and checked against that
    one (the human limerick itself 0.0 of 2 required rhymes)."""
    with pytest.raises(ValueError, match=r"a word for a missing value.*leave the cell empty"):
        Poem.model_validate(poem_row(rhyme_pattern=missing))


def test_a_villanelles_refrain_numbers_are_named() -> None:
    """`A1bA2 abA1 ...`, the usual notation of a villanelle's refrains (which `form check
    --rhyme` reads), was refused with only "use letters A-Z", as if the letters were missing;
    the refusal now names the pattern without the numbers. A lone digit stays a typo."""
    for written, bare in (
        ("A1bA2 abA1 abA2 abA1 abA2 abA1A2", "ABA ABA ABA ABA ABA ABAA"),
        ("A¹bA² abA¹", "ABA ABA"),
    ):
        with pytest.raises(ValueError) as refused:
            Poem.model_validate(poem_row(form="villanelle", rhyme_pattern=written))
        assert f"no refrain numbers ({bare!r}: the form checks its refrains)" in str(refused.value)
    with pytest.raises(ValueError) as refused:
        Poem.model_validate(poem_row(rhyme_pattern="AB1B CC"))
    assert "refrain" not in str(refused.value) and "(e.g. 'ABABCDCDEFEF GG')" in str(refused.value)


def test_year_accepts_floats_blanks_and_life_dates() -> None:
    assert Poem.model_validate(poem_row(year="1850.0")).year == 1850
    assert Poem.model_validate(poem_row(year="1846")).year == 1846
    assert Poem.model_validate(poem_row(year="")).year is None
    lifespan = Poem.model_validate(poem_row(year="1897 - 1965"))
    assert (lifespan.year, lifespan.author_dates) == (None, "1897 - 1965")
    assert Poem.model_validate(poem_row(year="1946 - ")).author_dates == "1946 -"
    with pytest.raises(ValueError, match="bad year"):
        Poem.model_validate(poem_row(year="c. 1850"))


def test_a_boolean_year_is_refused_not_read_as_1(tmp_path: Path) -> None:
    """A JSON `true` (or a Parquet boolean) in `year` was read as the year 1 (0 for false)."""
    for flag in (True, False):
        with pytest.raises(ValueError, match="bad year"):
            Poem.model_validate(poem_row(year=flag))
    path = tmp_path / "poems.jsonl"
    path.write_text(json.dumps({**poem_row(), "year": True}) + "\n", encoding="utf-8")
    report = validate_file(path)
    assert [str(issue) for issue in report.issues] == [
        f"{path}:1: year: bad year True: expected a year such as 1850 (or empty)"
    ]


def test_content_is_normalised_and_empty_poems_are_invalid() -> None:
    poem = Poem.model_validate(
        poem_row(content="\r\n  One line   \r\nTwo\t\r\n\r\n\r\nThree\r\n\r\n")
    )
    assert poem.content == "  One line\nTwo\n\n\nThree"
    assert poem.lines == ["  One line", "Two", "Three"]
    assert poem.stanzas == [["  One line", "Two"], ["Three"]]
    for empty in ("", "   \n \r\n"):
        with pytest.raises(ValueError, match="empty poem"):
            Poem.model_validate(poem_row(content=empty))


def test_unicode_line_separators_are_line_breaks(tmp_path: Path) -> None:
    """A poem pasted with U+2028 LINE SEPARATOR (or Word's manual line break, U+000B) between its
    lines, and U+2029 between stanzas, was read as one line: `validate` passed it, and the form
    check failed the human poem (0 lines)."""
    from poemetric.form.checker import check_poem

    limerick = (
        "There once was a baker named Sue\u2028Who baked a fine loaf in a shoe.\u000b"
        "It rose in the heat,\u2028Smelled of leather and feet,\u2029"
        "And she sold it by quarter past two."
    )
    path = tmp_path / "poems.jsonl"
    row = poem_row(form="limerick", content=limerick, rhyme_pattern="AABBA", meter_pattern="")
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (poem,) = load_dataset(path).poems
    assert poem.lines[1:3] == ["Who baked a fine loaf in a shoe.", "It rose in the heat,"]
    assert [len(stanza) for stanza in poem.stanzas] == [4, 1]
    assert check_poem(poem.content, "limerick", rhyme="AABBA").lines == 5


def test_nel_is_not_a_line_break(tmp_path: Path) -> None:
    """U+0085 in scraped text is Windows-1252's ellipsis read as Latin-1, mid-line: a line
    break there would cut a line in two and fail the poem's form."""
    mangled = "The wind was still\u0085 and then it blew\nAcross the moor the whole night through"
    row = poem_row(form="ballad", content=mangled, rhyme_pattern="", meter_pattern="")
    path = tmp_path / "poems.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (poem,) = load_dataset(path).poems
    assert len(poem.lines) == 2 and "\u0085" in poem.lines[0]


def test_meter_is_kept_raw_and_blank_optionals_become_none() -> None:
    poem = Poem.model_validate(
        poem_row(meter_pattern=" Anapestic trimeter ", theme=" ", imagery="")
    )
    assert poem.meter_pattern == "Anapestic trimeter"
    assert poem.theme is None and poem.imagery is None and poem.link is None


def test_derived_ids_are_stable_and_distinguish_poems() -> None:
    first = Poem.model_validate(poem_row())
    again = Poem.model_validate(poem_row(content=LIMERICK.replace("\n", "\r\n") + "  \n"))
    other_text = Poem.model_validate(poem_row(content=LIMERICK + "\nAn extra line."))
    assert first.poem_id == again.poem_id  # line endings and trailing blanks do not matter
    assert first.poem_id != other_text.poem_id  # same title/author, different text
    assert re.fullmatch(r"limerick-nobody-a-test-[0-9a-f]{8}", first.poem_id)
    content_hash = hashlib.sha256(LIMERICK.encode()).hexdigest()[:8]
    assert derive_poem_id("limerick", "Nobody", "A Test", LIMERICK).endswith(content_hash)
    long_id = derive_poem_id("sonnet", "Ann Author", "word " * 40, "text")
    assert len(long_id) <= len("sonnet-") + 60 + 9 and not long_id.split("-")[-2].endswith("wor")


def test_explicit_id_column_wins() -> None:
    assert Poem.model_validate({**poem_row(), "id": "p-001"}).poem_id == "p-001"
    assert Poem.model_validate({**poem_row(), "poem_id": "p:2"}).poem_id == "p:2"
    with pytest.raises(ValueError, match="bad poem id"):
        Poem.model_validate({**poem_row(), "poem_id": "has space"})


# -- files ---------------------------------------------------------------------------------
def test_demo_dataset_loads_validates_and_matches_registry() -> None:
    dataset = load_dataset("demo")
    entry = dataset_registry()["demo"]
    assert len(dataset) == entry.poems and len(dataset) >= 15
    assert dataset.sha256 == entry.sha256
    assert validate_file(dataset.path).ok
    counts = dataset.form_counts()
    assert counts[PoemForm.SONNET] >= 4 and counts[PoemForm.LIMERICK] >= 4
    assert {PoemForm.BALLAD, PoemForm.VILLANELLE} <= set(counts)
    assert len({poem.poem_id for poem in dataset}) == len(dataset)
    for poem in dataset:
        assert poem.source == "public_domain" and poem.year is not None and poem.year < 1900
        assert poem.rhyme_pattern and poem.theme
    sonnets = [poem for poem in dataset if poem.form is PoemForm.SONNET]
    assert all(len(poem.lines) == 14 for poem in sonnets)
    villanelles = [poem for poem in dataset if poem.form is PoemForm.VILLANELLE]
    assert all(len(poem.lines) == 19 for poem in villanelles)
    assert load_dataset("demo").poems == dataset.poems  # ids stable across loads


def test_bom_and_no_bom_give_the_same_poems(tmp_path: Path) -> None:
    rows = [poem_row(title=f"Poem {i}", content=f"{LIMERICK}\nLine {i}") for i in range(3)]
    plain = load_dataset(write_csv(tmp_path / "plain.csv", rows))
    with_bom = load_dataset(write_csv(tmp_path / "bom.csv", rows, bom=True))
    assert (tmp_path / "bom.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    assert with_bom.poems == plain.poems and len(plain) == 3


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet", ".csv", ".tsv"])
def test_round_trip_keeps_poems_and_ids(tmp_path: Path, suffix: str) -> None:
    demo = load_dataset("demo")
    path = write_dataset(demo.poems, tmp_path / f"copy{suffix}")
    again = load_dataset(path)
    assert again.poems == demo.poems
    assert again.name == "copy"


def test_round_trip_of_the_release(tmp_path: Path, poemetric_gold_csv: Path) -> None:
    release = load_dataset(poemetric_gold_csv)
    for suffix in (".jsonl", ".parquet"):
        again = load_dataset(write_dataset(release.poems, tmp_path / f"release{suffix}"))
        assert again.poems == release.poems


def test_a_jsonl_key_given_twice_is_an_error_on_its_line(tmp_path: Path) -> None:
    """json keeps the last value of a key given twice: the first title (or poem) was dropped
    without a word, as a CSV column given twice is not."""
    good = json.dumps(poem_row())
    twice = good.replace('"title": ', '"title": "First title", "title": ', 1)
    both = twice.replace('"author": ', '"author": "Someone", "author": ', 1)
    path = tmp_path / "poems.jsonl"
    path.write_text(f"{good}\n{twice}\n{both}\n", encoding="utf-8")
    report = validate_file(path)
    assert len(report.poems) == 1
    assert [str(issue) for issue in report.issues] == [
        f"{path}:2: title: given twice in one object (only the last value would be read): keep one",
        f"{path}:3: -: keys 'title', 'author' each given twice in one object (only the last "
        "value would be read): keep one",
    ]


def test_jsonl_problems_name_their_lines(tmp_path: Path) -> None:
    good = json.dumps(poem_row())
    path = tmp_path / "poems.jsonl"
    path.write_text(f"{good}\n\nnot json\n[1, 2]\n{json.dumps(poem_row(form='haiku'))}\n")
    report = validate_file(path)
    assert len(report.poems) == 1
    assert [(issue.line, issue.column) for issue in report.issues] == [
        (3, None),
        (4, None),
        (5, "form"),
    ]
    no_content = {key: value for key, value in poem_row().items() if key != "content"}
    path.write_text(json.dumps(no_content) + "\n")
    assert [str(issue) for issue in validate_file(path).issues] == [
        f"{path}:1: content: missing value"
    ]


def test_parquet_problems_name_their_rows(tmp_path: Path) -> None:
    demo = load_dataset("demo")
    path = write_dataset(demo.poems[:3], tmp_path / "poems.parquet")
    import pandas as pd

    frame = pd.read_parquet(path)
    frame.loc[1, "rhyme_pattern"] = "AB-AB"
    frame.to_parquet(path, index=False)
    issues = validate_file(path).issues
    assert [str(issue) for issue in issues] == [
        f"{path}:row 2: rhyme_pattern: bad rhyme pattern 'AB-AB': use letters A-Z, with spaces "
        "between stanza groups (e.g. 'ABABCDCDEFEF GG')"
    ]


def test_malformed_csv_reports_lines(tmp_path: Path) -> None:
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(POEMETRIC_COLUMNS))
    writer.writeheader()
    writer.writerow(poem_row(title="ok"))
    good = text.getvalue()
    short_line = good.count("\n") + 1
    path = tmp_path / "bad.csv"
    path.write_text(good + "Sonnet,only,three\n" + 'Sonnet,x,"unclosed\nquote\n', encoding="utf-8")
    report = validate_file(path)
    assert [(issue.line, issue.reason.split(":")[0]) for issue in report.issues] == [
        (short_line, "expected 11 fields (as in the header), found 3"),
        (short_line + 1, "malformed CSV"),
    ]
    assert len(report.poems) == 1


def test_a_poem_longer_than_the_csv_modules_default_field_limit_is_read(tmp_path: Path) -> None:
    """A CSV poem of more than 131,072 characters was "malformed CSV: field larger than field
    limit ... (an unclosed quote?)", the same poem in JSONL was read."""
    long_poem = "\n".join(
        f"Line {i} of a very long ballad that goes on and on" for i in range(4000)
    )
    assert len(long_poem) > 131_072
    rows = [poem_row(form="Ballad", content=long_poem), poem_row(title="After it")]
    report = validate_file(write_csv(tmp_path / "long.csv", rows))
    assert report.issues == []
    assert [poem.content for poem in report.poems] == [long_poem, LIMERICK]


def test_a_blank_id_cell_is_derived_and_a_numeric_id_is_its_digits(tmp_path: Path) -> None:
    """An id column with a blank cell said "poem_id: input should be a valid string (got '')"
    though ids are optional; a JSONL id of 1 was "input should be a valid string (got 1)" where
    the same file as CSV was read."""
    rows = [{"poem_id": "", **poem_row()}, {"poem_id": "7", **poem_row(title="Other")}]
    report = validate_file(write_csv(tmp_path / "ids.csv", rows))
    assert report.issues == []
    derived = derive_poem_id(PoemForm.LIMERICK, "Nobody", "A Test", LIMERICK)
    assert [poem.poem_id for poem in report.poems] == [derived, "7"]
    jsonl = tmp_path / "ids.jsonl"
    jsonl.write_text("".join(json.dumps({**row, "poem_id": n}) + "\n" for n, row in [
        (None, rows[0]), (7, rows[1])
    ]))  # fmt: skip
    again = validate_file(jsonl)
    assert again.issues == [] and [p.poem_id for p in again.poems] == [derived, "7"]


def test_a_whole_number_id_stored_as_a_float_is_its_digits(tmp_path: Path) -> None:
    """pandas writes an integer id column with one blank cell as float64, so a Parquet file of
    ids 1, blank, 3 was "id: input should be a valid string (got 1.0)" on every other row."""
    import pandas as pd

    rows = [poem_row(title=title) for title in ("One", "Two", "Three")]
    frame = pd.DataFrame(rows).assign(id=[1, None, 3])
    assert str(frame["id"].dtype) == "float64"
    frame.to_parquet(tmp_path / "ids.parquet")
    report = validate_file(tmp_path / "ids.parquet")
    assert report.issues == []
    derived = derive_poem_id(PoemForm.LIMERICK, "Nobody", "Two", LIMERICK)
    assert [poem.poem_id for poem in report.poems] == ["1", derived, "3"]
    jsonl = tmp_path / "ids.jsonl"
    jsonl.write_text(json.dumps({**rows[0], "id": 7.0}) + "\n")
    assert [poem.poem_id for poem in validate_file(jsonl).poems] == ["7"]
    # a fraction is no whole number: still an error, not a silent rounding
    jsonl.write_text(json.dumps({**rows[0], "id": 7.5}) + "\n")
    assert [issue.column for issue in validate_file(jsonl).issues] == ["id"]


def test_duplicates_are_errors(tmp_path: Path) -> None:
    same = [poem_row(), poem_row()]
    issues = validate_file(write_csv(tmp_path / "dup.csv", same)).issues
    assert [(issue.line, issue.column) for issue in issues] == [(7, "poem_id")]
    assert "same form, author, title and text as line 2" in issues[0].reason
    explicit = [{"poem_id": "x1", **poem_row()}, {"poem_id": "x1", **poem_row(title="Other")}]
    issues = validate_file(write_csv(tmp_path / "dup_ids.csv", explicit)).issues
    assert "duplicate poem id 'x1'" in issues[0].reason


def test_unknown_columns_are_reported_not_silently_dropped(tmp_path: Path) -> None:
    report = validate_file(write_csv(tmp_path / "extra.csv", [{**poem_row(), "mood": "glad"}]))
    assert report.ok
    assert report.warnings == [
        f"{report.path}: ignored columns (not part of the POEMetric schema): 'mood'"
    ]


def test_a_meter_the_form_checker_cannot_read_is_a_warning_naming_its_lines(
    tmp_path: Path,
) -> None:
    """'Accentual' validated without a word; `form run` then reported every poem of that row,
    the human's and each model's, as "not checked: unrecognised meter", rhyme and form included.
    Since form-2.10 such poems get no metre score and the rest is checked; a metre read in part
    ('iambic pentameter (loose)') says how it is read."""
    rows = [
        poem_row(title="One", meter_pattern="Accentual"),
        poem_row(title="Two", meter_pattern="Iambic pentameter"),
        poem_row(title="Three", meter_pattern="Accentual"),
        poem_row(title="Four", meter_pattern="iambic pentameter (loose)"),
    ]
    path = write_csv(tmp_path / "meters.csv", rows)
    report = validate_file(path)
    assert report.ok and len(report.poems) == 4
    unscored, loose = [w for w in report.warnings if "meter_pattern" in w]
    # `file:LINE:` of the first poem, as errors are written; the other lines after the text.
    assert unscored.startswith(
        f"{path}:2: meter_pattern: metre 'Accentual' not scored: it names no foot, line length "
    )
    assert unscored.endswith("checks the rhyme and form of these poems (and of every model's "
                             "poem for them) but gives no metre score (also line 12)")  # fmt: skip
    assert loose == (
        f"{path}:17: meter_pattern: metre 'iambic pentameter (loose)' read as iambic "
        "pentameter; 'loose' is not scored"
    )


def test_load_dataset_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POEMETRIC_DATA_DIR", str(tmp_path / "data"))
    with pytest.raises(
        DatasetError, match=r"run `poemetric dataset fetch poemetric` or pass the path"
    ):
        load_dataset("poemetric")
    with pytest.raises(DatasetError, match="unknown dataset 'nope': "):
        load_dataset("nope")
    with pytest.raises(DatasetError, match=r"unknown dataset 'dmeo' \(did you mean 'demo'\?\)"):
        load_dataset("dmeo")
    with pytest.raises(DatasetError, match="does not exist"):
        load_dataset(str(tmp_path / "missing.csv"))
    bad = write_csv(tmp_path / "bad.csv", [poem_row(), poem_row(form="ode", content="")])
    with pytest.raises(DatasetError) as error:
        load_dataset(bad)
    message = str(error.value)
    assert f"{bad}:7: form: unknown form 'ode'" in message
    assert f"{bad}:7: content: empty poem" in message


def test_store_rows_fit_the_run_store(tmp_path: Path) -> None:
    dataset = load_dataset("demo")
    rows = dataset.store_rows()
    with RunStore(tmp_path / "run") as store:
        columns = [row["name"] for row in store.query("PRAGMA table_info(poems)")]
        assert list(rows[0]) == columns
        assert store.add_poems(rows) == len(dataset)
        assert store.add_poems(rows) == 0  # idempotent
        stored = store.query("SELECT * FROM poems ORDER BY position")
    assert [row["poem_id"] for row in stored] == [poem.poem_id for poem in dataset]
    first = stored[0]
    assert (first["dataset"], first["position"], first["form"]) == ("demo", 0, "sonnet")
    assert first["meter"] == "Iambic pentameter" and first["rhyme"] == "ABABCDCDEFEF GG"
    assert Poem.model_validate(json.loads(first["record"])) == dataset.poems[0]


def test_a_jsonl_record_without_a_key_others_have_is_named_by_its_line(tmp_path: Path) -> None:
    """A record without "theme" was read with no theme, silently; one record spelling it
    "Theme" made the whole file invalid as "no record has the key 'theme'", false of the rest."""
    rows = [poem_row(title=f"T{n}", theme="the sea") for n in range(4)]
    rows[1].pop("theme")
    rows[3]["Theme"] = rows[3].pop("theme")
    path = tmp_path / "poems.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = validate_file(path)
    assert [str(issue) for issue in report.issues] == [
        f"{path}:4: theme: no key 'theme' in this record (other records have it); column names "
        "are exact (lower case, as in the schema): rename 'Theme' to 'theme'"
    ]
    assert [poem.title for poem in report.poems] == ["T0", "T1", "T2"]
    assert (
        f"{path}:2: theme: no 'theme' key, which other records have: read as empty "
        '(write "theme": "" to say so)'
    ) in report.warnings


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_a_utf16_file_is_named_as_such(tmp_path: Path, encoding: str) -> None:
    """Excel's "Unicode Text" (UTF-16 with a byte-order mark) was "not valid UTF-8 (byte 0xff at
    offset 0)", which says nothing of what the file is."""
    path = tmp_path / "poems.csv"
    text = write_csv(tmp_path / "utf8.csv", [poem_row()]).read_text(encoding="utf-8")
    bom = "\ufeff" if encoding == "utf-16-be" else ""  # "utf-16" writes its own
    path.write_bytes((bom + text).encode(encoding))
    assert [str(issue) for issue in validate_file(path).issues] == [
        f"{path}:1: -: not valid UTF-8: the file is UTF-16 (it starts with a UTF-16 byte-order "
        "mark); save the file as UTF-8"
    ]
