"""`poemetric dataset validate|list|show|fetch` through typer's CliRunner."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli.app import app

runner = CliRunner()

RELEASE_COUNTS = {
    "ballad": 77,
    "sonnet": 69,
    "villanelle": 6,
    "limerick": 5,
    "ghazal": 3,
    "sestina": 3,
}


def test_validate_the_release(poemetric_gold_csv: Path) -> None:
    result = runner.invoke(app, ["dataset", "validate", str(poemetric_gold_csv)])
    assert result.exit_code == 0, result.output
    assert "163 valid poems" in result.output
    for form, count in RELEASE_COUNTS.items():
        assert re.search(rf"{form}\s*│\s*{count}\s*│", result.output), form


def _corrupt_copy(source: Path, target: Path) -> dict[str, int]:
    """Copy of the release with four planted problems; returns each problem's start line.

    Start lines are computed here independently of the loader: 1 + the newlines written
    before the record.
    """
    with source.open(encoding="utf-8-sig", newline="") as stream:
        reader = csv.DictReader(stream)
        rows = list(reader)
        columns = [name for name in reader.fieldnames or [] if name != "author"]
    plants = {
        4: ("content", ""),
        9: ("form", "Haiku"),
        20: ("rhyme_pattern", "AB1B CC"),
        30: ("year", "18x0"),
    }
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    lines: dict[str, int] = {}
    for index, row in enumerate(rows):
        if index in plants:
            column, value = plants[index]
            row[column] = value
            lines[column] = out.getvalue().count("\n") + 1
        writer.writerow(row)
    target.write_text(out.getvalue(), encoding="utf-8")
    return lines


def test_validate_a_corrupted_copy(poemetric_gold_csv: Path, tmp_path: Path) -> None:
    bad = tmp_path / "corrupted.csv"
    lines = _corrupt_copy(poemetric_gold_csv, bad)
    assert lines["form"] > 9 + 1  # records span several physical lines
    result = runner.invoke(app, ["dataset", "validate", str(bad)])
    assert result.exit_code == 1
    problems = [line for line in result.output.splitlines() if line.startswith(f"{bad}:")]
    assert problems == [
        f"{bad}:1: author: missing column header (required: form, title, author, content, meter_pattern, rhyme_pattern, theme)",
        f"{bad}:{lines['content']}: content: empty poem",
        f"{bad}:{lines['form']}: form: unknown form 'Haiku'; expected one of ballad, ghazal, "
        "limerick, pantoum, sestina, sonnet, villanelle",
        f"{bad}:{lines['rhyme_pattern']}: rhyme_pattern: bad rhyme pattern 'AB1B CC': use "
        "letters A-Z, with spaces between stanza groups (e.g. 'ABABCDCDEFEF GG')",
        f"{bad}:{lines['year']}: year: bad year '18x0': expected a year such as 1850 (or empty)",
    ]
    assert (
        "5 problems" in result.output and "0 of 163 records valid" in result.output
    )  # no author column


def test_validate_names_and_missing_files(tmp_path: Path) -> None:
    result = runner.invoke(app, ["dataset", "validate", "demo"])
    assert result.exit_code == 0 and "16 valid poems" in result.output
    result = runner.invoke(app, ["dataset", "validate", str(tmp_path / "none.csv")])
    assert result.exit_code == 2 and "does not exist" in result.output


def test_the_help_names_the_command_that_checks_a_file() -> None:
    """`poemetric --help` and `poemetric dataset --help` said "check a file", and `poemetric
    dataset check` answered "No such command 'check'": the command is `validate`."""
    for group in ([], ["dataset"]):
        result = runner.invoke(app, [*group, "--help"], env={"COLUMNS": "200"})
        assert "validate a file" in result.output and "check a file" not in result.output
    argument = runner.invoke(app, ["dataset", "validate", "--help"], env={"COLUMNS": "200"})
    assert "dataset name (demo, lear-limericks, poemetric)" in argument.output
    assert runner.invoke(app, ["dataset", "validate", "lear-limericks"]).exit_code == 0


def test_list_show_and_fetch_from(
    poemetric_gold_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POEMETRIC_DATA_DIR", str(tmp_path))
    listing = runner.invoke(app, ["dataset", "list"], env={"COLUMNS": "400"})
    assert listing.exit_code == 0
    assert re.search(r"poemetric\s*│\s*no", listing.output) and re.search(
        r"demo\s*│\s*yes", listing.output
    )

    missing = runner.invoke(app, ["dataset", "show", "poemetric"])
    assert missing.exit_code == 2
    assert "run `poemetric dataset fetch poemetric` or pass the path" in missing.output

    fetched = runner.invoke(
        app, ["dataset", "fetch", "poemetric", "--from", str(poemetric_gold_csv)]
    )
    assert fetched.exit_code == 0, fetched.output
    target = tmp_path / "datasets" / "poemetric" / "POEMetric_human_poems_annotated.csv"
    assert target.read_bytes() == poemetric_gold_csv.read_bytes()
    assert "163 poems" in fetched.output

    listing = runner.invoke(app, ["dataset", "list"], env={"COLUMNS": "400"})
    assert re.search(r"poemetric\s*│\s*yes", listing.output)
    shown = runner.invoke(app, ["dataset", "show", "poemetric", "--limit", "4"])
    assert shown.exit_code == 0 and "4 of 163 poems" in shown.output


def test_fetch_from_a_file_with_the_wrong_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POEMETRIC_DATA_DIR", str(tmp_path / "data"))
    impostor = tmp_path / "impostor.csv"
    impostor.write_text("form,title,author,content\n")
    result = runner.invoke(app, ["dataset", "fetch", "poemetric", "--from", str(impostor)])
    assert result.exit_code == 1  # the fetch ran and the file failed its check
    assert result.stdout == "" and result.stderr.startswith("error: sha256 mismatch")
    assert "nothing was written" in result.stderr
    assert not any(path.is_file() for path in (tmp_path / "data").rglob("*"))


def test_fetch_from_a_file_of_ones_own_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fetch poemetric --from my_own.csv` of a dataset of one's own said "sha256 mismatch" and
    the two hashes alone: not that such a file needs no fetching, nor how to get the release."""
    monkeypatch.setenv("POEMETRIC_DATA_DIR", str(tmp_path / "data"))
    own = tmp_path / "my own.csv"
    own.write_text(
        "form,title,author,content,meter_pattern,rhyme_pattern,theme\n"
        'limerick,Tea,Ann,"A pot that was left on the stove\nboiled dry as a desert in Hove;\n'
        "it cracked with a ping,\nlike a bell in the spring,\nand was mourned by the "
        'cups in a drove.",anapestic,AABBA,tea\n',
        encoding="utf-8",
    )
    result = runner.invoke(
        app, ["dataset", "fetch", "poemetric", "--from", str(own)], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 1
    error = result.stderr
    assert error.startswith("error: sha256 mismatch") and "expected 96dce2be83ca" in error
    assert f"{own} is not the 'poemetric' release; to use your own file, pass its path" in error
    assert f"(`--dataset '{own}'`), without fetching it" in error
    assert (
        "to fetch the release, run `poemetric dataset fetch poemetric` (it downloads https://"
        in error
    )
    # A hash pinned on purpose (--sha256) is not "the release": no such advice.
    pinned = runner.invoke(
        app, ["dataset", "fetch", "poemetric", "--from", str(own), "--sha256", "0" * 64]
    )
    assert pinned.exit_code == 1 and "is not the 'poemetric' release" not in pinned.stderr


def test_validate_by_name_refuses_a_file_that_is_not_the_pinned_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`dataset validate poemetric` said "16 valid poems" (exit 0) of a data-dir file that is
    not the pinned release (fetched with --sha256, or edited in a spreadsheet), which `show`,
    `generate` and every other command refuse by that name."""
    monkeypatch.setenv("POEMETRIC_DATA_DIR", str(tmp_path))
    demo = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "poems.csv"
    target = tmp_path / "datasets" / "poemetric" / "POEMetric_human_poems_annotated.csv"
    target.parent.mkdir(parents=True)
    target.write_bytes(demo.read_bytes())
    reason = "is not the pinned 96dce2be83ca"
    result = runner.invoke(app, ["dataset", "validate", "poemetric"], env={"COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    assert f"{target}: -: sha256 2fa1e65b66c1" in result.output and reason in result.output
    assert "re-run `poemetric dataset fetch poemetric` (or pass its path)" in result.output
    assert result.output.splitlines()[-1] == f"1 problem in {target}: 16 of 16 records valid"
    shown = runner.invoke(app, ["dataset", "show", "poemetric"], env={"COLUMNS": "400"})
    assert shown.exit_code == 2 and reason in shown.output
    # the same file by its path is any dataset file
    by_path = runner.invoke(app, ["dataset", "validate", str(target)])
    assert by_path.exit_code == 0 and "16 valid poems" in by_path.output


def test_show_demo_with_limit() -> None:
    result = runner.invoke(app, ["dataset", "show", "demo", "-n", "2"])
    assert result.exit_code == 0 and "2 of 16 poems" in result.output


def test_show_says_how_to_see_every_poem_and_takes_limit_all() -> None:
    """`dataset show lear-limericks` showed 20 of 38 poems and said nothing of the others; its
    --limit took no `all`, which generate, demo and judge take."""
    env = {"COLUMNS": "400"}
    capped = runner.invoke(app, ["dataset", "show", "lear-limericks"], env=env)
    assert capped.exit_code == 0, capped.output
    assert capped.output.splitlines()[0] == (
        "lear-limericks: 20 of 38 poems (--limit all shows every one)"
    )
    every = runner.invoke(app, ["dataset", "show", "lear-limericks", "--limit", "all"], env=env)
    assert every.exit_code == 0, every.output
    assert every.output.splitlines()[0] == "lear-limericks: 38 of 38 poems"
    assert every.output.count("Edward Lear") == 38


def test_the_documented_required_columns_are_required_and_may_be_empty(tmp_path: Path) -> None:
    docs = (Path(__file__).resolve().parents[1] / "docs" / "datasets.md").read_text()
    documented = re.search(r"missing column header \(required: ([^)]*)\)", docs)
    assert documented is not None
    four = tmp_path / "four.csv"
    four.write_text('form,title,author,content\nsonnet,T,A,"one\ntwo"\n', encoding="utf-8")
    result = runner.invoke(app, ["dataset", "validate", str(four)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    missing = [
        line.split(": ")[1] for line in result.output.splitlines() if "missing column" in line
    ]
    # One line for all of them: the required list was repeated once per missing column.
    assert missing == ["meter_pattern, rhyme_pattern, theme"]
    assert result.output.count(f"(required: {documented.group(1)})") == 1
    assert (
        f"{four}:1: meter_pattern, rhyme_pattern, theme: missing column headers (" in result.output
    )
    assert "1 problem in " in result.output  # not "1 problems", which "1 problem" matched
    seven = tmp_path / "seven.csv"
    seven.write_text(
        'form,title,author,content,meter_pattern,rhyme_pattern,theme\nsonnet,T,A,"one\ntwo",,,\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["dataset", "validate", str(seven)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "1 valid poem\n" in result.output  # not "1 valid poems"


def test_a_text_column_is_named_once_as_the_schemas_content(tmp_path: Path) -> None:
    """A file with the `text` column `form check` reads was "ignored" and then "content: missing
    value" on every record; one line says the schema calls that column `content`."""
    record = {"text": "one\ntwo", "form": "sonnet", "title": "T", "author": "A"}
    record.update(meter_pattern="", rhyme_pattern="", theme="")
    jsonl = tmp_path / "poems.jsonl"
    jsonl.write_text("".join(json.dumps({**record, "title": f"T{i}"}) + "\n" for i in range(3)))
    result = runner.invoke(app, ["dataset", "validate", str(jsonl)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    problems = [line for line in result.output.splitlines() if line.startswith(f"{jsonl}")]
    hint = (
        "the dataset schema calls the poem column 'content' ('text' is the column `form check` "
        "reads): rename 'text' to 'content'"
    )
    assert problems == [f"{jsonl}: content: no record has a 'content' key; {hint}"]
    assert "missing value" not in result.output
    assert "1 problem in " in result.output and "0 of 3 records valid" in result.output
    csv_file = tmp_path / "poems.csv"
    csv_file.write_text(
        'text,form,title,author,meter_pattern,rhyme_pattern,theme\n"one\ntwo",sonnet,T,A,,,\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["dataset", "validate", str(csv_file)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    assert f"{csv_file}:1: content: missing column header (required: " in result.output
    assert result.output.count(hint) == 1


def test_columns_spelled_otherwise_are_named_with_their_rename(tmp_path: Path) -> None:
    """A spreadsheet's capitalised header (`Form,Title,...`) was "missing column headers" of
    every required column, all of which it has, beside "ignored columns 'Form', ..."; a JSONL
    file keyed so said "form: missing value" on every record. One line says what to rename."""
    header = "Form,Title,Author,Content,Meter Pattern,rhyme_pattern,Theme"
    caps = tmp_path / "caps.csv"
    caps.write_text(f'{header}\nsonnet,T,A,"one\ntwo",,AB,\n', encoding="utf-8")
    result = runner.invoke(app, ["dataset", "validate", str(caps)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    renames = (
        "rename 'Form' to 'form', 'Title' to 'title', 'Author' to 'author', 'Content' to "
        "'content', 'Meter Pattern' to 'meter_pattern', 'Theme' to 'theme'"
    )
    assert f"{caps}:1: form, title, author, content, meter_pattern, theme: missing" in result.output
    assert renames in result.output
    jsonl = tmp_path / "caps.jsonl"
    record = {"Form": "sonnet", "Title": "T", "Author": "A", "Content": "one\ntwo"}
    record.update({"Meter Pattern": "", "rhyme_pattern": "AB", "Theme": ""})
    jsonl.write_text("".join(json.dumps({**record, "Title": f"T{i}"}) + "\n" for i in range(3)))
    result = runner.invoke(app, ["dataset", "validate", str(jsonl)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    problems = [line for line in result.output.splitlines() if line.startswith(str(jsonl))]
    assert problems == [
        f"{jsonl}: form, title, author, content, meter_pattern, theme: no record has the keys "
        "'form', 'title', 'author', 'content', 'meter_pattern', 'theme'; column names are exact "
        f"(lower case, as in the schema): {renames}"
    ]
    assert "1 problem in " in result.output and "0 of 3 records valid" in result.output


def test_the_count_of_valid_records_leaves_out_every_record_with_a_problem(
    tmp_path: Path,
) -> None:
    """A file lacking required columns, with one good-looking and one unreadable record, was
    "1 of 1 records valid": the unreadable record was not counted, and a record of a file whose
    header is wrong was called valid."""
    header = "form,title,author,content"
    good = 'sonnet,T,A,"one\ntwo"'
    broken = tmp_path / "broken.csv"
    broken.write_text(f'{header}\n{good}\nballad,T2,"unclosed\n', encoding="utf-8")
    result = runner.invoke(app, ["dataset", "validate", str(broken)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    assert f"{broken}:4: -: malformed CSV" in result.output
    assert result.output.splitlines()[-1] == (
        f"2 problems in {broken}: 0 of 2 records valid (1 could not be read)"
    )
    full = f"{header},meter_pattern,rhyme_pattern,theme"
    one_bad = tmp_path / "one_bad.csv"
    one_bad.write_text(f'{full}\n{good},,,\n{good.replace("T", "U")},,,\nballad,T3,"x\n')
    result = runner.invoke(app, ["dataset", "validate", str(one_bad)], env={"COLUMNS": "400"})
    assert result.output.splitlines()[-1] == (
        f"1 problem in {one_bad}: 2 of 3 records valid (1 could not be read)"
    )
    jsonl = tmp_path / "poems.jsonl"
    record = {"form": "sonnet", "title": "T", "author": "A", "content": "one\ntwo"}
    record.update(meter_pattern="", rhyme_pattern="", theme="")
    jsonl.write_text(json.dumps(record) + "\n{bad json\n")
    result = runner.invoke(app, ["dataset", "validate", str(jsonl)], env={"COLUMNS": "400"})
    assert result.output.splitlines()[-1] == (
        f"1 problem in {jsonl}: 1 of 2 records valid (1 could not be read)"
    )


def test_a_jsonl_file_without_a_required_key_is_an_error_as_a_csv_without_the_column(
    tmp_path: Path,
) -> None:
    """JSONL records with a typo'd "thme" key validated as "2 valid poems": the theme was left
    out of every generation prompt, where the same CSV was "theme: missing column header"."""
    record = {"form": "sonnet", "title": "T", "author": "A", "content": "one\ntwo"}
    record.update(meter_pattern="Iambic pentameter", rhyme_pattern="AABB", thme="the sea")
    jsonl = tmp_path / "poems.jsonl"
    jsonl.write_text("".join(json.dumps({**record, "title": t}) + "\n" for t in ("T1", "T2")))
    result = runner.invoke(app, ["dataset", "validate", str(jsonl)], env={"COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    assert f"{jsonl}: theme: no record has the key 'theme' (required: " in result.output
    assert result.output.splitlines()[-1] == f"1 problem in {jsonl}: 0 of 2 records valid"
    record.pop("thme")  # one record that has the key, even empty, is enough
    first, second = {**record, "theme": ""}, {**record, "title": "T2"}
    jsonl.write_text(json.dumps(first) + "\n" + json.dumps(second) + "\n")
    result = runner.invoke(app, ["dataset", "validate", str(jsonl)], env={"COLUMNS": "400"})
    assert result.exit_code == 0 and "2 valid poems" in result.output, result.output


def test_a_csv_with_another_separator_is_named_as_such(tmp_path: Path) -> None:
    """A spreadsheet's pipe- or tab-separated export was "missing column headers" of all seven
    required columns, each of which its header has, with no word about the separator (a
    semicolon-separated one is read: test_dataset_semicolon.py)."""
    header = "form|title|author|content|meter_pattern|rhyme_pattern|theme"
    semi = tmp_path / "poems.csv"
    semi.write_text(f'{header}\nsonnet|T|A|"one\ntwo"|||\n', encoding="utf-8")
    result = runner.invoke(app, ["dataset", "validate", str(semi)], env={"COLUMNS": "400"})
    assert result.exit_code == 1
    assert (
        "; the header is pipe-separated, and a .csv file is read as comma-separated: "
        "save it comma-separated\n"
    ) in result.output
    tabbed = tmp_path / "tabbed.csv"
    tabbed.write_text(header.replace("|", "\t") + '\nsonnet\tT\tA\t"one\ntwo"\t\t\t\n')
    result = runner.invoke(app, ["dataset", "validate", str(tabbed)], env={"COLUMNS": "400"})
    assert (
        "the header is tab-separated, and a .csv file is read as comma-separated: rename the "
        "file to .tsv"
    ) in result.output


@pytest.mark.parametrize("name", ["header-only.csv", "empty.jsonl"])
def test_a_dataset_file_without_a_poem_is_a_problem(tmp_path: Path, name: str) -> None:
    """A CSV with only its header, or an empty JSONL file, was "0 valid poems" (exit 0), and
    `generate --dataset` of it prepared a run of no poems (exit 0) that refused the real dataset
    afterwards ("prepared from dataset 'header-only' ...: use another --run directory")."""
    path = tmp_path / name
    path.write_text(
        "form,title,author,content,meter_pattern,rhyme_pattern,theme\n" if name.endswith("csv")
        else "\n",
        encoding="utf-8",
    )  # fmt: skip
    result = runner.invoke(app, ["dataset", "validate", str(path)], env={"COLUMNS": "400"})
    assert result.exit_code == 1, result.output
    assert f"{path}: -: no poems: the file has no records\n" in result.output
    run = tmp_path / "run"
    generate = ["generate", "--run", str(run), "--dataset", str(path), "--no-progress"]
    result = runner.invoke(app, generate, env={"COLUMNS": "400"})
    assert result.exit_code == 2 and "no poems: the file has no records" in result.stderr
    assert not run.exists()


def test_show_of_the_release_names_the_known_annotation_errors_it_shows(
    poemetric_gold_csv: Path,
) -> None:
    """`dataset show` printed the eight annotations errata.yaml corrects (row 124's
    'ABABCDCDEFEF GG' of a Petrarchan sonnet) as the others, without a word."""
    wide = {"COLUMNS": "400"}
    result = runner.invoke(app, ["dataset", "show", str(poemetric_gold_csv), "-n", "60"], env=wide)
    assert result.exit_code == 0, result.output
    notes = result.output.split("known annotation errors in these rows, ")[1].splitlines()
    assert notes[0] == (
        "3 of the file's 8 (datasets/poemetric/errata.yaml; the table shows the data as "
        "released, the errata are not applied):"
    )
    assert [line.split(" (")[0] for line in notes[1:]] == ["  row 16", "  row 39", "  row 53"]
    assert notes[3].endswith("): rhyme_pattern 'ABAB' -> 'ABCB'")
    assert notes[1].endswith("): rhyme_pattern 'AABB' -> no value fits")
    full = runner.invoke(app, ["dataset", "show", str(poemetric_gold_csv), "-n", "200"], env=wide)
    assert "8 of the file's 8" in full.output
    assert "row 124 (sonnet-" in full.output
    assert "): rhyme_pattern 'ABABCDCDEFEF GG' -> 'ABBAABBA CDCDCD'" in full.output
    first = runner.invoke(app, ["dataset", "show", str(poemetric_gold_csv), "-n", "15"])
    assert first.exit_code == 0 and "known annotation errors" not in first.output  # none there
    assert "known annotation errors" not in runner.invoke(app, ["dataset", "show", "demo"]).output


@pytest.mark.parametrize(
    "command", [["dataset", "show"], ["dataset", "validate"], ["prompts", "render"], ["generate"]]
)
def test_the_help_of_a_dataset_argument_names_every_known_dataset(command: list[str]) -> None:
    """`dataset show --help` said "Dataset name (demo, poemetric)", `--dataset` "'demo' ...,
    'poemetric' ...": the bundled lear-limericks, which every stage reads, was not named."""
    from poemetric.data import dataset_registry

    result = runner.invoke(app, [*command, "--help"], terminal_width=400)
    assert result.exit_code == 0
    for name in dataset_registry():
        assert name in result.output, (command, name)
