"""A finding's text names the same poem lines as its `lines` field (a reader follows the text)."""

from __future__ import annotations

import re

from poemetric.form.checker import check_poem

# Written for this test: a radif ('tonight') but no qafia before it, so the rhyme fails.
GHAZAL_WITHOUT_QAFIA = """\
The lamps are lit along the quay tonight;
I count the ships that will not sail tonight.

My father kept a ledger of the tides;
its pages turn without a hand tonight.

You said the sea forgets the names we give;
I whisper yours against the wind tonight.

The gulls have gone to sleep upon the stones,
and only I am left to watch tonight.

A lantern swings above the harbour wall,
a small gold coin the dark has spent tonight.

O Walker, close the book and go inside:
no ship of yours comes home at all tonight.
"""


def test_ghazal_qafia_findings_name_the_poems_lines() -> None:
    """The qafia findings said 'lines 2 and 3' for the poem's lines 2 and 4 (they counted the
    couplet-closing lines, not the poem's), in the summary too."""
    check = check_poem(GHAZAL_WITHOUT_QAFIA, "ghazal")
    assert not check.passed
    qafia = [f for f in check.explanation if f.detail.endswith("(qafia)")]
    assert qafia
    for finding in qafia:
        named = re.match(r"lines (\d+) and (\d+) should rhyme", finding.detail)
        assert named, finding.detail
        assert tuple(int(n) for n in named.groups()) == tuple(finding.lines)
    assert "lines 2 and 4 should rhyme (A) but 'sail' / 'hand'" in check.summary


# Lear, typed from memory: *Kildare* is guessed with the wrong stress (no user lexicon).
KILDARE = """There was an Old Man of Kildare,
Who climbed into a very old chair;
When he said, "Here I sits!"
It fell into bits,
Which distressed that Old Man of Kildare."""


def test_every_line_a_beat_metre_misses_is_named() -> None:
    """'3 of 5 lines fit limerick meter' named no line (near misses earn part credit, and only
    lines under half credit were named), unlike a foot metre, whose misses are all named."""
    check = check_poem(KILDARE, "limerick")
    assert check.facts["meter"] == "3 of 5 lines fit limerick meter (3-3-2-2-3 beats)"
    named = [finding.lines for finding in check.explanation if finding.constraint == "meter"]
    assert named == [[1], [5]]
    assert check.meter_score == 0.8  # the score is unchanged: the findings only say which
