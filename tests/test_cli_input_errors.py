"""Unusable input is one `error: ...` on stderr and exit status 2, before any work, in every
command: an unknown recipe or dataset, an unreadable experts, reference, ratings or poem file, a
run without poems. Before, these exited 1 with a red line on stdout (or plain text)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import DemoTemplate, copy_demo_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.roster import roster_directories
from poemetric.store import RunStore
from poemetric.store.schema import EXPORTABLE_TABLES


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory, demo_run_template: DemoTemplate) -> Path:
    return copy_demo_run(demo_run_template, tmp_path_factory.mktemp("errors") / "demo")


@pytest.fixture(scope="module")
def empty_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("errors") / "empty"
    RunStore(run, create=True).close()
    return run


def _error(args: list[str]) -> str:
    """The one stderr line of a command that must refuse its input with exit status 2."""
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: "), line
    return line


def test_an_unknown_figures_recipe(demo_run: Path) -> None:
    line = _error(["figures", "--run", str(demo_run), "--recipe", "nope"])
    assert line.startswith("error: no recipe 'nope'") and "bundled recipes" in line
    # Choices are words, not a Python list (`['judge-overview', 'paper', ...]`).
    assert re.search(r"; bundled recipes: [\w-]+(, [\w-]+)+$", line), line


def test_an_unknown_figures_format_names_the_choices_as_words(demo_run: Path) -> None:
    result = CliRunner().invoke(
        app, ["figures", "--run", str(demo_run), "--format", "png,gif"], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2 and result.stdout == ""
    assert "unknown format gif; use pdf, png, svg" in result.stderr
    assert "[" not in result.stderr.split("--format")[-1]


@pytest.mark.parametrize("command", [["figures"], ["analyze"], ["report"]], ids=" ".join)
def test_an_unreadable_experts_file(demo_run: Path, tmp_path: Path, command: list[str]) -> None:
    experts = tmp_path / "experts.csv"
    experts.write_text("x,[bold]y[/bold]\n1,2\n", encoding="utf-8")
    line = _error([*command, "--run", str(demo_run), "--experts", str(experts)])
    assert line.startswith(f"error: {experts}: missing columns: rater (or expert)")


@pytest.mark.parametrize("command", [["figures"], ["analyze"], ["report"]], ids=" ".join)
def test_an_experts_file_without_scores(demo_run: Path, tmp_path: Path, command: list[str]) -> None:
    """A header only (an unfilled template) was a note ("holds no scores") and exit status 0,
    the expert tables silently missing; `survey import` already refused such a file."""
    experts = tmp_path / "experts.csv"
    experts.write_text("poem,rater,item,score\n", encoding="utf-8")
    out = tmp_path / ("out.html" if command == ["report"] else "out")
    line = _error([*command, "--run", str(demo_run), "--experts", str(experts), "--out", str(out)])
    assert line == f"error: {experts}: no expert scores: no row has a score (an unfilled template?)"
    assert not out.exists()


def test_a_missing_reference_corpus(demo_run: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    line = _error(["ghostwriting", "metrics", "--run", str(demo_run), "--reference", str(missing)])
    assert line == f"error: reference corpus: {missing}: no such file or folder"


def test_import_lines_of_a_missing_file(demo_run: Path, tmp_path: Path) -> None:
    missing = tmp_path / "missing.csv"
    line = _error(["ghostwriting", "import-lines", "--run", str(demo_run), str(missing)])
    assert line.startswith(f"error: nothing imported: {missing}: ")


def test_agree_on_a_file_without_ratings_columns(tmp_path: Path) -> None:
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("who,what\na,b\n", encoding="utf-8")
    assert _error(["agree", str(ratings)]).startswith(f"error: {ratings}: missing columns")


@pytest.mark.parametrize("scale", ["5-1", "3-3"])
def test_agree_with_a_reversed_scale(tmp_path: Path, scale: str) -> None:
    """`--scale 5-1` said "needs at least two values", though it names five."""
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("unit,rater,score\na,r1,1\na,r2,2\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["agree", str(ratings), "--scale", scale], env={"COLUMNS": "400"}
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert f"scale '{scale}': use LOW-HIGH with LOW < HIGH (e.g. 1-5)" in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ["judge", "--judge", "gemini-2.5-pro"],
        ["ghostwriting", "style-match", "--judge", "gemini-2.5-pro"],
        ["ghostwriting", "metrics"],
    ],
    ids=" ".join,
)
def test_a_run_without_poems(empty_run: Path, command: list[str]) -> None:
    line = _error([*command, "--run", str(empty_run)])
    assert line == f"error: run {empty_run} has no poems yet: run `poemetric generate --run " + (
        f"{empty_run}` first"
    )


def test_ghostwriting_sheets_with_no_poem_to_annotate(demo_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "sheets"
    args = ["ghostwriting", "sheets", "--run", str(demo_run), "--out", str(out)]
    line = _error([*args, "--authors", "nobody"])  # named as `judge --authors` names it
    assert line == (
        f"error: --authors: no poems by 'nobody' in run {demo_run}; authors: human, markov"
    )
    assert not out.exists()


def test_survey_status_of_an_unknown_survey(demo_run: Path) -> None:
    line = _error(["survey", "status", "--run", str(demo_run), "--survey", "nope"])
    assert line.startswith("error: no survey 'nope' in ")


def test_analyze_of_an_unknown_survey(demo_run: Path, tmp_path: Path) -> None:
    """A mistyped `--survey` was a note ("survey 'nope' has no answers") and exit status 0: the
    tables were written without the experts the user asked for."""
    out = tmp_path / "analysis"
    line = _error(["analyze", "--run", str(demo_run), "--survey", "nope", "--out", str(out)])
    assert line.startswith("error: no survey 'nope' in ") and line.endswith(
        "surveys: none yet (`poemetric survey build`)"
    )
    assert not out.exists()


def test_analyze_of_a_run_without_poems(tmp_path: Path) -> None:
    """A run store with no poems (made, never generated) ended in a FileNotFoundError traceback
    (exit 0 under CliRunner, 1 from a shell) while writing NOTES.txt."""
    from poemetric.store import RunStore

    run = tmp_path / "empty"
    RunStore(run).close()
    line = _error(["analyze", "--run", str(run)])
    assert line == f"error: run {run} has no poems yet: run `poemetric generate --run {run}` first"
    assert not (run / "analysis").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "error: unknown dataset 'nope'; known datasets: "),
        (["lear"], "error: unknown dataset 'lear' (did you mean 'lear-limericks'?); known "),
        (["demo"], "error: dataset 'demo' is bundled with POEMetric; nothing to fetch"),
        (["poemetric", "--from", "MISSING"], "error: --from MISSING: no such file"),
    ],
    ids=["unknown", "a part of a name", "bundled", "missing --from"],
)
def test_dataset_fetch_of_unusable_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.setenv("POEMETRIC_DATA_DIR", str(tmp_path / "data"))
    missing = str(tmp_path / "missing.csv")
    line = _error(["dataset", "fetch", *(missing if a == "MISSING" else a for a in args)])
    assert line.startswith(message.replace("MISSING", missing))
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("command", [["score", "POEM"], ["metrics", "--run", "RUN"]], ids=" ".join)
def test_espeak_phonetics_without_espeak(
    demo_run: Path, tmp_path: Path, command: list[str]
) -> None:
    poem = tmp_path / "poem.txt"
    poem.write_text("the cat sat\non the mat\n", encoding="utf-8")
    paths = {"POEM": str(poem), "RUN": str(demo_run)}
    args = ["ghostwriting", *(paths.get(a, a) for a in command), "--raplyzer-phonetics", "espeak"]
    result = CliRunner().invoke(app, args, env={"PATH": str(tmp_path), "COLUMNS": "400"})
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and "espeak" in line


#: A valid answer to the judge's 13 questions (10 scores, comments on 9, 11 and 13).
ANSWER = json.dumps({str(q): "why" if q in (9, 11, 13) else 4 for q in range(1, 14)})


def test_judge_parse_reads_a_file_that_starts_with_a_byte_order_mark(tmp_path: Path) -> None:
    """Windows tools (Excel, Notepad, PowerShell's `Out-File`) start UTF-8 with a BOM: its first
    answer was "unreadable: ... not JSON (Unexpected UTF-8 BOM)" and the exit status 2."""
    answers = tmp_path / "answers.jsonl"
    line = json.dumps({"id": "a", "response": ANSWER})
    answers.write_bytes(b"\xef\xbb\xbf" + f"{line}\n{line.replace('a', 'b', 1)}\n".encode())
    out = tmp_path / "parsed.jsonl"
    result = CliRunner().invoke(app, ["judge", "parse", str(answers), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 answers: 2 read, 0 rejected, 0 unreadable" in result.stdout
    assert [json.loads(row)["ok"] for row in out.read_text(encoding="utf-8").splitlines()] == [
        True,
        True,
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", ": no answers (the file is empty)"),
        (b"\n  \n", ": no answers (the file is empty)"),
        (
            b'{"id": "a", "response": "caf\xe9"}\n',
            ":1: not valid UTF-8 (byte 0xe9 at offset 28): the file looks like Windows-1252 "
            '(Notepad\'s "ANSI"); save it with the encoding UTF-8',
        ),
    ],
    ids=["empty", "blank lines", "latin-1"],
)
def test_judge_parse_of_a_file_without_answers(
    tmp_path: Path, content: bytes, message: str
) -> None:
    """An empty file was "0 answer(s): 0 read" and exit status 0 (a wrong path looked like a
    success); a file in another encoding was a UnicodeDecodeError traceback."""
    answers = tmp_path / "answers.jsonl"
    answers.write_bytes(content)
    out = tmp_path / "parsed.jsonl"
    line = _error(["judge", "parse", str(answers), "-o", str(out)])
    assert line == f"error: {answers}{message}"
    assert not out.exists()


def test_judge_parse_names_a_bad_line_as_file_colon_line(tmp_path: Path) -> None:
    """A malformed line was `FILE line 3: ...`; dataset, agree and form check say `FILE:3: ...`
    (the form an editor jumps to)."""
    answers = tmp_path / "bad.jsonl"
    good = json.dumps({"id": "a", "response": ANSWER})
    answers.write_text(f"{good}\n{good}\n{{not json\n", encoding="utf-8")
    out = tmp_path / "parsed.jsonl"
    result = CliRunner().invoke(app, ["judge", "parse", str(answers), "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert f"unreadable: {answers}:3: not JSON" in result.stderr
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[2])["error"].startswith(
        f"{answers}:3: not JSON"
    )


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
def test_judge_parse_names_the_column_of_a_json_error(tmp_path: Path, line_end: str) -> None:
    """A line cut short was "not JSON (Expecting ',' delimiter at column 1)": the line end was
    parsed with it, and the error put on the next line's first column."""
    answers = tmp_path / "bad.jsonl"
    cut = '{"id": "b", "response": "y"'
    answers.write_bytes(f'{cut}{line_end}{{"id": "c" "response": "z"}}{line_end}'.encode())
    out = tmp_path / "parsed.jsonl"
    result = CliRunner().invoke(app, ["judge", "parse", str(answers), "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert [line for line in result.stderr.splitlines() if line.startswith("unreadable")] == [
        f"unreadable: {answers}:1: not JSON (Expecting ',' delimiter at column {len(cut) + 1})",
        f"unreadable: {answers}:2: not JSON (Expecting ',' delimiter at column 12)",
    ]


def test_judge_parse_refuses_to_write_over_its_input(tmp_path: Path) -> None:
    """`judge parse answers.jsonl -o answers.jsonl` replaced the judge's raw answers with the
    parsed output, exit status 0: the answers were gone."""
    answers = tmp_path / "answers.jsonl"
    text = json.dumps({"id": "a", "response": ANSWER}) + "\n"
    answers.write_text(text, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    for output in (answers, tmp_path / "sub" / ".." / "answers.jsonl"):
        line = _error(["judge", "parse", str(answers), "-o", str(output)])
        assert line == (
            f"error: -o {output} is the input file: the answers would be replaced by the "
            "parsed output; give another file name"
        )
    assert answers.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("command", [["agree"], ["analyze", "--experts"]], ids=" ".join)
def test_a_ratings_file_separated_by_semicolons_shows_the_header_it_found(
    demo_run: Path, tmp_path: Path, command: list[str]
) -> None:
    """A CSV saved by a spreadsheet in a comma-decimal locale has `;` between fields: the error
    said "missing column(s) unit, rater, score" of a file whose header shows those very names.
    (A header with a rater and a score column is read semicolon-separated:
    test_csv_spreadsheet_files.py; this one has neither.)"""
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("unit;judge;item;value\np1;a;form;4\np1;b;form;3\n", encoding="utf-8")
    args = [*command, str(ratings)] + (["--run", str(demo_run)] if len(command) > 1 else [])
    line = _error(args)
    assert line.startswith(f"error: {ratings}: missing columns")
    assert line.endswith("; found unit;judge;item;value"), line


ANALYSIS_COMMANDS = [["analyze"], ["figures", "--recipe", "rule-based"], ["report"]]


@pytest.mark.parametrize("command", ANALYSIS_COMMANDS, ids=lambda c: c[0])
def test_a_judge_of_a_run_without_judgments(
    demo_run: Path, tmp_path: Path, command: list[str]
) -> None:
    """`--judge NAME` on a run that no judge has judged was a note and exit status 0 (the
    tables, figures or report written without the judge asked for); on a run judged by others
    it was already this error."""
    out = tmp_path / ("out.html" if command == ["report"] else "out")
    line = _error([*command, "--run", str(demo_run), "--judge", "gpt-4o", "--out", str(out)])
    assert line == (
        "error: no judgments by judge 'gpt-4o': the run has no judgments yet; make them with "
        f"`poemetric judge --run {demo_run} --judge gpt-4o`"
    )
    assert not out.exists()
    # A name that is no judge of judges/ was sent to `poemetric judge --judge nobody` too, which
    # then failed with "unknown judge"; it is named as such, with the judges and close names.
    line = _error([*command, "--run", str(demo_run), "--judge", "gemni-2.5-pro"])
    assert line.startswith(
        "error: no judgments by judge 'gemni-2.5-pro': the run has no judgments yet, and judges/ "
        "has no judge 'gemni-2.5-pro' (did you mean 'gemini-2.5-pro'?); judges: "
    )
    assert "gemini-2.5-pro, gpt-4o" in line and "poemetric judge --run" not in line
    assert not out.exists()


def _judged_by_gpt_4o(demo_run: Path, run: Path) -> Path:
    """A copy of the demo run with one (failed) judgment by gpt-4o."""
    shutil.copytree(demo_run, run)
    with RunStore(run, create=False) as store:
        generation = store.query("SELECT generation_id FROM generations LIMIT 1")[0][0]
        store.save_judgment(
            {"judgment_id": "j1", "generation_id": generation, "judge": "gpt-4o",
             "sample_index": 0, "status": "error", "error": "HTTP 500"}
        )  # fmt: skip
    return run


@pytest.mark.parametrize("command", ANALYSIS_COMMANDS, ids=lambda c: c[0])
def test_a_judge_of_a_run_judged_by_others(
    demo_run: Path, tmp_path: Path, command: list[str]
) -> None:
    run = _judged_by_gpt_4o(demo_run, tmp_path / "judged")
    line = _error([*command, "--run", str(run), "--judge", "nobody"])
    assert line == "error: no judgments by judge 'nobody' in the run; judges: gpt-4o"
    line = _error([*command, "--run", str(run), "--judge", "gpt4o"])  # a typo: named
    assert line == (
        "error: no judgments by judge 'gpt4o' (did you mean 'gpt-4o'?) in the run; judges: gpt-4o"
    )


def test_judge_reparse_of_a_judge_without_judgments(demo_run: Path, tmp_path: Path) -> None:
    """`judge reparse --judge NAME` with a judge that has no answers in the run (a typo) said
    "0 stored answer(s) re-parsed" and exit status 0, as if all were well."""
    line = _error(["judge", "reparse", "--run", str(demo_run), "--judge", "pilot"])
    assert line == (
        "error: no judgments by judge 'pilot': the run has no judgments yet; make them with "
        f"`poemetric judge --run {demo_run} --judge pilot`"
    )
    line = _error(["judge", "reparse", "--run", str(demo_run), "--judge", "nobody"])
    assert line.startswith(
        "error: no judgments by judge 'nobody': the run has no judgments yet, and judges/ has no "
        "judge 'nobody'; judges: claude-3.7-sonnet, "
    )
    run = _judged_by_gpt_4o(demo_run, tmp_path / "judged")
    line = _error(["judge", "reparse", "--run", str(run), "--judge", "gpt-4o,gpt4o"])
    assert line == (
        "error: no judgments by judge 'gpt4o' (did you mean 'gpt-4o'?) in the run; judges: gpt-4o"
    )
    known = CliRunner().invoke(app, ["judge", "reparse", "--run", str(run), "--judge", "gpt-4o"])
    assert known.exit_code == 0, known.output


@pytest.mark.parametrize(
    ("names", "unknown"),
    [
        (["nosuch"], "table 'nosuch'"),
        (
            ["poems", "generation", "xyz"],
            "tables 'generation' (did you mean 'generations'?), 'xyz'",
        ),
    ],
    ids=["unknown", "did-you-mean"],
)
def test_export_of_an_unknown_table(
    demo_run: Path, tmp_path: Path, names: list[str], unknown: str
) -> None:
    """An unknown table was Typer's usage box (the table list cut across its lines)."""
    out = tmp_path / "export"
    line = _error(["export", *names, "--run", str(demo_run), "--to", str(out)])
    assert line == f"error: tables: unknown {unknown}; tables: {', '.join(EXPORTABLE_TABLES)}"
    assert not out.exists()


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("blank.txt", "\n  \n", "no poem text (the file is empty or blank)"),
        ("poems.csv", "poem_id,content\np1,The fine wine\n", "is a CSV file, not a poem's text"),
    ],
    ids=["blank", "csv"],
)
def test_ghostwriting_score_of_a_file_that_is_not_one_poem(
    tmp_path: Path, name: str, content: str, reason: str
) -> None:
    """A blank file was scored (0 syllables, Raplyzer 0.000, exit 0); a CSV of poems was one
    poem whose verse was its rows."""
    poem = tmp_path / "poem.txt"
    poem.write_text("the fine wine\n", encoding="utf-8")
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    line = _error(["ghostwriting", "score", str(poem), str(path)])
    assert line.startswith(f"error: {path}: {reason}"), line


TASKS_LISTED = "tasks: rhyme_word_swap, rhyme_line_swap, synonym, delete_1_rhyming, "


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["probe", "build", "demo", "-o", "OUT", "--tasks", "nope"],
         f"error: --tasks: unknown task 'nope'; {TASKS_LISTED}"),
        (["probe", "build", "demo", "-o", "OUT", "--tasks", "synonym,synonim"],
         f"error: --tasks: unknown task 'synonim' (did you mean 'synonym'?); {TASKS_LISTED}"),
        (["probe", "build", "demo", "-o", "OUT", "--rhyme-from", "data"],
         "error: --rhyme-from: unknown value 'data' (did you mean 'dataset'?); choices: auto, "
         "dataset, checker"),
        (["probe", "build", "demo", "-o", "OUT", "--search", "nope"],
         "error: --search: unknown value 'nope'; choices: beam, delayed_beam, sample"),
        (["ghostwriting", "style-match", "--run", "RUN", "--judge", "nope"],
         "error: unknown judge 'nope'; see `poemetric models --judges` (files read from "),
        (["ghostwriting", "style-match", "--run", "RUN", "--judge", "gpt4o"],
         "error: unknown judge 'gpt4o' (did you mean 'gpt-4o'?); see `poemetric models "),
        (["ghostwriting", "style-match", "--run", "RUN", "--judge", "gpt-4o", "--authors", "humn"],
         "error: --authors: no poems by 'humn' (did you mean 'human'?) in run RUN; authors: "),
        (["ghostwriting", "metrics", "--run", "RUN", "--out", "OUT", "--no-dataset"],
         "error: --no-dataset leaves no reference corpus: give at least one --reference"),
        (["ghostwriting", "metrics", "--run", "RUN", "--raplyzer-phonetics", "nope"],
         "error: --raplyzer-phonetics: unknown value 'nope'; choices: cmu, espeak"),
        (["ghostwriting", "score", "--raplyzer-phonetics", "espek", "POEM"],
         "error: --raplyzer-phonetics: unknown value 'espek' (did you mean 'espeak'?); "),
        (["survey", "import", "MISSING", "--run", "RUN"],
         "error: ratings file MISSING: no such file"),
        (["survey", "import", "FOLDER", "--run", "RUN"],
         "error: ratings file FOLDER: is a folder; give a file"),
        (["ghostwriting", "score", "POEM", "MISSING"], "error: poem file MISSING: no such file"),
    ],
    ids=["tasks", "task-typo", "rhyme-from", "search", "style-match-judge", "judge-typo",
         "style-match-authors", "no-dataset", "phonetics", "phonetics-typo", "survey-import-missing",
         "survey-import-folder", "score-missing"],
)  # fmt: skip
def test_unusable_choices_and_missing_files_are_one_error_line(
    demo_run: Path, tmp_path: Path, args: list[str], expected: str
) -> None:
    """Each was Typer's usage box (`Invalid value for --tasks: ...` cut across the box's lines,
    `file '...' does not exist.`); a mistyped name now says the likely one."""
    poem = tmp_path / "poem.txt"
    poem.write_text("the fine wine\n", encoding="utf-8")
    places = {"OUT": tmp_path / "out", "RUN": demo_run, "POEM": poem,
              "MISSING": tmp_path / "missing.csv", "FOLDER": tmp_path}  # fmt: skip
    line = _error([str(places.get(arg, arg)) for arg in args])
    for name, place in places.items():
        expected = expected.replace(name, str(place))
    assert line.startswith(expected), line
    assert not (tmp_path / "out").exists()


