"""`merge` of run stores holding expert surveys, built and answered through the CLI (`survey
build`, `survey sheets`, `survey import`) and the real survey app: merge dropped every survey
table, so the answers collected on one machine were lost when its store was merged into
another's (silently: exit status 0)."""

from __future__ import annotations

import csv
import re
import shutil
from pathlib import Path

import httpx
import pandas as pd
import pytest
from click.testing import Result
from survey_support import add_generation, serving, survey_run
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore
from poemetric.survey import db, tokens
from poemetric.survey.agreement import current_agreement
from poemetric.survey.build import build_survey
from poemetric.survey.tasks import ATTENTION_KEY, Page, Question, option_value
from poemetric.survey.web import create_app

pytestmark = pytest.mark.slow

ANSWERS = "SELECT survey_id, rater_id, generation_id, question, score, text FROM survey_answers"


def _cli(*args: str | Path) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})


def _ok(*args: str | Path) -> Result:
    result = _cli(*args)
    assert result.exit_code == 0, result.output
    return result


def _machine(path: Path, survey: str = "experts", seed: int = 2) -> Path:
    """A run with a survey of 3 raters built (and its links made) through the CLI."""
    run = survey_run(path, poems=4)
    _ok("survey", "build", "--run", run, "--survey", survey, "--raters", "3", "--per-rater", "4",
        "--seed", str(seed), "--attention-checks", "1")  # fmt: skip
    _ok("survey", "links", "--run", run, "--survey", survey)
    _ok("survey", "sheets", "--run", run, "--survey", survey)
    return run


def _import(run: Path, rater: str, offset: int, survey: str = "experts") -> None:
    """`rater` fills their sheet (scores shifted by `offset`, one comment) and it is imported."""
    sheet = run / f"survey-{survey}" / f"{rater}.csv"
    rows = list(csv.DictReader(sheet.open(encoding="utf-8")))
    for index, row in enumerate(rows):
        row["score"] = str(1 + (index * 7 + sum(map(ord, row["poem"])) + offset) % 5)
        if row["item"] == "overall_quality":
            row["comment"] = f"{rater} liked it"
    filled = run.parent / f"{run.name}-{survey}-{rater}-{offset}.csv"
    with filled.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    _ok("survey", "import", filled, "--run", run, "--survey", survey)


def _answers(run: Path, survey: str = "experts") -> list[tuple[object, ...]]:
    with RunStore(run, create=False) as store:
        rows = store.query(ANSWERS + " WHERE survey_id = ? ORDER BY 1, 2, 3, 4", [survey])
    return [tuple(row) for row in rows]


def _agreement(run: Path, survey: str = "experts") -> pd.DataFrame:
    _ok("analyze", "--run", run, "--survey", survey, "--bootstrap", "50")
    return pd.read_csv(run / "analysis" / "agreement_experts.csv")


def _status(run: Path, survey: str = "experts", *, times: bool = True) -> str:
    """`survey status` of `run`; without `times`, its "last answer" times masked: a store whose
    sheets were imported at other moments (a slow machine: seconds apart) has other times."""
    output = _ok("survey", "status", "--run", run, "--survey", survey).output
    output = output.replace(str(run), "RUN")
    return output if times else re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "TIME", output)


def _web_check(run: Path, rater: str) -> None:
    """`rater` answers the attention check of their page through the real survey app."""
    with RunStore(run, create=False) as store:
        page = next(p for p in db.pages(store, "experts", rater) if p.check_expected)
        survey = db.load_survey(store, "experts")
        answer = {"attention_check": (float(page.check_expected or 0), None)}
        db.save_edits(store, survey, rater, page, answer, {"attention_check": 1_700_000_000_000},
                      required=[])  # fmt: skip


def _web_answers(
    run: Path, rater: str, page: Page, questions: list[Question], survey: str = "experts"
) -> None:
    """`rater` answers these questions of `page` in the survey app serving `run`, one save each
    (as the page's script sends them): a comment, the first option, or the check's answer."""
    secret = tokens.load_secret(run, create=False)
    token = tokens.rater_token(secret, survey, rater)
    csrf = tokens.csrf_token(secret, survey, rater)
    with serving(create_app(run, survey)) as url:
        for question in questions:
            if question.kind == "text":
                value = "fine"
            else:
                check = question.key == ATTENTION_KEY and page.check_expected is not None
                value = option_value(page.check_expected if check else question.options[0][0])
            saved = httpx.post(f"{url}/r/{token}/{page.position}/save", timeout=10,
                               data={"csrf": csrf, "field": question.key, "value": value})  # fmt: skip
            assert saved.status_code == 200, saved.text


