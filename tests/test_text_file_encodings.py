"""Text files as Windows tools save them (`poemetric.data.text_files`): UTF-8 with a byte-order
mark, Windows-1252 (Notepad's "ANSI"), CRLF line ends, and empty files, through the commands
that read them. A text of words (a poem) in Windows-1252 is read with a warning naming the
file; a YAML, JSONL or template file in it is one `error:` line naming the file and line;
never a traceback. The poems here were written for these tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.ghostwriting.references import load_reference_corpora

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
POEM = (
    "The caf\u00e9\u2019s old kettle sang all night,\n"
    "and kept the cat awake in fright;\n"
    "it whistled to the moon,\n"
    "a thin and silver tune,\n"
    "then hushed itself at morning light.\n"
)
#: (bytes of `text`) as each tool saves it.
SAVED = {
    "bom": lambda text: b"\xef\xbb\xbf" + text.encode("utf-8"),
    "cp1252": lambda text: text.encode("cp1252"),
    "crlf": lambda text: text.replace("\n", "\r\n").encode("utf-8"),
}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("encodings") / "run"
    prepared_store(folder, poems=2).close()
    return folder


def _error(args: list[str], env: dict[str, str] | None = None) -> str:
    """The one stderr line of a command that must refuse its input with exit status 2."""
    result = runner.invoke(app, args, env={**WIDE, **(env or {})})
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: "), line
    return line


# -- a poem's text: ghostwriting score and --reference ------------------------------------------
def _score(path: Path) -> tuple[str, str]:
    result = runner.invoke(app, ["ghostwriting", "score", str(path)], env=WIDE)
    assert result.exit_code == 0, result.output
    # the note that uniqueness needs --reference ends stderr on every such call
    warnings = result.stderr.split("note: no uniqueness column")[0]
    return result.stdout.replace(str(path), "FILE"), warnings


@pytest.mark.parametrize("saved", SAVED)
def test_ghostwriting_score_reads_a_poem_as_windows_tools_save_it(
    tmp_path: Path, saved: str
) -> None:
    """A Notepad "ANSI" poem (Windows-1252) was refused as "not valid UTF-8 (invalid
    continuation byte)"; it is scored as its UTF-8 copy is, with a warning naming the file."""
    utf8, poem = tmp_path / "a" / "poem.txt", tmp_path / "b" / "poem.txt"  # as wide
    for path, data in ((utf8, POEM.encode("utf-8")), (poem, SAVED[saved](POEM))):
        path.parent.mkdir()
        path.write_bytes(data)
    expected, _ = _score(utf8)
    scored, warnings = _score(poem)
    assert scored == expected
    if saved == "cp1252":
        assert warnings.startswith(f"warning: {poem}:1: not UTF-8 (byte 0xe9): read as ")
        assert 'Notepad\'s "ANSI"' in warnings and "CSV" not in warnings
    else:
        assert warnings == ""


def test_ghostwriting_score_refuses_a_file_that_is_no_text(tmp_path: Path) -> None:
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"line one\nline two\x81\n")  # 0x81: neither UTF-8 nor Windows-1252
    line = _error(["ghostwriting", "score", str(binary)])
    assert line.startswith(f"error: {binary}:2: not valid UTF-8 (byte 0x81 at offset 17), nor ")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    assert _error(["ghostwriting", "score", str(empty)]) == (
        f"error: {empty}: no poem text (the file is empty or blank)"
    )


@pytest.mark.parametrize("folder", [False, True], ids=["file", "folder"])
def test_a_windows_1252_reference_text_is_read_with_a_warning(
    run: Path, tmp_path: Path, folder: bool
) -> None:
    """`--reference notes.txt` (or a folder of them) saved by Notepad as "ANSI" stopped the
    command ("not valid UTF-8 (invalid continuation byte)"), unlike the same text in a CSV."""
    corpus = tmp_path / "refs"
    corpus.mkdir()
    text = corpus / "ansi.txt"
    text.write_bytes(SAVED["cp1252"](POEM))
    (corpus / "bom.txt").write_bytes(SAVED["bom"](POEM))
    named = corpus if folder else text
    args = ["ghostwriting", "metrics", "--run", str(run), "--reference", str(named),
            "--out", str(tmp_path / "out")]  # fmt: skip
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    (warning,) = result.stderr.splitlines()
    assert warning.startswith(f"warning: {text}:1: not UTF-8 (byte 0xe9): read as Wind")
    texts = "2 texts" if folder else "1 text"
    assert f"reference corpus: {texts} from --reference" in result.stdout


