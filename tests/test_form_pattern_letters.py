"""Rhyme findings name the letters of the requested pattern (`ABCB DEFE GHIH`), not those of
the period the checker scores each stanza against (`ABCB`)."""

from __future__ import annotations

from poemetric.form.checker import check_poem

# Stanza 2 misses its E rhyme (hand / trees); stanzas 2 and 3 rhyme lines 1 and 3 as well.
BALLAD = """The miller rode to Harlow town
Upon a morning grey,
He left his mill beside the stream
And never came away.

His daughter waited by the door
With candle in her hand,
The wind came cold upon the floor
And whistled through the trees.

She sent the boy to fetch him home
Before the bells had rung,
The boy came back from Rome
With silence on his tongue.
"""


def _rhyme_details(pattern: str) -> list[str]:
    check = check_poem(BALLAD, "ballad", None, pattern)
    return [f.detail for f in check.explanation if f.constraint == "rhyme"]


def test_findings_name_the_letters_the_user_wrote() -> None:
    details = _rhyme_details("ABCB DEFE GHIH")
    assert any(d.startswith("lines 6 and 8 should rhyme (E) but 'hand'") for d in details)
    assert any(d.startswith("line 7 (F) rhymes with line 5 (D): 'door'") for d in details)
    assert any(d.startswith("line 11 (I) rhymes with line 9 (G): 'home'") for d in details)
    # Before: the period's letters, "(B)" for line 8 and "line 7 (C) ... line 5 (A)".
    assert not any("(A)" in d or "(B)" in d or "(C)" in d for d in details)


def test_period_only_pattern_keeps_its_letters_and_the_scores_are_the_same() -> None:
    details = _rhyme_details("ABCB")
    assert any(d.startswith("lines 6 and 8 should rhyme (B)") for d in details)
    assert any(d.startswith("line 7 (C) rhymes with line 5 (A)") for d in details)
    full = check_poem(BALLAD, "ballad", None, "ABCB DEFE GHIH")
    period = check_poem(BALLAD, "ballad", None, "ABCB")
    assert (full.rhyme_score, full.passed) == (period.rhyme_score, period.passed)
    assert full.rhyme_score == 0.5 and not full.passed


def test_stanzas_past_the_pattern_end_fall_back_to_the_period() -> None:
    details = _rhyme_details("ABCB DEFE")
    assert any(d.startswith("lines 6 and 8 should rhyme (E)") for d in details)
    assert any(d.startswith("line 11 (C) rhymes with line 9 (A)") for d in details)
