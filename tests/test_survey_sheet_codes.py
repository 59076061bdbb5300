"""Printed survey sheets keep the raters blind: a poem is named by a code only the run's survey
secret maps back, not by its generation id, which anyone can recompute from the poem id, the
generation template and a candidate author, and so read off who wrote the poem."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from survey_support import survey_run
from typer.testing import CliRunner

from poemetric.analysis.experts import ExpertRatingsError, read_expert_answers
from poemetric.annotation.task import stored_tasks
from poemetric.cli import app
from poemetric.pipeline import prompt_id_for
from poemetric.store import RunStore, generation_id_for
from poemetric.store.poem_codes import poem_code
from poemetric.survey import db
from poemetric.survey.build import build_survey

runner = CliRunner()


@pytest.fixture(scope="module")
def sheets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = survey_run(tmp_path_factory.mktemp("sheets") / "run", poems=3)
    with RunStore(run, create=False) as store:
        build_survey(store, raters="ann,ben", per_rater=3, per_poem=2, seed=4)
    result = runner.invoke(app, ["survey", "sheets", "--run", str(run)])
    assert result.exit_code == 0, result.output
    return run


def _recomputed_authors(store: RunStore, authors: list[str]) -> dict[str, str]:
    """What a rater can compute without the run: generation id -> author, for every poem of
    the dataset, the shipped generation template and each candidate author."""
    poems = [row[0] for row in store.query("SELECT poem_id FROM poems")]
    templates = {row[0] for row in store.query("SELECT template_hash FROM prompts")}
    return {
        generation_id_for(prompt_id_for(poem, template), author, 0): author
        for poem in poems
        for template in templates
        for author in authors
    }


def test_a_sheet_names_no_poem_by_an_id_a_rater_could_recompute(sheets: Path) -> None:
    with RunStore(sheets, create=False) as store:
        guessed = _recomputed_authors(store, ["human", "machine", "gpt-4o"])
        assigned = {p.generation_id for p in db.pages(store, "experts", "ann")}
    assert assigned <= guessed.keys()  # the generation ids are recomputable
    html = (sheets / "survey-experts" / "ann.html").read_text(encoding="utf-8")
    template = (sheets / "survey-experts" / "ann.csv").read_text(encoding="utf-8")
    codes = re.findall(r"code (p[0-9a-f]{15})", html)
    assert len(codes) == 3
    with (sheets / "survey-experts" / "ann.csv").open(encoding="utf-8") as handle:
        assert {row["poem"] for row in csv.DictReader(handle)} == set(codes)
    for text in (html, template):
        assert not [gid for gid in guessed if gid in text]


def test_a_filled_template_is_stored_on_the_poems_of_its_pages(sheets: Path) -> None:
    template = sheets / "survey-experts" / "ben.csv"
    with template.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["score"] = row["page"]  # page 1 gets 1s, page 2 2s, ...
    filled = sheets / "ben-filled.csv"
    with filled.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = runner.invoke(app, ["survey", "import", str(filled), "--run", str(sheets)])
    assert result.exit_code == 0 and "30 new" in result.output, result.output
    assert "did not give these poems" not in result.output
    with RunStore(sheets, create=False) as store:
        pages = db.pages(store, "experts", "ben")
        stored = store.query(
            "SELECT generation_id, score FROM survey_answers WHERE rater_id = 'ben'"
        )
        assert {(r[0], r[1]) for r in stored} == {(p.generation_id, p.position) for p in pages}
        # `analyze --experts FILE` reads the filled template onto the same poems.
        answers = read_expert_answers(filled, store)
        assert {a.generation_id for a in answers} == {p.generation_id for p in pages}


def test_an_unknown_code_is_named_with_its_file_and_line(sheets: Path) -> None:
    bad = sheets / "bad.csv"
    bad.write_text("poem,rater,item,score\n0123456789abcdef,ann,form,3\n", encoding="utf-8")
    with RunStore(sheets, create=False) as store, pytest.raises(ExpertRatingsError) as error:
        read_expert_answers(bad, store)
    assert f"{bad}:2: poem '0123456789abcdef' is not a successful generation of this run" in str(
        error.value
    )


def _filled(template: Path, out: Path) -> Path:
    """`template` (a rater's CSV) with every score 3."""
    with template.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["score"] = "3"
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


def test_sheets_printed_in_a_run_merged_with_another_secret_import_into_the_merge(
    tmp_path: Path,
) -> None:
    """Two machines, each with its own survey secret, printed sheets; `merge` keeps one secret
    for the merged run. The other's filled templates named codes the merged run could not read
    (every row 'not a successful generation of this run'): they were unimportable there, where
    generation ids had imported anywhere."""
    import shutil

    first = survey_run(tmp_path / "first", poems=3)
    second = tmp_path / "second"
    shutil.copytree(first, second)
    for run, survey in ((first, "pilot"), (second, "experts")):
        with RunStore(run, create=False) as store:
            build_survey(store, survey_id=survey, raters="ann,ben", per_rater=3, per_poem=2, seed=4)
        result = runner.invoke(app, ["survey", "sheets", "--run", str(run), "--survey", survey])
        assert result.exit_code == 0, result.output
    assert (first / "survey-secret.key").read_bytes() != (second / "survey-secret.key").read_bytes()
    merged = tmp_path / "merged"
    result = runner.invoke(app, ["merge", str(first), str(second), "--out", str(merged)])
    assert result.exit_code == 0, result.output
    filled = _filled(second / "survey-experts" / "ben.csv", tmp_path / "ben.csv")
    result = runner.invoke(
        app, ["survey", "import", str(filled), "--run", str(merged), "--survey", "experts"]
    )
    assert result.exit_code == 0, result.output
    with RunStore(second, create=False) as store:
        pages = {p.generation_id for p in db.pages(store, "experts", "ben")}
    with RunStore(merged, create=False) as store:
        stored = store.query(
            "SELECT DISTINCT generation_id FROM survey_answers "
            "WHERE survey_id = 'experts' AND rater_id = 'ben'"
        )
        assert {row[0] for row in stored} == pages
        assert {a.generation_id for a in read_expert_answers(filled, store)} == pages
    # the merged run's own secret still makes its links and its new sheets
    assert (merged / "survey-secret.key").read_bytes() == (first / "survey-secret.key").read_bytes()


def test_no_code_reads_as_a_number_in_a_spreadsheet() -> None:
    """Codes of 16 hex digits were all digits (a spreadsheet rounds them to 15 significant
    digits) or digits around one `e` (read as a power of ten) about once in 700: a rater's
    spreadsheet saved such a code back changed, and its row no longer imported."""
    secret = bytes(range(32))
    codes = [poem_code(secret, "experts", f"generation-{n}") for n in range(20_000)]
    assert len(set(codes)) == len(codes)
    numeric = []
    for code in codes:
        try:
            float(code)
        except ValueError:
            continue
        numeric.append(code)
    assert numeric == []


def _filled_lines(template: Path, out: Path) -> Path:
    """`template` (a line-annotation CSV) graded by one annotator, every line 'strong'."""
    with template.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["annotator"] = "zoe"
        row["fluency"] = "strong"
        row["coherence"] = row["coherence"] or "strong"
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


@pytest.mark.parametrize("first_printed", [False, True], ids=["first-bare", "first-surveyed"])
def test_line_sheets_of_a_run_without_surveys_import_into_the_merge(
    tmp_path: Path, first_printed: bool
) -> None:
    """A run that only printed line-annotation sheets (`ghostwriting sheets`: no survey) lost
    its survey secret on `merge`, which carried the secrets of runs with surveys alone: its
    filled templates named codes the merged run could not read, and `import-lines` refused
    every row."""
    import shutil

    first = survey_run(tmp_path / "first", poems=3)
    second = tmp_path / "second"
    shutil.copytree(first, second)
    if first_printed:  # the merged run's own secret comes from the first run, which surveyed
        with RunStore(first, create=False) as store:
            build_survey(store, raters="ann,ben", per_rater=3, per_poem=2, seed=4)
        result = runner.invoke(app, ["survey", "sheets", "--run", str(first)])
        assert result.exit_code == 0, result.output
    sheets = tmp_path / "line-sheets"
    result = runner.invoke(
        app, ["ghostwriting", "sheets", "--run", str(second), "--out", str(sheets)]
    )
    assert result.exit_code == 0, result.output
    merged = tmp_path / "merged"
    # The line-sheet run named first: the surveyed run's secret still makes the merged links.
    sources = [second, first] if first_printed else [first, second]
    result = runner.invoke(app, ["merge", *map(str, sources), "--out", str(merged)])
    assert result.exit_code == 0, result.output
    filled = _filled_lines(sheets / "annotations.csv", tmp_path / "zoe.csv")
    result = runner.invoke(app, ["ghostwriting", "import-lines", "--run", str(merged), str(filled)])
    assert result.exit_code == 0, result.output
    with RunStore(second, create=False) as store:
        printed = {
            item.generation_id for task in stored_tasks(store).values() for item in task.items
        }
    with RunStore(merged, create=False) as store:
        graded = store.query("SELECT DISTINCT generation_id FROM line_annotations")
        assert printed and {row[0] for row in graded} == printed
    if first_printed:  # the links of the surveyed run still open the merged run
        assert (merged / "survey-secret.key").read_bytes() == (
            first / "survey-secret.key"
        ).read_bytes()