def test_a_folder_of_windows_1252_texts_is_three_warnings_and_a_count(tmp_path: Path) -> None:
    for number in range(5):
        (tmp_path / f"{number}.txt").write_bytes(SAVED["cp1252"](POEM))
    (tmp_path / "crlf.txt").write_bytes(SAVED["crlf"](POEM))  # read as read_text reads it
    loaded = load_reference_corpora([tmp_path])
    assert len(loaded.texts) == 6 and {t.text for t in loaded.texts} == {POEM}
    assert [note.split(": ")[0] for note in loaded.notes[:3]] == [
        f"{tmp_path / f'{number}.txt'}:1" for number in range(3)
    ]
    assert loaded.notes[3:] == [f"{tmp_path}: 2 more .txt files read as Windows-1252 (not UTF-8)"]


# -- prompt templates: --template, --judge-template, a judge file's `template:` ------------------
GENERATION = "Write a {{ form }} about a caf\u00e9\u2019s kettle.\n"
JUDGE = "Judge the caf\u00e9\u2019s poem.\n{generation_prompt}\n---\n{the_poem}\n"


@pytest.mark.parametrize("kind", ["generation", "judge"])
def test_a_template_with_a_byte_order_mark_renders_without_it(tmp_path: Path, kind: str) -> None:
    """The BOM Notepad writes was read as the template's first character: every prompt began
    with an invisible U+FEFF, sent to every model, and hashed apart from the same template
    without it."""
    utf8, bom = tmp_path / "a" / "t.md", tmp_path / "b" / "t.md"
    text = GENERATION if kind == "generation" else JUDGE
    for path, data in ((utf8, text.encode("utf-8")), (bom, SAVED["bom"](text))):
        path.parent.mkdir()
        path.write_bytes(data)
    shown = []
    for path in (utf8, bom):
        args = ["prompts", "render", "--kind", kind, "--template", str(path), "--limit", "1"]
        result = runner.invoke(app, args, env=WIDE)
        assert result.exit_code == 0, result.output
        shown.append(result.stdout.replace(str(path), "FILE"))
    assert "\ufeff" not in shown[1] and shown[1] == shown[0]


def test_a_windows_1252_template_is_one_error_naming_its_line(tmp_path: Path) -> None:
    """A template saved as "ANSI" was a UnicodeDecodeError traceback in `prompts render`,
    `generate --template` and `judge --judge-template`."""
    template = tmp_path / "t.jinja"
    template.write_bytes(("{{ form }}\n" + GENERATION).encode("cp1252"))
    expected = (
        f"{template}:2: not valid UTF-8 (byte 0xe9 at offset 41): the file looks like "
        'Windows-1252 (Notepad\'s "ANSI"); save it with the encoding UTF-8'
    )
    render = ["prompts", "render", "--template", str(template), "--limit", "1"]
    assert _error(render) == f"error: --template: {expected}"
    generate = ["generate", "--run", str(tmp_path / "run"), "--template", str(template)]
    assert _error([*generate, "--limit", "1", "--no-progress"]) == f"error: {expected}"


def test_a_judge_files_windows_1252_template_makes_the_judge_unusable(
    tmp_path: Path, user_model: Callable[[str, str, str], Path]
) -> None:
    judge = user_model(
        "judges",
        "j",
        "name: j\nprovider: openai-compatible\nmodel: m\n"
        "base_url: http://127.0.0.1:9/v1\napi_key_env: false\ntemplate: t.md\n",
    )
    (judge.parent / "t.md").write_bytes(JUDGE.encode("cp1252"))
    result = runner.invoke(app, ["models", "show", "j", "--judges"], env=WIDE)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    error, detail = result.stderr.splitlines()  # the reason, then the file's line
    assert error.startswith(f"error: {judge}:6: judge 'j' cannot be used: template: ")
    assert detail.startswith(f"  {judge}:6: template: {judge.parent / 't.md'}:1: not valid ")
    assert "(byte 0xe9 at offset 13): the file looks like Windows-1252" in detail


# -- YAML files: model and judge files, groups.yaml, figure recipes, $POEMETRIC_HOME's own -------
MARKOV = "name: mine\nprovider: markov\nmodel: markov-ngram\ndisplay_name: Caf\u00e9\u2019s\n"


