"""Ratings files whose header a spreadsheet wrote: `Rater,Poem,Item,Score` (capitalised) or
`Expert Name,Poem ID,Question,Rating`. `agree`, `survey import` and `analyze --experts` refused
them as "missing columns" the file visibly has, without saying what to rename (`survey import`
even named `expert` as missing in a file with a `rater` column), and `agree` read a file with
`Item` as one item, so its only error was a duplicate on every line. Now the error names each
column to rename and to what, and the corrected file is read."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.store import RunStore
from poemetric.survey import db
from poemetric.survey.build import build_survey

runner = CliRunner()
WIDE = {"COLUMNS": "400"}
SCORES = [("u1", "A", "form", 3), ("u1", "B", "form", 4), ("u1", "A", "theme", 2),
          ("u1", "B", "theme", 2), ("u2", "A", "form", 5), ("u2", "B", "form", 5),
          ("u2", "A", "theme", 1), ("u2", "B", "theme", 2)]  # fmt: skip


def _ratings(path: Path, header: str, unit: str | None = None) -> Path:
    rows = "".join(f"{r},{unit or u},{i},{s}\n" for u, r, i, s in SCORES)
    path.write_text(header + "\n" + rows, encoding="utf-8")
    return path


def _agree(path: Path) -> tuple[int, str]:
    result = runner.invoke(app, ["agree", str(path), "--bootstrap", "0"], env=WIDE)
    return result.exit_code, " ".join(result.output.split())


def test_agree_names_the_columns_to_rename_in_a_spreadsheet_header(tmp_path: Path) -> None:
    status, err = _agree(_ratings(tmp_path / "caps.csv", "Rater,Poem,Item,Score"))
    assert status != 0
    assert err.strip().endswith(
        "found Rater, Poem, Item, Score; rename 'Poem' to 'poem', 'Rater' to 'rater', 'Item' to "
        "'item', 'Score' to 'score' in the header line (column names are exact, lower case: "
        "docs/agreement.md)"
    )
    status, err = _agree(_ratings(tmp_path / "names.csv", "Expert Name,Poem ID,Question,Rating"))
    assert (
        status != 0
        and (
            "rename 'Poem ID' to 'poem', 'Expert Name' to 'rater', 'Question' to 'item', 'Rating' to "
            "'score' in the header line"
        )
        in err
    )
    fixed, err = _agree(_ratings(tmp_path / "fixed.csv", "rater,poem,item,score"))
    assert fixed == 0, err


def test_agree_refuses_an_item_column_spelled_otherwise(tmp_path: Path) -> None:
    """Read without its item column, every row of a unit and rater was one item: a duplicate
    error on every line instead of the column's name."""
    status, err = _agree(_ratings(tmp_path / "item.csv", "rater,poem,Item,score"))
    assert status != 0
    assert "missing column item" in err and "already on line" not in err
    assert "rename 'Item' to 'item' in the header line" in err


def test_agree_refuses_an_item_column_under_another_usual_name(tmp_path: Path) -> None:
    """`Question`, `Dimension` or `Criterion` was renamed to `item` in the hint, but the file was
    read without items: a duplicate error with no hint (two items a unit), or one item silently."""
    for name in ("Question", "Dimension", "Criterion"):
        status, err = _agree(_ratings(tmp_path / f"{name}.csv", f"rater,poem,{name},score"))
        assert status != 0
        assert "missing column item" in err and "already on line" not in err
        assert f"rename '{name}' to 'item' in the header line" in err
    single = tmp_path / "single.csv"
    single.write_text("rater,poem,Question,score\nA,u1,form,3\nB,u1,form,4\nA,u2,form,5\n"
                      "B,u2,form,5\n", encoding="utf-8")  # fmt: skip
    status, err = _agree(single)
    assert status != 0 and "rename 'Question' to 'item'" in err


def _a_poem(run: Path) -> str:
    with RunStore(run, create=False) as store:
        return str(store.query("SELECT generation_id FROM generations WHERE status = 'ok'")[0][0])


def _survey_of_cy_and_cy(run: Path, poem: str) -> None:
    """Survey `experts` with raters `Cy` and `cy`, as an earlier version's `survey build --raters
    Cy,cy` stored it (it now refuses them)."""
    with RunStore(run, create=False) as store:
        db.create_survey(store, "experts", "poemetric", 1, {}, {"Cy": [poem], "cy": [poem]}, {})