def test_probe_run_of_an_unknown_task(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.jsonl"
    build = ["probe", "build", "demo", "--tasks", "rhyme_line_swap", "--output", str(pairs)]
    assert CliRunner().invoke(app, build).exit_code == 0
    scores = tmp_path / "scores.jsonl"
    line = _error(["probe", "run", str(pairs), "--tasks", "nope", "--output", str(scores)])
    assert line.startswith(f"error: --tasks: unknown task 'nope'; {TASKS_LISTED}"), line
    line = _error(["probe", "run", str(pairs), "--tasks", "rhyme_line_swaps", "-o", str(scores)])
    assert line.startswith("error: --tasks: unknown task 'rhyme_line_swaps' (did you mean "), line
    assert not scores.exists()


GENERATORS = ", ".join(map(str, roster_directories("generators")))


def test_an_unknown_probe_model_says_the_likely_one(tmp_path: Path) -> None:
    """`probe build --generator` and `probe run --scorer chat:` named no close model
    (`unknown --generator 'gtp-4o'; see ...`); they say it as every other model lookup does."""
    pairs = tmp_path / "pairs.jsonl"
    line = _error(["probe", "build", "demo", "--tasks", "last_line", "--generator", "gtp-4o",
                   "-o", str(pairs), "--run", str(tmp_path / "run")])  # fmt: skip
    assert line == (
        "error: unknown generator 'gtp-4o' (did you mean 'gpt-4o', 'gpt-4', 'gpt-4.5'?); see "
        f"`poemetric models` (files read from {GENERATORS}; a folder of your own: "
        "POEMETRIC_GENERATORS_DIR=DIR)"
    )
    build = ["probe", "build", "demo", "--tasks", "rhyme_line_swap", "--output", str(pairs)]
    assert CliRunner().invoke(app, build).exit_code == 0
    scores = tmp_path / "scores.jsonl"
    line = _error(["probe", "run", str(pairs), "--scorer", "chat:gtp-4o", "-o", str(scores),
                   "--run", str(tmp_path / "run")])  # fmt: skip
    assert line == (  # generators and judges both have gpt-4o: named once
        "error: unknown model 'gtp-4o' for chat: (did you mean 'gpt-4o', 'gpt-4', 'gpt-4.5'?); "
        "see `poemetric models`"
    )
    assert not scores.exists() and not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["agree", "MISSING"], "error: ratings file MISSING: no such file"),
        (["agree", "RATINGS", "--format", "xml"], "error: --format: unknown value 'xml'"),
        (["agree", "RATINGS", "--na", "n/a"], "error: --na 'n/a': use a number or 'none'"),
        (["agree", "RATINGS", "--scale", "5-1"], "error: --scale: "),
        (["analyze", "--run", "RUN", "--ci", "boot"], "error: --ci: unknown value 'boot'"),
        (["analyze", "--run", "RUN", "--experts", "MISSING"], "error: --experts MISSING: no such"),
        (["figures", "--run", "RUN", "--width", "wide"], "error: --width: "),
        (["figures", "--run", "RUN", "--format", "gif"], "error: --format: unknown format gif"),
        # The option once ("--shard: --shard 5/4: ..." named it twice).
        (["generate", "--run", "NEW", "--shard", "5/4"], "error: --shard 5/4: need N >= 1 and "),
        (["generate", "--run", "NEW", "--shard", "x"], "error: --shard must look like K/N (e.g. "),
        (["judge", "--run", "RUN", "--judge", "gpt-4o", "--shard", "4/4"], "error: --shard 4/4: "),
    ],
    ids=["agree-file", "agree-format", "agree-na", "agree-scale", "analyze-ci", "experts-file",
         "figures-width", "figures-format", "generate-shard", "generate-shard-form",
         "judge-shard"],
)  # fmt: skip
def test_option_values_that_cannot_be_used_are_one_error_line(
    demo_run: Path, tmp_path: Path, args: list[str], start: str
) -> None:
    """These answered with Typer's usage box (its lines cutting the message and paths)."""
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("unit,rater,score\np1,a,1\np1,b,2\np2,a,3\np2,b,3\n", encoding="utf-8")
    names = {
        "MISSING": str(tmp_path / "missing.csv"),
        "RATINGS": str(ratings),
        "RUN": str(demo_run),
        "NEW": str(tmp_path / "new-run"),
    }
    line = _error([names.get(a, a) for a in args])
    assert line.startswith(start.replace("MISSING", names["MISSING"])), line


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["report", "--run", "RUN", "--layout", "fil"],
         "error: --layout: unknown value 'fil' (did you mean 'file'?); choices: auto, file, folder"),
        (["report", "--run", "RUN", "--layout", "zip"],
         "error: --layout: unknown value 'zip'; choices: auto, file, folder"),
        (["prompts", "render", "--kind", "jduge"],
         "error: --kind: unknown value 'jduge' (did you mean 'judge'?); choices: generation, judge"),
    ],
    ids=["layout-close", "layout-far", "kind"],
)  # fmt: skip
def test_an_unknown_layout_or_kind_reads_like_every_unknown_choice(
    demo_run: Path, args: list[str], line: str
) -> None:
    """Typer checked these Enum options itself: its usage box said "Invalid value for
    '--layout': Value error, 'fil' is not one of 'auto', 'file', 'folder'.", pydantic's wording,
    with no suggestion; the other choices are one line with a did-you-mean."""
    assert _error([str(demo_run) if a == "RUN" else a for a in args]) == line


