"""A metre annotation the checker reads in part is read; one it cannot read leaves the metre
unscored while rhyme and form are checked (form-2.10). Before, any annotation `parse_meter`
refused ("iambic pentameter (loose)", "Anapestic trimeter / dimeter", "Accentual", "mixed",
"loose iambic") left its poem, and every model's poem for that prompt, unchecked: rhyme and
form included, `passed` NULL in the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from form_check_support import limerick_run

from poemetric.form.checker import CHECKER_VERSION, check_poem
from poemetric.form.meter_reading import read_meter
from poemetric.form.stage import run_form_stage
from poemetric.store.db import RunStore

# Written for these tests: a ballad in common metre (iambic, four beats then three), ABAB.
BALLAD = """The miller walked the river road
Before the break of day;
He carried home a heavy load
And sang along the way.

The water turned the wooden wheel,
The swallows skimmed the weir;
He ground the barley into meal
And never thought of fear."""
# ... a limerick (anapestic, 3-3-2-2-3 beats), AABBA,
LIMERICK = """A baker who lived by the sea
Made muffins for breakfast and tea;
When the tide rolled in high
He would wave them goodbye,
And the fishes would feast on them free."""
# ... and a sonnet in iambic pentameter, Shakespearean.
SONNET = """The harbour lamps are lit against the rain,
and nets lie heaped along the quiet quay;
the gulls have left the masts to wheel again
above the dark and slowly breathing sea.
A boy runs down the stones with bread and fish,
his mother calls him twice and then is still;
the kettle sings, the plates begin to dish
the supper out beside the window sill.
Tomorrow brings the boats, the salt, the cold,
the long grey work of hauling in the line;
tonight the stories that the old men told
are warm as lamplight, plain as bread and wine.
So let the weather do the worst it may:
the harbour keeps the evening from the day."""


@pytest.mark.parametrize(
    ("annotation", "name", "feet_choices", "not_scored"),
    [
        ("iambic pentameter (loose)", "iambic pentameter", None, "'loose' is not scored"),
        ("loose iambic", "iambic", None, "'loose' is not scored"),
        ("Anapestic trimeter / dimeter", "anapestic trimeter or dimeter", (3, 2), None),
        ("tetrameter/trimeter alternating", "tetrameter or trimeter", (4, 3), "'alternating'"),
        ("iambic pentametre", "iambic pentameter", None, None),
        ("Iambic 5-foot lines", "iambic pentameter", None, None),
        ("common meter (irregular)", "common meter", None, "'irregular' is not scored"),
    ],
)
def test_an_annotation_read_in_part_says_how(
    annotation: str, name: str, feet_choices: tuple[int, ...] | None, not_scored: str | None
) -> None:
    reading = read_meter(annotation)
    assert reading.spec is not None and not reading.unscored
    assert (reading.spec.name, reading.spec.feet_choices) == (name, feet_choices)
    assert reading.note is not None and reading.note.startswith(
        f"metre {annotation!r} read as {name}"
    )
    assert not_scored is None or not_scored in reading.note


@pytest.mark.parametrize("annotation", ["Accentual", "mixed", "Sapphic", "iambic or trochaic"])
def test_an_annotation_naming_no_metre_is_unscored(annotation: str) -> None:
    reading = read_meter(annotation)
    assert reading.spec is None and reading.unscored
    assert reading.note is not None and reading.note.startswith(f"metre {annotation!r} not scored")


def test_an_exact_annotation_reads_as_before() -> None:
    for annotation in ("Iambic pentameter", "common meter", "8.6.8.6", "free verse", "anapestic"):
        reading = read_meter(annotation)
        assert reading.note is None and not reading.unscored


def test_a_poem_whose_metre_cannot_be_read_is_checked_for_rhyme_and_form() -> None:
    for annotation in ("Accentual", "mixed"):
        result = check_poem(SONNET, "sonnet", annotation)
        assert result.error is None and result.passed
        # no metre score, not even the sonnet's own pentameter
        assert result.meter_score is None and "meter" not in result.facts
        assert result.rhyme_score is not None and result.form_score == 1.0
        assert result.summary.endswith(
            f"; metre {annotation!r} not scored (no metre the checker scans)"
        )
        assert result.facts["meter request"].startswith(
            f"metre {annotation!r} not scored: it names"
        )
    # rhyme and form still decide: the ballad's rhymes asked as a sonnet's fail
    assert not check_poem(BALLAD, "sonnet", "Accentual").passed
    limerick = check_poem(LIMERICK, "limerick", "mixed")
    assert limerick.passed and limerick.meter_score is None and limerick.rhyme_score == 1.0
    # a text that is not a poem has no metre score either, as its poem would have none
    refused = check_poem("I would rather not.", "sonnet", "Accentual")
    assert refused.error_kind == "text" and refused.meter_score is None
    assert refused.form_score == 0.0


def test_a_metre_read_in_part_is_scored_as_read() -> None:
    exact = check_poem(SONNET, "sonnet", "Iambic pentameter")
    loose = check_poem(SONNET, "sonnet", "iambic pentameter (loose)")
    assert loose.error is None and loose.passed
    assert (loose.meter_score, loose.rhyme_score, loose.form_score) == (
        exact.meter_score,
        exact.rhyme_score,
        exact.form_score,
    )
    assert "meter request" not in exact.facts
    assert loose.facts["meter request"] == (
        "metre 'iambic pentameter (loose)' read as iambic pentameter; 'loose' is not scored"
    )
    # still the metre it names: four-beat lines fail it
    assert not check_poem(BALLAD, "ballad", "iambic pentameter (loose)", "ABAB").passed


def test_several_line_lengths_score_each_line_by_its_best() -> None:
    alternating = check_poem(BALLAD, "ballad", "iambic tetrameter / trimeter", "ABAB")
    assert alternating.passed and alternating.meter_score == 1.0
    assert not check_poem(BALLAD, "ballad", "iambic tetrameter", "ABAB").passed
    assert not check_poem(SONNET, "sonnet", "iambic tetrameter / trimeter").passed
    limerick = check_poem(LIMERICK, "limerick", "Anapestic trimeter / dimeter")
    assert limerick.passed and limerick.meter_score == 1.0
    assert limerick.facts["meter"] == (
        "5 of 5 lines fit anapestic trimeter or dimeter limerick meter (3-3-2-2-3 beats)"
    )


def _run_with(run_dir: Path, meter: str) -> RunStore:
    """A run of one limerick annotated with `meter`, answered by the human and a model."""
    return limerick_run(
        run_dir, LIMERICK, meter, {"g1": ("human", LIMERICK), "g2": ("markov", BALLAD)}
    )


def test_the_stage_checks_every_poem_of_a_prompt_whose_metre_it_cannot_read(
    tmp_path: Path,
) -> None:
    with _run_with(tmp_path / "run", "Accentual") as store:
        report = run_form_stage(store, progress=False)
        assert report.errors == 0 and report.checked == 2
        rows = {r["generation_id"]: r for r in store.query("SELECT * FROM form_checks")}
    assert rows["g1"]["passed"] == 1 and rows["g2"]["passed"] == 0
    assert all(row["meter_score"] is None and row["error"] is None for row in rows.values())
    facts = json.loads(rows["g1"]["explanation"])["facts"]
    assert facts["meter request"].startswith("metre 'Accentual' not scored")


def test_the_stage_checks_again_a_row_an_older_checker_left_unchecked(tmp_path: Path) -> None:
    """A row stored as "not checked" by form-2.9 (its metre unread) would be skipped for ever
    had the checker version not changed."""
    with _run_with(tmp_path / "run", "loose iambic") as store:
        store.save_form_check(
            {"generation_id": "g1", "checker_version": "form-2.9", "passed": None,
             "explanation": {"threshold": 0.7, "error_kind": "request"},
             "error": "unrecognised meter 'loose iambic'"}
        )  # fmt: skip
        report = run_form_stage(store, progress=False)
        assert report.checked == 2 and report.skipped == 0
        (row,) = store.query("SELECT * FROM form_checks WHERE generation_id = 'g1'")
    assert row["checker_version"] == CHECKER_VERSION != "form-2.9"
    assert row["passed"] is not None and row["error"] is None


def test_a_misspelt_metre_word_is_pointed_out() -> None:
    """'iambic pentamter' passed a sonnet as iambic of any length, and the note said only that
    'pentamter' is not scored: a typo read as an intention. The note now asks what was meant."""
    check = check_poem(SONNET, "sonnet", "iambic pentamter")
    note = str(check.facts["meter request"])
    assert note.startswith("metre 'iambic pentamter' read as iambic;")
    assert "did you mean 'pentameter' for 'pentamter'?" in note
    unread = read_meter("iambc pentamter")
    assert unread.unscored and unread.note is not None
    assert "did you mean 'iambic' for 'iambc'?" in unread.note
    assert "did you mean 'pentameter' for 'pentamter'?" in unread.note
    for annotation in ("loose iambic", "common meter (irregular)", "Accentual", "Sapphic", "mixed"):
        assert "did you mean" not in str(read_meter(annotation).note)