def test_survey_import_and_analyze_name_the_columns_to_rename(tmp_path: Path) -> None:
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    poem = _a_poem(run)
    caps = _ratings(tmp_path / "caps.csv", "Rater,Poem,Item,Score", unit=poem)
    for command in (["survey", "import", str(caps), "--run", str(run)],
                    ["analyze", "--run", str(run), "--experts", str(caps)]):  # fmt: skip
        result = runner.invoke(app, command, env=WIDE)
        assert result.exit_code != 0
        assert (
            "found Rater, Poem, Item, Score; rename 'Poem' to 'poem', 'Rater' to 'rater', 'Item' "
            "to 'item', 'Score' to 'score' in the header line (column names are exact, lower "
            "case: docs/survey.md)"
        ) in " ".join(result.output.split())
    # A `rater` column is there: only the item and score are missing, and `rater` is not named.
    item = _ratings(tmp_path / "item.csv", "rater,poem,Item,score", unit=poem)
    result = runner.invoke(app, ["survey", "import", str(item), "--run", str(run)], env=WIDE)
    assert result.exit_code != 0
    assert "missing column: item and score (long format)" in " ".join(result.output.split())
    assert (
        "rename 'Item' to 'item'" in " ".join(result.output.split())
        and "expert" not in " ".join(result.output.split()).split(";")[0]
    )
    lower = tmp_path / "lower.csv"
    lower.write_text(
        "rater,poem,item,score\n" + "".join(f"{r},{poem},{i},{s}\n" for u, r, i, s in SCORES[:4]),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["survey", "import", str(lower), "--run", str(run)], env=WIDE)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("imported 4 answers (4 new, 0 replaced) by 2 raters")


def test_a_wide_file_may_name_its_rater_column_rater(tmp_path: Path) -> None:
    """A wide file with `rater` (the long format's name) was "missing columns: expert"."""
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    wide = tmp_path / "wide.csv"
    wide.write_text(f"rater,poem,form,theme\nR1,{_a_poem(run)},4,3\n", encoding="utf-8")
    result = runner.invoke(app, ["survey", "import", str(wide), "--run", str(run)], env=WIDE)
    assert result.exit_code == 0, result.output
    with RunStore(run, create=False) as store:
        rows = store.query("SELECT rater_id, question, score FROM survey_answers ORDER BY question")
    assert [(r["rater_id"], r["question"], r["score"]) for r in rows] == [
        ("R1", "form", 4.0),
        ("R1", "theme", 3.0),
    ]