def test_a_mistyped_dataset_name_gets_a_suggestion(tmp_path: Path) -> None:
    """`generate --dataset dmeo` listed the known names but did not say which one was meant,
    as a mistyped model, judge or author does."""
    result = CliRunner().invoke(
        app, ["generate", "--dataset", "dmeo", "--run", str(tmp_path / "r"), "--no-progress"]
    )
    assert result.exit_code == 2
    assert "unknown dataset 'dmeo' (did you mean 'demo'?)" in result.output
    assert not (tmp_path / "r").exists()


def test_a_dataset_named_by_a_part_of_its_name_is_suggested(tmp_path: Path) -> None:
    """`--dataset lear` (for lear-limericks) was "unknown dataset 'lear'" with no suggestion:
    the word is too short a part of the name for a close match."""
    line = _error(["generate", "--run", str(tmp_path / "run"), "--dataset", "lear"])
    assert line.startswith("error: unknown dataset 'lear' (did you mean 'lear-limericks'?)"), line
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("judge", "named", "first"),
    [
        (
            "pilot",
            "'pilot' is a judge group (gemini-2.5-pro, gpt-4o, deepseek-r1)",
            "gemini-2.5-pro",
        ),
        ("gpt-4o,claude-3.7-sonnet", "'gpt-4o,claude-3.7-sonnet' names 2 judges", "gpt-4o"),
    ],
)
def test_style_match_names_a_judge_group_as_a_group(
    demo_run: Path, judge: str, named: str, first: str
) -> None:
    """`style-match --judge pilot`, as `judge` takes it, said "unknown judge 'pilot'"; a list
    `gpt-4o,claude-3.7-sonnet` was an unknown judge (did you mean 'claude-3.7-sonnet'?)."""
    line = _error(["ghostwriting", "style-match", "--run", str(demo_run), "--judge", judge])
    assert line == (
        f"error: --judge: {named}, and ghostwriting style-match runs one judge: give one "
        f"(e.g. --judge {first}) and run it once per judge"
    )


def test_survey_build_without_a_size_says_the_command_with_one(demo_run: Path) -> None:
    """It said "give --poems or --per-rater": neither what they mean nor a command to copy."""
    given = ["--raters", "ann,ben", "--survey", "lines", "--task", "lines"]
    line = _error(["survey", "build", "--run", str(demo_run), *given])
    assert line == (
        "error: survey build needs the sample's size: --per-rater N (poems each rater rates) or "
        "--poems N (poems in the sample), e.g. `poemetric survey build --run "
        f"{demo_run} --raters ann,ben --survey lines --task lines --per-rater 10`"
    )


def test_judge_recognise_without_a_judge_names_the_command_and_the_judges(demo_run: Path) -> None:
    """It was Typer's usage box "Invalid value for --judge: give one or more judges to ask"."""
    line = _error(["judge", "recognise", "--run", str(demo_run)])
    assert line.startswith(
        "error: no judge given: name the judges to ask with --judge (or POEMETRIC_JUDGE), e.g. "
        f"`poemetric judge recognise --run {demo_run} --judge gemini-2.5-pro`; judges: "
    )
    assert "gpt-4o" in line
