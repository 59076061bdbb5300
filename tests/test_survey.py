"""Survey design, the survey CLI (build, sheets, import, links, status) and analysis of its
answers: judge-vs-expert and expert-vs-expert agreement with CIs on a run rated by 3 raters."""

from __future__ import annotations

import csv
import random
import socket
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from survey_support import survey_run
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore
from poemetric.survey import db
from poemetric.survey.design import (
    Candidate,
    DesignError,
    assign,
    overlap,
    resolve_sizes,
    stratified_sample,
)
from poemetric.survey.instrument import appendix_c_survey

runner = CliRunner()


def test_sample_is_stratified_by_author_and_form() -> None:
    forms = ["sonnet", "ballad", "villanelle"]
    pool = [Candidate(f"{a}-{i}", a, forms[i % 3]) for a in ("human", "x", "y", "z")
            for i in range(30)]  # fmt: skip
    sample = stratified_sample(pool, 24, random.Random(3))
    assert len({c.generation_id for c in sample}) == 24
    assert set(Counter(c.author for c in sample).values()) == {6}
    assert set(Counter(c.form for c in sample).values()) == {8}
    assert [c.generation_id for c in stratified_sample(pool, 24, random.Random(3))] == [
        c.generation_id for c in sample
    ]


def test_assignment_balances_loads_and_overlaps_every_pair() -> None:
    # The paper's 7 raters x 10 poems, now with 2 raters per poem: 35 poems.
    sizes = resolve_sizes(raters=7, per_poem=2, poems=None, per_rater=10, available=100)
    assert sizes.poems == 35 and sizes.loads == (10, 10)
    raters = [f"R{i}" for i in range(1, 8)]
    assigned = assign([f"p{i}" for i in range(35)], raters, 2, random.Random(0))
    assert {len(p) for p in assigned.values()} == {10}
    per_poem = Counter(p for poems in assigned.values() for p in poems)
    assert set(per_poem.values()) == {2}
    assert min(overlap(assigned).values()) >= 1  # every pair of raters shares a poem


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"raters": 3, "per_poem": 1, "poems": 5, "per_rater": None}, "at least 2"),
        ({"raters": 2, "per_poem": 3, "poems": 5, "per_rater": None}, "needs at least 3 raters"),
        ({"raters": 3, "per_poem": 2, "poems": 5, "per_rater": 4}, "drop one of"),
        ({"raters": 3, "per_poem": 2, "poems": None, "per_rater": None}, "give --poems"),
        ({"raters": 3, "per_poem": 2, "poems": 50, "per_rater": None}, "only 20 successful"),
    ],
)
def test_impossible_sizes_are_explained(kwargs: dict[str, int], message: str) -> None:
    with pytest.raises(DesignError, match=message):
        resolve_sizes(available=20, **kwargs)  # type: ignore[arg-type]


def test_instrument_is_the_appendix_c_text() -> None:
    survey = appendix_c_survey()
    source = Path(__file__).resolve().parent.parent / "prompts" / "survey.md"
    text = source.read_text(encoding="utf-8")
    for part in [survey.title, *survey.instructions, survey.questions_preface]:
        assert part in text
    assert [q.number for q in survey.questions] == list(range(1, 14))
    assert [q.number for q in survey.questions if q.required] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12]
    assert survey.questions[6].options[0] == (0, "N/A (No imagery is used)")


def _fill(template: Path, offset: int) -> None:
    """A rater fills their CSV template: scores shifted by `offset`, one comment."""
    rows = list(csv.DictReader(template.open(encoding="utf-8")))
    for index, row in enumerate(rows):
        row["score"] = str(1 + (index + offset) % 5)
        if row["item"] == "overall_quality":
            row["comment"] = "vivid, but the turn, alas, comes late"
    with template.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