def test_survey_import_refuses_rater_ids_that_differ_only_in_case(tmp_path: Path) -> None:
    """`Ann` for the survey's `ann` (a spreadsheet's capitals) was stored as another rater, so
    the same ratings imported again counted twice and raised the experts' agreement."""
    run = tmp_path / "run"
    with prepared_store(run, poems=2) as store:
        build_survey(store, raters="ann,ben", poems=2, seed=1)
    poem = _a_poem(run)
    capitals = tmp_path / "capitals.csv"
    capitals.write_text(
        f"rater,poem,item,score\nAnn,{poem},form,4\n ben ,{poem},form,3\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["survey", "import", str(capitals), "--run", str(run)], env=WIDE)
    assert result.exit_code != 0
    assert (
        "rater ids differ from those of survey 'experts' only in case or spaces: 'Ann' (the "
        "survey's 'ann')"
    ) in " ".join(result.output.split())
    with RunStore(run, create=False) as store:
        assert store.query("SELECT COUNT(*) FROM survey_answers")[0][0] == 0
    exact = tmp_path / "exact.csv"
    exact.write_text(f"rater,poem,item,score\nann,{poem},form,4\n", encoding="utf-8")
    result = runner.invoke(app, ["survey", "import", str(exact), "--run", str(run)], env=WIDE)
    assert result.exit_code == 0, result.output


def test_survey_import_folds_only_case_spaces_and_accent_forms(tmp_path: Path) -> None:
    """`Mary Ann` and `Maryann`, `Straße` and `strasse` are distinct raters (they were refused as
    differing only in case or spaces); a decomposed `José` (NFD) is the survey's composed one."""
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    poem = _a_poem(run)
    composed, decomposed = (unicodedata.normalize(form, "José") for form in ("NFC", "NFD"))

    def imported(name: str, raters: list[str]) -> tuple[int, str]:
        path = tmp_path / name
        rows = "".join(f"{rater},{poem},form,4\n" for rater in raters)
        path.write_text("rater,poem,item,score\n" + rows, encoding="utf-8")
        command = ["survey", "import", str(path), "--run", str(run), "--survey", "paper"]
        result = runner.invoke(app, command, env=WIDE)
        return result.exit_code, " ".join(result.output.split())

    status, output = imported("first.csv", ["Maryann", "strasse", composed])
    assert status == 0, output
    status, output = imported("distinct.csv", ["Mary Ann", "Straße"])
    assert status == 0, output
    status, output = imported("accents.csv", [decomposed])
    assert status != 0
    assert f"only in case or spaces: {decomposed!r} (the survey's {composed!r})" in output


def test_survey_import_refuses_one_rater_spelled_two_ways_in_the_file(tmp_path: Path) -> None:
    """`Ann` on some rows and `ann` on others of one file (a survey started by the import, or
    ids the survey lacks) were two raters: one expert's two ratings of a poem agreed with each
    other in the experts' agreement. Raters the survey has under both spellings stay apart."""
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    poem = _a_poem(run)
    _survey_of_cy_and_cy(run, poem)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(f"rater,poem,item,score\nAnn,{poem},form,4\nben,{poem},form,2\n"
                     f"ann ,{poem},theme,4\n", encoding="utf-8")  # fmt: skip
    command = ["survey", "import", str(mixed), "--run", str(run), "--survey", "paper"]
    result = runner.invoke(app, command, env=WIDE)
    assert result.exit_code != 0
    assert (
        f"{mixed}: rater ids differ from each other only in case or spaces: 'Ann' (first on line "
        "2) and 'ann' (first on line 4); ids are exact"
    ) in " ".join(result.output.split())
    with RunStore(run, create=False) as store:
        assert store.query("SELECT COUNT(*) FROM survey_answers")[0][0] == 0
    both = tmp_path / "both.csv"
    both.write_text(
        f"rater,poem,item,score\nCy,{poem},form,4\ncy,{poem},form,3\n", encoding="utf-8"
    )
    result = runner.invoke(app, ["survey", "import", str(both), "--run", str(run)], env=WIDE)
    assert result.exit_code == 0, result.output


def test_analyze_and_agree_refuse_rater_ids_that_differ_from_each_other_only_in_case(
    tmp_path: Path,
) -> None:
    """`survey import` refused `Ann` on some rows and `ann` on others, but `analyze --experts`
    and `agree` read them as two raters, whose ratings of one poem agreed with each other (a file
    of `Ann` and `ben` disagreeing on 3 of 3 poems, `ann` repeating `Ann`: PAo 0.500, nominal alpha
    0.172, not 0.000 and -0.154). Raters a survey of the run has under both spellings stay apart
    for `analyze`."""
    from poemetric.analysis.experts import ExpertRatingsError, load_expert_ratings

    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    poem = _a_poem(run)
    _survey_of_cy_and_cy(run, poem)
    mixed = tmp_path / "mixed.csv"
    mixed.write_text(f"rater,poem,item,score\nAnn,{poem},form,4\nben,{poem},form,2\n"
                     f"ann ,{poem},form,4\n", encoding="utf-8")  # fmt: skip
    said = (
        f"{mixed}: rater ids differ from each other only in case or spaces: 'Ann' (first on line "
        "2) and 'ann' (first on line 4); ids are exact"
    )
    with RunStore(run, create=False) as store:
        with pytest.raises(ExpertRatingsError) as refused:
            load_expert_ratings(mixed, store)
        assert said in str(refused.value) and "nothing read" in str(refused.value)
        both = tmp_path / "both.csv"
        both.write_text(
            f"rater,poem,item,score\nCy,{poem},form,4\ncy,{poem},form,3\n", encoding="utf-8"
        )
        assert sorted(load_expert_ratings(both, store)["expert"]) == ["Cy", "cy"]
    status, err = _agree(mixed)
    assert status != 0 and said in err, err
    status, err = _agree(_ratings(tmp_path / "apart.csv", "rater,unit,item,score"))
    assert status == 0, err  # `A` and `B`: two raters


def test_a_wide_file_with_items_under_their_table_names_is_refused_not_half_imported(
    tmp_path: Path,
) -> None:
    """A wide file naming two items as the tables do (`Emotion`, `Devices`) and a comment
    capitalised imported the other 8 items and dropped those columns without a word ("imported
    8 answers"); `analyze --experts` computed agreement without them. Now nothing is stored and
    the error names each column to rename."""
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    header = ("rater,poem,form,theme,vocabulary,creativity,idiosyncrasy,Emotion,imagery,Devices,"
              "overall_quality,human_authorship,Comment_overall_quality,notes")  # fmt: skip
    wide = tmp_path / "wide.csv"
    wide.write_text(f"{header}\nR1,{_a_poem(run)},4,3,3,4,2,5,NA,4,4,5,fine,n\n", encoding="utf-8")
    for command in (["survey", "import", str(wide), "--run", str(run)],
                    ["analyze", "--run", str(run), "--experts", str(wide)]):  # fmt: skip
        result = runner.invoke(app, command, env=WIDE)
        assert result.exit_code != 0, result.output
        assert (
            f"{wide}: 3 columns name an item or comment spelled otherwise and would be left out: "
            "rename 'Emotion' to 'emotional_resonance', 'Devices' to 'literary_devices', "
            "'Comment_overall_quality' to 'comment_overall_quality' in the header line (column "
            "names are exact, lower case: docs/survey.md)"
        ) in " ".join(result.output.split())
    with RunStore(run, create=False) as store:
        assert store.query("SELECT COUNT(*) FROM survey_answers")[0][0] == 0
    text = wide.read_text(encoding="utf-8")
    for found, wanted in (("Emotion", "emotional_resonance"), ("Devices", "literary_devices"),
                          ("Comment", "comment")):  # fmt: skip
        text = text.replace(found, wanted)
    wide.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["survey", "import", str(wide), "--run", str(run)], env=WIDE)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("imported 11 answers (11 new, 0 replaced) by 1 rater")
    # A long file's comment column spelled otherwise: the comments were dropped.
    long = tmp_path / "long.csv"
    long.write_text(f"poem,rater,item,score,Comment\n{_a_poem(run)},R2,overall_quality,4,good\n")
    result = runner.invoke(app, ["survey", "import", str(long), "--run", str(run)], env=WIDE)
    assert result.exit_code != 0, result.output
    assert "1 column names an item or comment spelled otherwise and would be left out: rename " \
        "'Comment' to 'comment' in the header line" in " ".join(result.output.split())  # fmt: skip


