"""Dataset errata: each confirmed annotation error matches its row, and corrects it (issue 11)."""

from __future__ import annotations

import csv
from pathlib import Path

from poemetric.data.errata import content_hash, correction_for, load_errata
from poemetric.form.checker import check_poem


def test_errata_file_is_valid_and_never_matches_another_text() -> None:
    errata = load_errata("poemetric")
    assert errata is not None and len(errata.errata) == 8
    first = errata.errata[0]
    changed = correction_for(errata, first.row, "some other poem", first.annotated)
    assert changed is not None and changed.status == "mismatch"
    assert correction_for(errata, 10_000, "x", "ABAB") is None
    assert load_errata("demo") is None


def test_every_erratum_matches_the_release_and_its_correction_checks(
    poemetric_gold_csv: Path,
) -> None:
    errata = load_errata("poemetric")
    assert errata is not None
    with poemetric_gold_csv.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for erratum in errata.errata:
        row = rows[erratum.row - 1]
        assert content_hash(row["content"]) == erratum.content_sha256, erratum.row
        found = correction_for(errata, erratum.row, row["content"], row[erratum.field])
        assert found is not None and found.status != "mismatch", erratum.row
        meter, rhyme = row["meter_pattern"] or None, row["rhyme_pattern"] or None
        form = row["form"].lower()
        assert not check_poem(row["content"], form, meter, rhyme).passed, erratum.row
        if erratum.corrected is not None:
            if erratum.field == "meter_pattern":
                meter = erratum.corrected
            else:
                rhyme = erratum.corrected
            assert check_poem(row["content"], form, meter, rhyme).passed, erratum.row
