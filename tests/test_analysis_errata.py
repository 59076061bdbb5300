"""The human row with and without the dataset errata, through the form stage, the analysis
tables and the report (issue 11)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import shared_data_file

from poemetric.analysis.errata import APPLIED, RELEASED
from poemetric.analysis.run import analyze_run
from poemetric.data import load_dataset
from poemetric.data.errata import content_hash, errata_for_release, load_errata
from poemetric.form.stage import run_form_stage
from poemetric.pipeline import prepare_run
from poemetric.report import build_report
from poemetric.store import RunStore

CORRECTED_ROWS = [53, 78, 124, 128, 130]
EXCLUDED_ROWS = [16, 39, 156]


def test_errata_are_found_by_the_release_hash_and_match_text_as_loaded() -> None:
    errata = load_errata("poemetric")
    assert errata is not None
    assert errata_for_release(errata.release_sha256) == errata
    assert errata_for_release(load_dataset("demo").sha256) is None
    assert errata_for_release(None) is None
    # the file as released and the normalised snapshot a run stores hash alike
    assert content_hash("Line one  \r\nline two\r\n\n") == content_hash("Line one\nline two")
    assert content_hash("Line one") != content_hash("Line two")


def test_a_dataset_without_errata_changes_nothing(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        prepare_run(store, "demo", limit=4)
        run_form_stage(store, progress=False)
        explanations = [
            json.loads(r[0]) for r in store.query("SELECT explanation FROM form_checks")
        ]
        assert explanations and not any("errata" in e for e in explanations)
        result = analyze_run(store)
        assert "form_checks" in result.tables
        assert not {"form_checks_errata", "form_checks_errata_rows"} & set(result.tables)
        assert "errata" not in result.caption("form_checks")
        # (the notes name the run's folder, which holds this test's name)
        notes = [note.replace(str(tmp_path), "RUN") for note in result.notes]
        assert not any("errata" in note for note in notes)


@pytest.fixture(scope="module")
def poemetric_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunStore]:
    """A run of the authors' release (by path, so only its sha256 finds the errata), human
    poems only, form-checked."""
    csv = shared_data_file("poemetric_human_poems_annotated.csv")
    with RunStore(tmp_path_factory.mktemp("errata") / "run") as store:
        prepare_run(store, csv)
        report = run_form_stage(store, progress=False)
        assert report.checked == 163
        yield store


def test_human_row_reported_as_released_and_with_errata(
    poemetric_run: RunStore, tmp_path: Path
) -> None:
    result = analyze_run(poemetric_run)
    main = result.table("form_checks").set_index("author")
    assert main.at["human", "n"] == 163  # the default row: the data as released
    summary = result.table("form_checks_errata")
    assert list(summary["annotation"]) == [RELEASED, APPLIED]
    released, applied = summary.to_dict("records")
    assert released["pass_rate"] == main.at["human", "pass_rate"]
    assert (released["n"], released["n_corrected"], released["n_excluded"]) == (163, 0, 0)
    assert (applied["n"], applied["n_corrected"], applied["n_excluded"]) == (160, 5, 3)
    assert applied["n_not_matching"] == 0
    # every erratum row fails as released; the corrected ones pass against their correction
    passed_released = round(released["pass_rate"] * 163)
    assert round(applied["pass_rate"] * 160) == passed_released + len(CORRECTED_ROWS)
    rows = result.table("form_checks_errata_rows").set_index("data_row")
    assert sorted(rows.index) == sorted(CORRECTED_ROWS + EXCLUDED_ROWS)
    assert set(rows["verdict_as_released"]) == {"fail"}
    assert list(rows.loc[CORRECTED_ROWS, "verdict_errata_applied"]) == ["pass"] * 5
    assert list(rows.loc[EXCLUDED_ROWS, "verdict_errata_applied"]) == ["left out"] * 3
    assert rows.at[78, "field"] == "meter_pattern" and rows.at[78, "corrected"] == (
        "Iambic tetrameter"
    )
    assert "as released (the default" in result.caption("form_checks")
    written = result.write(tmp_path / "analysis")
    table = (tmp_path / "analysis" / "form_checks_errata.md").read_text(encoding="utf-8")
    assert "as released (default)" in table and "errata applied" in table
    assert tmp_path / "analysis" / "form_checks_errata_rows.csv" in written
    html = build_report(poemetric_run, tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Human poems and the dataset errata" in html and "Meg Merrilies" in html


def test_stale_or_non_matching_errata_verdicts_are_redone(
    poemetric_run: RunStore, tmp_path: Path
) -> None:
    store = poemetric_run
    human_53 = store.query(
        "SELECT f.generation_id FROM form_checks f JOIN generations g USING (generation_id) "
        "JOIN poems p ON p.poem_id = g.poem_id WHERE p.position = 52 AND g.author = 'human'"
    )[0][0]
    with store.transaction() as conn:  # verdicts stored before the errata existed
        conn.execute("UPDATE form_checks SET explanation = json_remove(explanation, '$.errata')")
    note = " ".join(analyze_run(store).notes)
    assert "predate the errata" in note and "form_checks_errata" not in analyze_run(store).tables
    assert run_form_stage(store, progress=False).checked == 8  # only the erratum rows
    # an annotation that is not the one the erratum was written for: nothing is applied
    with store.transaction() as conn:
        conn.execute("UPDATE poems SET rhyme = 'ABCB' WHERE position = 52")
    assert run_form_stage(store, progress=False).checked == 1
    entry = json.loads(
        store.query("SELECT explanation FROM form_checks WHERE generation_id = ?", (human_53,))[0][
            0
        ]
    )["errata"]
    assert entry["status"] == "mismatch" and "passed" not in entry
    applied = analyze_run(store).table("form_checks_errata").iloc[1]
    assert (applied["n_corrected"], applied["n_not_matching"]) == (4, 1)
    with store.transaction() as conn:  # leave the module's run as it was
        conn.execute("UPDATE poems SET rhyme = 'ABAB' WHERE position = 52")
    assert run_form_stage(store, progress=False).checked == 1