def test_agree_reads_the_exported_answers_of_a_survey_with_raters_cy_and_cy(
    tmp_path: Path,
) -> None:
    """A survey may have `Cy` and `cy` as two raters (`survey import` keeps them apart), and
    `poemetric agree` on the file `export survey_answers` writes of it refused it as one rater
    spelled two ways, telling the user to merge them: an exported file's ids are the survey's."""
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    poem = _a_poem(run)
    _survey_of_cy_and_cy(run, poem)
    both = tmp_path / "both.csv"
    both.write_text(
        f"rater,poem,item,score\nCy,{poem},form,4\ncy,{poem},form,3\n", encoding="utf-8"
    )
    imported = runner.invoke(app, ["survey", "import", str(both), "--run", str(run)], env=WIDE)
    assert imported.exit_code == 0, imported.output
    exported = runner.invoke(app, ["export", "survey_answers", "--run", str(run)], env=WIDE)
    assert exported.exit_code == 0, exported.output
    status, output = _agree(run / "export" / "survey_answers.csv")
    assert status == 0, output
    assert "only in case or spaces" not in output


def test_survey_import_keeps_apart_the_raters_a_survey_of_the_run_has_under_both_spellings(
    tmp_path: Path,
) -> None:
    """An export of several surveys names a survey's raters `Cy` and `cy` as `experts:Cy` and
    `experts:cy`: `agree` and `analyze --experts` read two raters, but `survey import` of that
    file into another survey refused them as one rater spelled two ways (it knew only the
    target survey's raters). It now keeps apart the ids `analyze` keeps apart."""
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    poem = _a_poem(run)
    _survey_of_cy_and_cy(run, poem)
    files = {"experts": ("Cy", "cy"), "paper": ("ann", "ben")}
    for survey, (first, second) in files.items():
        answers = tmp_path / f"{survey}.csv"
        answers.write_text(
            f"rater,poem,item,score\n{first},{poem},form,4\n{second},{poem},form,2\n",
            encoding="utf-8",
        )
        command = ["survey", "import", str(answers), "--run", str(run), "--survey", survey]
        assert runner.invoke(app, command, env=WIDE).exit_code == 0
    assert runner.invoke(app, ["export", "survey_answers", "--run", str(run)]).exit_code == 0
    exported = run / "export" / "survey_answers.csv"
    status, output = _agree(exported)
    assert status == 0 and "1 unit, 4 raters" in output, output
    command = ["survey", "import", str(exported), "--run", str(run), "--survey", "copy"]
    result = runner.invoke(app, command, env=WIDE)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("imported 4 answers (4 new, 0 replaced) by 4 raters")
    with RunStore(run, create=False) as store:
        copied = store.query("SELECT rater_id FROM survey_raters WHERE survey_id = 'copy'")
        assert sorted(row[0] for row in copied) == [
            "experts:Cy",
            "experts:cy",
            "paper:ann",
            "paper:ben",
        ]
