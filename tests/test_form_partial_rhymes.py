"""Rhyme pairs that earn part of a required rhyme's credit (half or more) are named in the
explanation (`poemetric.form.partial_rhymes`); scores, verdicts and the rule's own findings, with
their cap, are unchanged."""

from __future__ import annotations

from poemetric.form.checker import FormCheck, check_poem
from poemetric.form.findings import MAX_FINDINGS_PER_KIND
from poemetric.form.partial_rhymes import PREFIX

# Written for these tests.
DUNDEE = """There once was a sailor from Dundee
Who fell from the top of a tree;
He landed in mud
With a terrible thud,
And sank in the bog up to knee-deep."""

NEAT = """There once was a sailor from Dundee
Who fell from the top of a tree;
He landed in mud
With a terrible thud,
And swore he would stick to the sea."""

# Fourteen lines asked to rhyme on one sound: most fail, one pair is an eye rhyme.
SCATTERED = """I found a lamb
beside a fish
and drank a cup
and broke the bread,
I caught a moth,
I lost the key,
I filled a jar,
I set a hook,
I baked a pie,
I met a boy,
I fed a cow,
I found a pearl,
and yet, although
I thought it through."""

# Every rhyme a repeated end word: 0.6 credit each.
REPEATS = """A baker who lived by the quay
Sold bread on the stones of the quay;
He sang by the fence,
And he leaned on the fence,
And he counted his loaves on the quay."""


def _partial(result: FormCheck) -> list[str]:
    return [i.detail for i in result.explanation if i.detail.startswith(PREFIX)]


def test_a_limerick_of_partial_rhymes_names_its_weakest_pair() -> None:
    result = check_poem(DUNDEE, "limerick")
    assert result.passed and result.rhyme_score == 0.85
    assert result.facts["rhyme"] == "AABBA: 2.5 of 3 required rhymes"
    partial = [i for i in result.explanation if i.detail.startswith(PREFIX)]
    assert len(partial) == 1 and partial[0].constraint == "rhyme"
    assert partial[0].lines == [1, 5]
    assert "lines 1 and 5, 'dundee' / 'deep'" in partial[0].detail
    # the other findings are the rule's own (the metre misses of lines 1 and 5: "3 of 5 lines
    # fit", so both are named, line 5's near miss too)
    assert [(i.constraint, i.lines) for i in result.explanation][:2] == [
        ("meter", [1]),
        ("meter", [5]),
    ]
    assert [i.constraint for i in result.explanation][2:] == ["rhyme"]


def test_no_partial_finding_when_every_rhyme_is_full() -> None:
    result = check_poem(NEAT, "limerick")
    assert result.rhyme_score == 1.0 and _partial(result) == []


def test_a_failing_score_of_partial_rhymes_says_which_is_weakest() -> None:
    result = check_poem(REPEATS, "limerick")
    assert not result.passed and result.rhyme_score == 0.6
    assert result.summary.endswith(
        "rhyme: AABBA: 1.8 of 3 required rhymes; weakest partial rhyme: lines 1 and 2, "
        "'quay' / 'quay' (the same word, 0.60)"
    )


def test_the_cap_on_failures_is_kept_and_the_partial_pairs_come_after_it() -> None:
    result = check_poem(SCATTERED, "sonnet", None, "AAAAAAAAAAAAAA")
    rhyme = [i for i in result.explanation if i.constraint == "rhyme"]
    failures = [i for i in rhyme if not i.detail.startswith(PREFIX)]
    assert len(failures) == MAX_FINDINGS_PER_KIND + 1
    assert failures[-1].detail.endswith("more failures of this kind")
    assert rhyme[-1].detail.startswith(PREFIX) and "'although' / 'through'" in rhyme[-1].detail
    assert f"rhyme: {failures[0].detail}" in result.summary and PREFIX not in result.summary