def _opens(run: Path, link_run: Path, rater: str, survey: str = "experts") -> int:
    """The status the survey app serving `run` answers to `rater`'s link made in `link_run`."""
    token = tokens.rater_token(tokens.load_secret(link_run, create=False), survey, rater)
    with serving(create_app(run, survey)) as url:
        return httpx.get(f"{url}/r/{token}", follow_redirects=True, timeout=10).status_code


def _admin_agreement(run: Path) -> pd.DataFrame:
    """The agreement the survey app's admin page shows (it opens with the link made in `run`)."""
    admin = tokens.admin_token(tokens.load_secret(run, create=False), "experts")
    with serving(create_app(run, "experts")) as url:
        page = httpx.get(f"{url}/admin/{admin}", timeout=30)
    assert page.status_code == 200 and "R3" in page.text
    with RunStore(run, create=False) as store:
        shown = current_agreement(store, db.load_survey(store, "experts"))
    assert shown is not None
    return pd.DataFrame(shown.rows())


def test_a_survey_answered_on_one_machine_survives_the_merge(tmp_path: Path) -> None:
    """The merged run has the survey with every answer and attention check: `survey status`,
    `analyze --survey` and the app (the raters' links as they were sent) work as in the source."""
    a = _machine(tmp_path / "a")
    for offset, rater in enumerate(["R1", "R2", "R3"]):
        _import(a, rater, offset)
    _web_check(a, "R1")
    dest = tmp_path / "merged"
    result = _cli("merge", a, "--into", dest)
    assert result.exit_code == 0, result.output
    assert "survey_answers" in result.output
    assert _answers(dest) == _answers(a) and len(_answers(a)) == 3 * 4 * 11 + 1
    assert _status(dest) == _status(a) and "0 / 1 failed" in _status(dest)
    pd.testing.assert_frame_equal(_agreement(dest), _agreement(a))
    assert _opens(dest, a, "R2") == 200  # the link R2 was sent opens the merged run
    pd.testing.assert_frame_equal(_admin_agreement(dest), _admin_agreement(a))
    with RunStore(dest, create=False) as store:
        assert store.query("SELECT COUNT(*) FROM survey_edits")[0][0] == 1
        assert [p.completed for p in db.progress(store, "experts")] == [4, 4, 4]