@pytest.mark.slow
def test_survey_cli_from_build_to_agreement_tables(tmp_path: Path) -> None:
    run = survey_run(tmp_path / "run", poems=4, judge=True)
    build = ["survey", "build", "--run", str(run), "--raters", "3", "--per-rater", "4"]
    result = runner.invoke(app, [*build, "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert (
        "6 poems x 2 raters" in result.output and "by author: human 3, machine 3" in result.output
    )
    assert "drawn with seed 2" in " ".join(result.output.split())  # how to draw it again
    again = runner.invoke(app, build)
    assert again.exit_code == 2 and again.stdout == ""
    assert again.stderr.startswith("error: survey 'experts' already exists")
    bad = runner.invoke(app, [*build, "--survey", "other", "--per-poem", "4"])
    assert bad.exit_code == 2 and "needs at least 4 raters" in bad.output

    sheets = runner.invoke(app, ["survey", "sheets", "--run", str(run)])
    assert sheets.exit_code == 0, sheets.output
    folder = run / "survey-experts"
    html = (folder / "R1.html").read_text(encoding="utf-8")
    assert appendix_c_survey().instructions[0] in html and "page-break-before" in html
    assert "Attention check" not in html
    for offset, rater in enumerate(["R1", "R2", "R3"]):
        _fill(folder / f"{rater}.csv", offset if rater != "R2" else 0)
        imported = runner.invoke(
            app, ["survey", "import", str(folder / f"{rater}.csv"), "--run", str(run)]
        )
        assert imported.exit_code == 0, imported.output
        assert "44 new, 0 replaced" in imported.output  # 4 poems x (10 items + 1 comment)
    with RunStore(run, create=False) as store:
        assert store.count("survey_answers", "question = 'comment_overall_quality'") == 12
        assert [p.completed for p in db.progress(store, "experts")] == [4, 4, 4]

    broken = folder / "broken.csv"
    broken.write_text("poem,rater,item,score\nnope,R1,form,3\n", encoding="utf-8")
    refused = runner.invoke(app, ["survey", "import", str(broken), "--run", str(run)])
    assert refused.exit_code == 2 and refused.stdout == "", refused.output
    assert refused.stderr.startswith("error: ") and "broken.csv:2: poem 'nope'" in refused.stderr

    links = runner.invoke(
        app, ["survey", "links", "--run", str(run), "--base-url", "https://s.example"]
    )
    assert links.exit_code == 0 and links.output.count("https://s.example/r/") == 3
    status = runner.invoke(app, ["survey", "status", "--run", str(run)])
    assert status.exit_code == 0 and "R3" in status.output

    result = runner.invoke(app, ["analyze", "--run", str(run), "--bootstrap", "100"])
    assert result.exit_code == 0, result.output
    assert "judge judge-x vs experts (all items, 6 poems" in result.output
    assert "experts (all items, 6 poems, 120 paired ratings)" in result.output
    judge = pd.read_csv(run / "analysis" / "agreement.csv").set_index("item")
    experts = pd.read_csv(run / "analysis" / "agreement_experts.csv").set_index("item")
    for table in (judge, experts):
        assert set(table.index) == {*DIMENSION_KEYS, "all"}
        for name in ("pao", "adjacent", "alpha_interval", "gwet_ac1", "qwk", "kendall"):
            assert table.at["all", f"{name}_ci_low"] <= table.at["all", name]
            assert table.at["all", name] <= table.at["all", f"{name}_ci_high"]
    assert judge.at["all", "n_pairs"] == 6 * 10 * 2  # judge with each of the 2 raters per poem


def test_importing_an_unfilled_template_is_an_error_naming_the_file(tmp_path: Path) -> None:
    """A rater's CSV saved without answers imported "0 answers" with exit status 0."""
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    built = runner.invoke(app, ["survey", "build", "--run", run, "--raters", "2", "--poems", "2"])
    assert built.exit_code == 0, built.output
    assert runner.invoke(app, ["survey", "sheets", "--run", run]).exit_code == 0
    template = tmp_path / "run" / "survey-experts" / "R1.csv"
    for survey in ("experts", "new-one"):
        result = runner.invoke(app, ["survey", "import", str(template), "--run", run, "-s", survey])
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert result.stderr.startswith(f"error: {template}: no filled answers found")
        assert "e.g. page,poem,rater,item,score,comment = 1,POEM_ID,R1,form,4," in result.stderr
    with RunStore(tmp_path / "run", create=False) as store:
        assert store.count("survey_answers") == 0
        assert [r[0] for r in store.query("SELECT survey_id FROM surveys")] == ["experts"]


def test_a_sheet_imported_under_another_raters_id_is_pointed_out(tmp_path: Path) -> None:
    """R1's filled sheet with R2 in its rater column (or R1's answers sent as R2's) was stored
    as R2's answers, on poems R2 was never given, with no word but "imported"."""
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    build = ["survey", "build", "--run", run, "--raters", "3", "--poems", "3", "--per-rater", "2"]
    assert runner.invoke(app, build).exit_code == 0
    assert runner.invoke(app, ["survey", "sheets", "--run", run]).exit_code == 0
    sheet = tmp_path / "run" / "survey-experts" / "R1.csv"
    _fill(sheet, 0)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text(sheet.read_text(encoding="utf-8").replace(",R1,", ",R2,"), encoding="utf-8")
    result = runner.invoke(app, ["survey", "import", str(wrong), "--run", run])
    assert result.exit_code == 0 and "imported 22 answers" in result.stdout, result.output
    assert "did not give these poems to the rater the file names: R2 (1 poem)" in " ".join(
        result.stderr.split()
    )
    right = runner.invoke(app, ["survey", "import", str(sheet), "--run", run])
    assert right.exit_code == 0 and right.stderr == "", right.output


def test_a_comment_longer_than_the_page_allows_is_refused_on_import_with_its_line(
    tmp_path: Path,
) -> None:
    """`survey import` stored a comment of 10,001 characters; the survey page, which takes at
    most 10,000, then refused to save that poem's page until the rater shortened the imported
    comment. The import is refused, naming file and line; 10,000 characters in lines broken
    with CRLF (counted once, as the page counts them) are imported."""
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    built = runner.invoke(app, ["survey", "build", "--run", run, "--raters", "2", "--poems", "2"])
    assert built.exit_code == 0, built.output
    assert runner.invoke(app, ["survey", "sheets", "--run", run]).exit_code == 0
    sheet = tmp_path / "run" / "survey-experts" / "R1.csv"
    _fill(sheet, 0)
    text = sheet.read_text(encoding="utf-8")
    line = 1 + text.splitlines().index(next(r for r in text.splitlines() if "overall_quality" in r))
    long = tmp_path / "long.csv"
    long.write_text(text.replace("vivid, but the turn, alas, comes late", "x" * 10_001, 1))
    result = runner.invoke(app, ["survey", "import", str(long), "--run", run])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert (
        f"{long}:{line}: comment_overall_quality: 10,001 characters is 1 over the limit of "
        "10,000 that the survey page allows" in " ".join(result.stderr.split())
    ), result.stderr
    with RunStore(tmp_path / "run", create=False) as store:
        assert store.count("survey_answers") == 0
    lines = "word\r\n" * 1999 + "word"  # 9,999 characters as the page counts them (quoted)
    fits = tmp_path / "fits.csv"
    fits.write_text(text.replace("vivid, but the turn, alas, comes late", lines, 1))
    result = runner.invoke(app, ["survey", "import", str(fits), "--run", run])
    assert result.exit_code == 0, result.output


@pytest.mark.slow
def test_survey_serve_binds_localhost_and_prints_working_links(tmp_path: Path) -> None:
    import re
    import socket
    import subprocess
    import sys

    import httpx

    run = survey_run(tmp_path / "run", poems=2)
    assert runner.invoke(app, ["survey", "build", "--run", str(run), "--poems", "3"]).exit_code == 0
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [sys.executable, "-m", "poemetric", "survey", "serve", "--run", str(run),
               "--port", str(port)]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(5)]
        links = [m[0] for line in lines for m in [re.search(r"http://\S+", line)] if m]
        assert len(links) == 4 and all(f"http://127.0.0.1:{port}/" in link for link in links)
        response = _get_once_up(links[0])
        assert response.status_code == 200 and "Please read the prompt" in response.text
        assert httpx.get(links[-1], timeout=2).status_code == 200  # the admin page
    finally:
        server.terminate()
        server.wait(10)