@pytest.mark.parametrize("saved", ["bom", "crlf"])
def test_a_model_file_with_a_bom_or_crlf_loads(
    user_model: Callable[[str, str, str], Path], saved: str
) -> None:
    path = user_model("generators", "mine", "")
    path.write_bytes(SAVED[saved](MARKOV))
    result = runner.invoke(app, ["models", "show", "mine"], env=WIDE)
    assert result.exit_code == 0, result.output
    assert "Caf\u00e9\u2019s" in result.stdout


def test_a_windows_1252_model_file_names_its_line(
    user_model: Callable[[str, str, str], Path],
) -> None:
    """It was "cannot read: 'utf-8' codec can't decode bytes in position 65-66: invalid
    continuation byte": no line, no word of what the file is; then the one-line reason
    "not valid UTF-8 on line 4", without what to do."""
    path = user_model("generators", "mine", "")
    path.write_bytes(MARKOV.encode("cp1252"))
    result = runner.invoke(app, ["models", "show", "mine"], env=WIDE)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    error, detail = result.stderr.splitlines()
    assert error == (
        f"error: {path}:4: model 'mine' cannot be used: not valid UTF-8 on line 4; save it with "
        "the encoding UTF-8"
    )
    assert detail == (
        f"  {path}:4: not valid UTF-8 (byte 0xe9 at offset 65): the file looks like "
        'Windows-1252 (Notepad\'s "ANSI"); save it with the encoding UTF-8'
    )
    groups = path.parent / "groups.yaml"
    groups.write_bytes("mine: [markov]  # caf\u00e9\n".encode("cp1252"))
    line = _error(["models", "list", "--group", "mine"])
    assert line.startswith(f"error: {groups}:1: not valid UTF-8 (byte 0xe9 at offset 21): ")


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("description: Caf\u00e9\nfigures: []\n".encode("cp1252"), ":1: not valid UTF-8 (byte"),
        (b"", ": the file is empty"),
        (b"# figures: none yet\n", ": the file holds only comments"),
        (b"figures: [\n", ":2: invalid YAML: expected the node content, but found '<stream end>'"),
    ],
    ids=["cp1252", "empty", "comments", "invalid"],
)
def test_an_unreadable_figures_recipe_is_one_error_naming_it(
    run: Path, tmp_path: Path, data: bytes, reason: str
) -> None:
    """A Windows-1252 recipe was "error: 'utf-8' codec can't decode bytes in position 16-17"
    (which file?); an empty one a pydantic error over four lines; invalid YAML PyYAML's message
    over several lines."""
    recipe = tmp_path / "mine.yaml"
    recipe.write_bytes(data)
    line = _error(["figures", "--run", str(run), "--recipe", str(recipe)])
    assert line.startswith(f"error: {recipe}{reason}"), line


def _home(tmp_path: Path) -> Path:
    """A copy of the resources ($POEMETRIC_HOME) to edit."""
    import shutil

    from poemetric.paths import RESOURCE_DIRS, resource_root

    home = tmp_path / "home"
    for kind in RESOURCE_DIRS:
        shutil.copytree(resource_root() / kind, home / kind)
    return home


@pytest.mark.parametrize("name", ["registry.yaml", "poemetric/errata.yaml"])
@pytest.mark.parametrize("saved", ["cp1252", "empty"])
def test_poemetric_homes_own_dataset_files_are_one_error(
    tmp_path: Path, name: str, saved: str
) -> None:
    """`$POEMETRIC_HOME/datasets/registry.yaml` or an errata file saved as "ANSI", or empty, was
    a traceback from any command that reads it (`dataset show demo` reads both: the errata are
    written as demo's own, since another dataset's stop only that dataset's commands)."""
    import os
    import subprocess
    import sys

    home = _home(tmp_path)
    path = home / "datasets" / name.replace("poemetric/", "demo/")
    text = (home / "datasets" / name).read_text(encoding="utf-8")
    text = text.replace("#", "# caf\u00e9\u2019s", 1)
    path.write_bytes(b"" if saved == "empty" else text.encode("cp1252"))
    done = subprocess.run(
        [sys.executable, "-m", "poemetric", "dataset", "show", "demo", "--limit", "1"],
        capture_output=True,
        text=True,
        env={**os.environ, **WIDE, "POEMETRIC_HOME": str(home)},
    )
    assert done.returncode == 2, done.stderr
    reason = ": the file is empty" if saved == "empty" else ":1: not valid UTF-8 (byte 0xe9 at"
    assert done.stderr.startswith(f"error: {path}{reason}") and done.stderr.count("\n") == 1


