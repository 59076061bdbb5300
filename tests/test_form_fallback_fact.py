"""A beat metre scored in its fallback (long meter for common meter: each line half credit)
had the fact "0 of 8 lines fit common meter" beside a metre score of 0.5 and no finding: every
line fitted the fallback, and nothing said so. The fact names the fallback and counts the
lines that fit it."""

from __future__ import annotations

from poemetric.form.adapters import MeterSpec
from poemetric.form.scoring import score_meter

# Tetrameter lines of the tests' own words.
LINES = (
    "The kettle sang upon the stove,",
    "The river ran beneath the hill,",
    "I walked the lane beside the grove",
    "Until the evening air was still.",
)


def test_a_metre_scored_in_its_fallback_says_so_in_its_fact() -> None:
    spec = MeterSpec("two-beat verse", foot="iambic", beats=(2,), fallback_beats=(4,))
    scored = score_meter(LINES, spec)
    assert scored.score == 0.5
    assert scored.note == "4 of 4 lines fit 4 beats, the fallback of two-beat verse (half credit)"
    assert scored.findings == ()


def test_a_metre_met_outright_keeps_its_fact() -> None:
    spec = MeterSpec("four-beat verse", foot="iambic", beats=(4,), fallback_beats=(2,))
    assert score_meter(LINES, spec).note == "4 of 4 lines fit four-beat verse"