def _get_once_up(url: str) -> Any:
    """GET `url` once the just-started server answers (up to about 10 s)."""
    import time

    import httpx

    for _ in range(100):
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            time.sleep(0.1)
    return httpx.get(url, timeout=2)  # the last try raises what keeps it from answering


def _a_poem(run: Path) -> str:
    with RunStore(run, create=False) as store:
        return str(store.query("SELECT generation_id FROM generations WHERE status = 'ok'")[0][0])


def test_an_item_named_by_key_and_by_question_number_is_a_duplicate_row(tmp_path: Path) -> None:
    """`form` and `1` are the same item: the second row silently replaced the first ("1
    replaced"), and `analyze --experts` averaged the two scores (1 and 5 -> 3.0)."""
    prepared_store(tmp_path / "run", poems=2).close()
    run, poem = tmp_path / "run", _a_poem(tmp_path / "run")
    ratings = tmp_path / "R1.csv"
    ratings.write_text(
        f"poem,rater,item,score\n{poem},R1,form,1\n{poem},R1,theme,4\n{poem},R1,1,5\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["survey", "import", str(ratings), "--run", str(run)])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert f"R1.csv:4: rater 'R1' rated item 'form' of poem {poem} already on line 2" in (
        result.stderr
    )
    with RunStore(run, create=False) as store:
        assert store.count("survey_answers") == 0
    analyzed = runner.invoke(app, ["analyze", "--run", str(run), "--experts", str(ratings)])
    assert analyzed.exit_code == 2 and "already on line 2" in analyzed.stderr, analyzed.output


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        # Windows-1252 is read, with a warning (test_csv_spreadsheet_files.py); 0x81 is not
        # a Windows-1252 character.
        (b"poem,rater,item,score,comment\nP,R1,overall_quality,4,tr\x81s bien\n",
         "line 2: not valid UTF-8 (byte 0x81"),
        (b"", "line 1: empty file: no header row"),
    ],
    ids=["neither utf-8 nor cp1252", "empty"],
)  # fmt: skip
def test_an_unreadable_ratings_file_is_refused_with_its_reason(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    """A sheet in an unknown encoding (a byte of neither UTF-8 nor Windows-1252) was told it
    lacked every column: "missing column(s): expert, poem or generation_id ...; found none"."""
    prepared_store(tmp_path / "run", poems=2).close()
    ratings = tmp_path / "R1.csv"
    ratings.write_bytes(content.replace(b"P,", _a_poem(tmp_path / "run").encode() + b","))
    result = runner.invoke(app, ["survey", "import", str(ratings), "--run", str(tmp_path / "run")])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.startswith(f"error: {ratings}: cannot read expert ratings: {reason}")
    assert "missing column" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_survey_serve_on_a_port_in_use_is_an_error_before_any_link(tmp_path: Path) -> None:
    """It printed every rater's link for a server that never started, then uvicorn's
    "ERROR: [Errno 98] ... address already in use" (exit status 3)."""
    import socket

    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    assert runner.invoke(app, ["survey", "build", "--run", run, "--poems", "2"]).exit_code == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["survey", "serve", "--run", run, "--port", str(port)])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == (
        f"error: cannot serve on 127.0.0.1:{port}: Address already in use (another `survey "
        "serve` or program uses it: choose another --port)\n"
    )