# -- JSONL files: probe pairs and scores ---------------------------------------------------------
@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("probes") / "pairs.jsonl"
    args = ["probe", "build", "demo", "--tasks", "rhyme_word_swap", "--limit", "2", "-o", str(path)]
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    return path


@pytest.mark.parametrize("saved", SAVED)
def test_probe_files_as_windows_tools_save_them(pairs: Path, tmp_path: Path, saved: str) -> None:
    """A pairs or scores file with a byte-order mark was "not valid JSON: Unexpected UTF-8 BOM
    ...; this looks like a CSV file"; one in Windows-1252 a UnicodeDecodeError traceback."""
    text = pairs.read_text(encoding="utf-8").replace('"original": "', '"original": "Caf\u00e9. ', 1)
    copy = tmp_path / "pairs.jsonl"
    copy.write_bytes(SAVED[saved](text))
    scores = tmp_path / "scores.jsonl"
    args = ["probe", "run", str(copy), "--scorer", "ngram", "-o", str(scores)]
    if saved == "cp1252":
        line = _error(args)
        assert line.startswith(f"error: {copy}:1: not valid UTF-8 (byte 0xe9 at offset ")
        assert line.endswith(
            'the file looks like Windows-1252 (Notepad\'s "ANSI"); save it with the encoding UTF-8'
        )
        return
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{text.count(chr(10))} pairs scored by ngram")
    saved_scores = tmp_path / "saved-scores.jsonl"
    saved_scores.write_bytes(SAVED[saved](scores.read_text(encoding="utf-8")))
    report = runner.invoke(app, ["probe", "report", str(saved_scores)], env=WIDE)
    assert report.exit_code == 0, report.output
    assert "| ngram:3 |" in report.stdout


def test_a_windows_1252_scores_file_is_one_error(tmp_path: Path) -> None:
    scores = tmp_path / "scores.jsonl"
    scores.write_bytes('{"pair_id": "caf\u00e9"}\n'.encode("cp1252"))
    line = _error(["probe", "report", str(scores)])
    assert line.startswith(f"error: {scores}:1: not valid UTF-8 (byte 0xe9 at offset 16): ")


# -- a filled sheet template is never overwritten ------------------------------------------------
@pytest.mark.parametrize("separator", [",", ";"])
def test_sheets_keep_a_template_filled_in_excel(run: Path, tmp_path: Path, separator: str) -> None:
    """`ghostwriting sheets` refuses to write over a template with answers; one that Excel saved
    back (Windows-1252, and `;` between fields where that is the list separator) was not read
    as one, and the annotator's answers were overwritten without a word."""
    import csv
    import io

    out = tmp_path / "sheets"
    args = ["ghostwriting", "sheets", "--run", str(run), "--out", str(out)]
    result = runner.invoke(app, args, env=WIDE)
    assert result.exit_code == 0, result.output
    template = out / "annotations.csv"
    rows = list(csv.reader(io.StringIO(template.read_text(encoding="utf-8"))))
    for row in rows[1:]:
        row[1], row[6] = "Ren\u00e9e", "strong"  # annotator, fluency
    filled = io.StringIO()
    csv.writer(filled, delimiter=separator, lineterminator="\r\n").writerows(rows)
    data = filled.getvalue().encode("cp1252", errors="replace")
    template.write_bytes(data)
    line = _error(args)
    assert line.startswith(f"error: {template} already holds answers ({len(rows) - 1} filled ")
    assert template.read_bytes() == data


# -- form scan - : a poem on standard input -----------------------------------------------------
@pytest.mark.parametrize("saved", SAVED)
def test_form_scan_reads_standard_input_as_it_reads_a_file(tmp_path: Path, saved: str) -> None:
    """`form scan -` decoded the pipe with the locale's encoding: a Windows-1252 poem was refused
    (`not UTF-8 text`) or scanned garbled (`caf\\udce9\\udc92s` under C.UTF-8), where the same
    poem in a file is read with a warning."""
    args = ["form", "scan", "-", "--form", "limerick"]
    expected = runner.invoke(app, args, input=POEM.encode("utf-8"), env=WIDE)
    assert expected.exit_code == 0, expected.output
    result = runner.invoke(app, args, input=SAVED[saved](POEM), env=WIDE)
    assert result.exit_code == 0, result.output
    assert result.stdout == expected.stdout and "\ufeff" not in result.stdout
    if saved == "cp1252":
        assert result.stderr.startswith("warning: standard input:1: not UTF-8 (byte 0xe9): read as")
    else:
        assert result.stderr == ""