def test_answers_imported_on_two_machines_merge_in_either_order(tmp_path: Path) -> None:
    """The run (with its survey) was copied to a second machine, where other raters' sheets were
    imported: merged in either order, the run holds every rater's answers, with the agreement of
    one store where all were imported."""
    a = _machine(tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    together = tmp_path / "together"
    shutil.copytree(a, together)
    _import(a, "R1", 0)
    _import(b, "R2", 1)
    _import(b, "R3", 2)
    _import(b, "R1", 0)  # the same sheet imported on both machines: the same answers
    for rater, offset in (("R1", 0), ("R2", 1), ("R3", 2)):
        _import(together, rater, offset)
    ab, ba = tmp_path / "ab", tmp_path / "ba"
    for dest, order in ((ab, (a, b)), (ba, (b, a))):
        result = _cli("merge", *order, "--into", dest)
        assert result.exit_code == 0, result.output
        assert "survey:" not in result.output and "links made" not in result.output
        assert _answers(dest) == _answers(together)
        assert _status(dest, times=False) == _status(together, times=False)
    expected = _agreement(together)
    pd.testing.assert_frame_equal(_agreement(ab), expected)
    pd.testing.assert_frame_equal(_agreement(ba), expected)
    again = _cli("merge", a, b, "--into", ab)  # idempotent
    assert again.exit_code == 0 and _answers(ab) == _answers(together)


def test_a_survey_merged_into_a_run_with_another_survey(tmp_path: Path) -> None:
    """Both surveys are kept; the links of the source's survey were made with another secret, so
    the merge says to send new ones, and those open the merged run."""
    a = _machine(tmp_path / "a")
    b = _machine(tmp_path / "b", survey="pilot", seed=5)
    _import(a, "R1", 0)
    _import(a, "R2", 1)
    _import(b, "R3", 0, survey="pilot")
    pilot = _answers(b, "pilot")
    result = _cli("merge", a, "--into", b)
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert f"survey experts: the rater links made in {a} do not open {b}" in flat
    assert f"poemetric survey links --run {b} --survey experts" in flat
    assert _answers(b, "experts") == _answers(a) and _answers(b, "pilot") == pilot
    assert _status(b, "experts") == _status(a, "experts")
    pd.testing.assert_frame_equal(_agreement(b, "experts"), _agreement(a, "experts"))
    assert _opens(b, b, "R1") == 200  # the new link
    assert _opens(b, a, "R1") == 404  # the old one, as the merge said
    assert _opens(b, b, "R1", survey="pilot") == 200


def test_differing_answers_of_one_survey_are_named_and_the_other_order_keeps_them(
    tmp_path: Path,
) -> None:
    a = _machine(tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    _import(a, "R1", 0)
    _import(b, "R1", 1)  # R1's sheet filled otherwise on the second machine
    _import(b, "R2", 2)
    dest = tmp_path / "ab"
    result = _cli("merge", a, b, "--into", dest)
    assert result.exit_code == 1, result.output
    flat = " ".join(result.output.split())
    # 4 poems x (10 scores + 1 comment), the 4 comments and no score alike
    assert f"survey: experts: 40 answers of {b} differ from those {dest} holds" in flat
    assert "R1 on " in flat and "merge in the other order" in flat
    r1 = [row for row in _answers(dest) if row[1] == "R1"]
    assert r1 == [row for row in _answers(a) if row[1] == "R1"]
    assert [row for row in _answers(dest) if row[1] == "R2"] == [
        row for row in _answers(b) if row[1] == "R2"
    ]
    other = tmp_path / "ba"
    assert _cli("merge", b, a, "--into", other).exit_code == 1
    assert _answers(other) == _answers(b)


def test_a_survey_built_otherwise_under_one_name_is_left_out_and_named(tmp_path: Path) -> None:
    """Two machines each built an 'experts' survey (other seeds: other pages): they cannot be
    one; the destination's is kept, the source's named with what to do, and that works."""
    a = _machine(tmp_path / "a")
    b = _machine(tmp_path / "b", seed=7)
    _import(a, "R1", 0)
    _import(b, "R2", 1)
    dest = tmp_path / "ab"
    result = _cli("merge", a, b, "--into", dest)
    assert result.exit_code == 1, result.output
    flat = " ".join(result.output.split())
    assert f"survey: experts of {b} was left out: built with seed 7 there, 2 here" in flat
    assert _answers(dest) == _answers(a)
    _ok("export", "survey_answers", "--run", b, "--to", tmp_path / "out")
    exported = tmp_path / "out" / "survey_answers.csv"
    _ok("survey", "import", exported, "--run", dest, "--survey", "experts-b", "--new")
    assert [row[1:] for row in _answers(dest, "experts-b")] == [row[1:] for row in _answers(b)]


def test_a_survey_of_poems_the_destination_holds_otherwise_is_left_out(tmp_path: Path) -> None:
    """A surveyed poem has another text in the source (a conflicting generation): its raters'
    answers would rate the destination's text, so the survey is left out and named."""
    a = _machine(tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    _import(b, "R1", 0)
    with RunStore(b, create=False) as store, store.transaction() as conn:
        poem = store.query("SELECT generation_id FROM survey_answers LIMIT 1")[0][0]
        conn.execute("UPDATE generations SET poem = 'another text' WHERE generation_id = ?",
                     (poem,))  # fmt: skip
    dest = tmp_path / "ab"
    result = _cli("merge", a, b, "--into", dest)
    assert result.exit_code == 1, result.output
    flat = " ".join(result.output.split())
    assert f"survey: experts of {b} was left out: 1 of the poems its raters rated" in flat
    assert f"merge {b} first, in the other order" in flat
    assert _answers(dest) == []
    other = tmp_path / "ba"
    assert _cli("merge", b, a, "--into", other).exit_code == 0
    assert _answers(other) == _answers(b)


def test_ratings_imported_without_a_build_on_two_machines_are_one_survey(tmp_path: Path) -> None:
    """`survey import` of ratings collected elsewhere starts a survey of that name on each
    machine (recording its own file's name): the two are one survey, with both raters."""
    a = survey_run(tmp_path / "a", poems=2)
    b = tmp_path / "b"
    shutil.copytree(a, b)
    with RunStore(a, create=False) as store:
        poems = [row[0] for row in store.query("SELECT generation_id FROM generations")]
    for run, rater in ((a, "E1"), (b, "E2")):
        ratings = tmp_path / f"{rater}.csv"
        lines = ["poem,rater,item,score"]
        lines += [f"{poem},{rater},form,{1 + i % 5}" for i, poem in enumerate(poems)]
        ratings.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _ok("survey", "import", ratings, "--run", run, "--survey", "paper")
    dest = tmp_path / "ab"
    result = _cli("merge", a, b, "--into", dest)
    assert result.exit_code == 0, result.output
    assert _answers(dest, "paper") == sorted(_answers(a, "paper") + _answers(b, "paper"))
    assert "E1" in _status(dest, "paper") and "E2" in _status(dest, "paper")


def test_a_page_answered_half_on_each_machine_is_complete_once_merged(tmp_path: Path) -> None:
    """R1 answered half of two pages in the survey app on one machine and the rest (one page's
    attention check among them) on the other: complete in neither store, the pages stayed
    unfinished in the merged run although every answer was there (`survey status` and the app
    counted them undone). A page still lacking an answer, or its attention check, stays so."""
    a = _machine(tmp_path / "a")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    with RunStore(a, create=False) as store:
        survey = db.load_survey(store, "experts")
        pages = {rater: db.pages(store, "experts", rater) for rater in ("R1", "R2")}
    checked = next(p for p in pages["R1"] if p.check_expected)
    plain, half_done = [p for p in pages["R1"] if not p.check_expected][:2]
    for page in (checked, plain):
        questions = survey.task.questions(page)
        _web_answers(a, "R1", page, questions[: len(questions) // 2])
        _web_answers(b, "R1", page, questions[len(questions) // 2 :])
    questions = survey.task.questions(half_done)
    _web_answers(a, "R1", half_done, questions[: len(questions) // 2])
    unchecked = next(p for p in pages["R2"] if p.check_expected)  # all but its check
    questions = [q for q in survey.task.questions(unchecked) if q.key != ATTENTION_KEY]
    _web_answers(a, "R2", unchecked, questions[:3])
    _web_answers(b, "R2", unchecked, questions[3:])
    for run in (a, b):
        with RunStore(run, create=False) as store:
            assert [p.completed for p in db.progress(store, "experts")] == [0, 0, 0]

    for order in ((a, b), (b, a)):
        dest = tmp_path / "-".join(run.name for run in order)
        result = _cli("merge", *order, "--into", dest)
        assert result.exit_code == 0, result.output
        with RunStore(dest, create=False) as store:
            done = db.completed_positions(store, "experts", "R1")
            assert done == {checked.position, plain.position}
            assert db.completed_positions(store, "experts", "R2") == set()
        assert _pages_merged(result) == {"new": 12, "same": 10, "updated": 2}, result.output
        assert re.search(r"│ R1 +│ +2 │ +4 │", _status(dest)), _status(dest)
        again = _cli("merge", *order, "--into", dest)  # idempotent
        assert again.exit_code == 0 and _pages_merged(again) == {"same": 24}, again.output


def _pages_merged(result: Result) -> dict[str, int]:
    """The merge table's counts of survey pages (`survey_assignments`) that are not 0."""
    lines = result.output.splitlines()
    heads = [h.strip() for h in next(line for line in lines if "┃" in line).split("┃")]
    row = next(line for line in lines if line.startswith("survey_assignments "))
    counts = [int(c) for c in row.split("│")[1:]]
    return {head: count for head, count in zip(heads[1:], counts, strict=True) if count}


def test_a_line_survey_page_graded_half_on_each_machine_keeps_both_halves(tmp_path: Path) -> None:
    """A line survey stores every line of a poem at its first save, the lines not graded yet
    empty: graded half on each machine, the merge kept the newer machine's rows whole, empty
    grades and all, so the other machine's grades were lost (in either order)."""
    a = survey_run(tmp_path / "a", poems=2)
    with RunStore(a, create=False) as store:
        add_generation(store, "parrot-1", "parrot", "One line\nAnother line\nA third line")
        build_survey(store, survey_id="lines", task_name="lines", raters="ann,ben", poems=2,
                     authors=["human", "parrot"], seed=1)  # fmt: skip
        survey = db.load_survey(store, "lines")
        page = next(p for p in db.pages(store, "lines", "ann") if p.generation_id == "parrot-1")
    _ok("survey", "links", "--run", a, "--survey", "lines")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    questions = survey.task.questions(page)
    _web_answers(a, "ann", page, questions[:2], survey="lines")
    _web_answers(b, "ann", page, questions[2:], survey="lines")
    for order in ((a, b), (b, a)):
        dest = tmp_path / "-".join(run.name for run in order)
        result = _cli("merge", *order, "--into", dest)
        assert result.exit_code == 0, result.output
        with RunStore(dest, create=False) as store:
            graded = survey.task.answers.load(store.conn, "lines", "ann", "parrot-1")["parrot-1"]
            assert sorted(graded) == sorted(q.key for q in questions)
            assert db.completed_positions(store, "lines", "ann") == {page.position}