@pytest.mark.slow
def test_survey_serve_on_ipv6_prints_links_a_browser_opens(tmp_path: Path) -> None:
    """`--host ::1` printed http://::1:PORT/r/... links, which are not URLs."""
    import re
    import socket
    import subprocess
    import sys

    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
            port = sock.getsockname()[1]
    except OSError:
        pytest.skip("no IPv6 loopback here")
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    assert runner.invoke(app, ["survey", "build", "--run", run, "--poems", "2"]).exit_code == 0
    command = [sys.executable, "-m", "poemetric", "survey", "serve", "--run", run,
               "--host", "::1", "--port", str(port)]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(4)]
        links = [m[0] for line in lines for m in [re.search(r"http://\S+", line)] if m]
        assert links and all(link.startswith(f"http://[::1]:{port}/") for link in links), lines
        response = _get_once_up(links[0])
        assert response.status_code == 200
    finally:
        server.terminate()
        server.wait(10)


def test_survey_build_names_a_rater_given_twice(tmp_path: Path) -> None:
    """`--raters ann,ann,ben` was told "at least 2 distinct rater ids" (it has two)."""
    prepared_store(tmp_path / "run", poems=4).close()
    build = ["survey", "build", "--run", str(tmp_path / "run"), "--poems", "2", "--raters"]
    result = runner.invoke(app, [*build, "ann,ben,ann"])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == "error: --raters: ann named more than once\n"
    alone = runner.invoke(app, [*build, "ann"])
    assert alone.stderr == "error: --raters: at least 2 distinct rater ids\n"


def test_survey_build_refuses_one_rater_spelled_two_ways(tmp_path: Path) -> None:
    """`--raters Ann,ben,ann` built a survey of 3 raters, though `survey import`, `analyze
    --experts` and `agree` each refuse a file naming one rater `Ann` and `ann` (and the sheets
    `Ann.html` and `ann.html` are one file where case is not told apart)."""
    run = tmp_path / "run"
    prepared_store(run, poems=4).close()
    build = ["survey", "build", "--run", str(run), "--poems", "2", "--raters"]
    result = runner.invoke(app, [*build, "Ann,ben, ann"], env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert " ".join(result.stderr.split()) == (
        "error: --raters: rater ids differ from each other only in case or spaces: 'Ann' (rater "
        "1) and 'ann' (rater 3); ids are exact, so one rater's answers would be read as several "
        "raters, whose ratings of the same poem agree with each other in the agreement. Write each "
        "rater's id the same way in --raters and build again; nothing built"
    )
    with RunStore(run, create=False) as store:
        assert store.query("SELECT COUNT(*) FROM surveys")[0][0] == 0
    assert runner.invoke(app, [*build, "Ann,ben"]).exit_code == 0


def test_a_fractional_score_or_an_na_where_none_is_offered_says_so(tmp_path: Path) -> None:
    """3.5 was "outside 1-5" (it is inside: it is not a whole number) and N/A on an item
    without N/A "not a number"; a row without its poem id was "no successful generation for
    poem_id='', author=''" (columns the file does not have)."""
    prepared_store(tmp_path / "run", poems=2).close()
    poem = _a_poem(tmp_path / "run")
    ratings = tmp_path / "R1.csv"
    ratings.write_text(
        f"poem,rater,item,score\n{poem},R1,form,3.5\n{poem},R1,theme,N/A\n{poem},R1,imagery,n/a\n"
        ",R1,form,4\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["survey", "import", str(ratings), "--run", str(tmp_path / "run")])
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.splitlines()[1:] == [
        f"  {ratings}:2: form = '3.5' is not a whole number; the scale is 1-5",
        f"  {ratings}:3: theme = 'N/A': N/A only for imagery and literary_devices",
        f"  {ratings}:5: empty poem",
    ]


def test_a_filled_sheet_completes_every_page_even_with_attention_checks(tmp_path: Path) -> None:
    """Attention checks are web only (the printed sheets leave them out), yet a page that had
    one stayed unfinished after its rater's filled sheet was imported: `survey status` showed
    9 of 10 pages done for a rater who had answered everything."""
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    build = ["survey", "build", "--run", run, "--raters", "2", "--poems", "4"]
    built = runner.invoke(app, [*build, "--attention-checks", "1"])
    assert built.exit_code == 0, built.output
    assert runner.invoke(app, ["survey", "sheets", "--run", run]).exit_code == 0
    sheet = tmp_path / "run" / "survey-experts" / "R1.csv"
    _fill(sheet, 0)
    imported = runner.invoke(app, ["survey", "import", str(sheet), "--run", run])
    assert imported.exit_code == 0, imported.output
    with RunStore(tmp_path / "run", create=False) as store:
        r1 = next(p for p in db.progress(store, "experts") if p.rater == "R1")
    assert r1.checks == 1 and r1.checks_failed == 0
    assert r1.checks_text() == "not shown (imported)"  # not "0 / 1 failed": never shown
    assert r1.completed == r1.assigned == 4


def test_exported_survey_answers_import_and_analyze_as_they_are(tmp_path: Path) -> None:
    """`poemetric export survey_answers` wrote a file that neither `survey import` nor `analyze
    --experts` read ("missing columns: expert, item and score (long format) or ..."): answers
    exported to move or back up could not come back. The export's own columns are a format."""
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    build = ["survey", "build", "--run", run, "--raters", "2", "--poems", "4"]
    assert runner.invoke(app, [*build, "--attention-checks", "1"]).exit_code == 0
    assert runner.invoke(app, ["survey", "sheets", "--run", run]).exit_code == 0
    for offset, rater in enumerate(["R1", "R2"]):
        sheet = tmp_path / "run" / "survey-experts" / f"{rater}.csv"
        _fill(sheet, offset)
        assert runner.invoke(app, ["survey", "import", str(sheet), "--run", run]).exit_code == 0
    with RunStore(tmp_path / "run", create=False) as store:  # R1 passes a check on the web
        page = next(p for p in db.pages(store, "experts", "R1") if p.check_expected)
        answer = {"attention_check": (float(page.check_expected or 0), None)}
        survey = db.load_survey(store, "experts")
        db.save_edits(store, survey, "R1", page, answer, {"attention_check": None}, required=[])
    exported = runner.invoke(app, ["export", "survey_answers", "--run", run, "--to", str(tmp_path)])
    assert exported.exit_code == 0, exported.output
    answers = str(tmp_path / "survey_answers.csv")

    imported = runner.invoke(app, ["survey", "import", answers, "--run", run, "--survey", "copy"])
    assert imported.exit_code == 0, imported.output
    # R1's check is stored too, but 'copy' cannot judge it (tests/test_survey_restore_checks.py).
    assert "imported 89 answers (89 new, 0 replaced) by 2 raters" in imported.output
    assert "cannot judge the attention checks answered by R1 (1 check)" in " ".join(
        imported.output.split()
    )
    query = "SELECT rater_id, generation_id, question, score, text FROM survey_answers "
    with RunStore(tmp_path / "run", create=False) as store:
        original = store.query(query + "WHERE survey_id = 'experts' ORDER BY 1, 2, 3")
        copied = store.query(query + "WHERE survey_id = 'copy' ORDER BY 1, 2, 3")
    assert [tuple(r) for r in copied] == [tuple(r) for r in original]
    analyzed = runner.invoke(app, ["analyze", "--run", run, "--experts", answers])
    assert analyzed.exit_code == 0, analyzed.output
    assert "expert ratings from" in analyzed.output


def test_survey_status_at_80_columns_keeps_rater_ids_whole(tmp_path: Path) -> None:
    """At 80 columns (a pipe, a log) `survey status` cut rater ids to "alexandra-whitf…" (and
    the raters of an imported file of several surveys all to "experts:…"): they are folded."""
    prepared_store(tmp_path / "run", poems=4).close()
    run = str(tmp_path / "run")
    raters = ["alexandra-whitfield", "bartholomew-okonkwo-jones"]
    build = ["survey", "build", "--run", run, "--raters", ",".join(raters), "--poems", "2"]
    assert runner.invoke(app, build).exit_code == 0
    result = runner.invoke(app, ["survey", "status", "--run", run], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert "…" not in result.output and max(map(len, lines)) <= 80
    body = lines[lines.index(next(line for line in lines if line.startswith("┡"))) + 1 : -1]
    assert "".join(line.split("│")[1].strip() for line in body) == "".join(raters)


def test_a_base_url_without_its_scheme_is_refused(tmp_path: Path) -> None:
    """`--base-url rate.example.org` printed links "rate.example.org/r/TOKEN", which a rater's
    mail opens as nothing (or as a search); the scheme is asked for."""
    prepared_store(tmp_path / "run", poems=2).close()
    run = str(tmp_path / "run")
    assert runner.invoke(app, ["survey", "build", "--run", run, "--poems", "2"]).exit_code == 0
    with socket.socket() as taken:  # `serve` never serves here, with or without the check
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for extra in (["links"], ["serve", "--port", port]):
            result = runner.invoke(
                app, ["survey", *extra, "--run", run, "--base-url", "rate.example.org/s"]
            )
            assert result.exit_code == 2 and result.stdout == "", result.output
            assert result.stderr == (
                "error: --base-url rate.example.org/s: give the scheme too, e.g. "
                "https://rate.example.org/s\n"
            )
