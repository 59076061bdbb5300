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


# Written for these tests: line 1 and 2 are near misses (4 beats for 3), line 5 misses outright.
BEARD = """There was an old man who was sad with a beard
Who said, it is just as I had feared!
Two mice and a hen,
Four ducks and a wren,
Beard."""
SUN = """The sun came up upon the left, the sun came up,
Out of the sea came he!
And he shone bright, and on the right the moon
Went down{end}"""


def _meter_reason(summary: str) -> str:
    return summary.partition(" - meter: ")[2].partition("; ")[0]


def test_a_beat_metre_summary_names_the_worst_line_not_the_first() -> None:
    """Since every missed line is named, in line order, the summary named the first, a near miss
    ("line 1 ... (about 4)"), before the line that misses outright: it names the worst-fitting
    line (lowest credit), the findings stay in line order and the score is unchanged."""
    check = check_poem(BEARD, "limerick")
    assert [f.lines for f in check.explanation if f.constraint == "meter"] == [[1], [2], [5]]
    assert _meter_reason(check.summary) == "line 5 does not read with 3 beats (about 1)"
    assert check.meter_score == 0.6
    ballad = f"{SUN.format(end=' into the sea.')}\n\n{SUN.format(end='.')}"  # line 8 is the worst
    check = check_poem(ballad, "ballad", "common meter")
    named = [f.lines for f in check.explanation if f.constraint == "meter"]
    assert named[0] == [1] and named == sorted(named), named
    assert _meter_reason(check.summary) == "line 8 does not read with 3 beats (about 1)"


def test_among_lines_of_as_little_credit_the_furthest_beat_count_then_the_first() -> None:
    lines = BEARD.splitlines()
    lines[1] = "Said."  # no credit, about 1 beat for 3, as line 5
    assert _meter_reason(check_poem("\n".join(lines), "limerick").summary).startswith("line 2 ")
    lines[4] = "All the birds of the air and the trees and the seas came to nest in my beard."
    check = check_poem("\n".join(lines), "limerick")  # no credit either, about 6 for 3
    assert _meter_reason(check.summary) == "line 5 does not read with 3 beats (about 6)"


def test_the_worst_line_is_named_past_the_lines_described() -> None:
    """Only the first eight misses are described (the rest counted in one finding): the worst,
    line 40, is described in the summary all the same."""
    stanzas = [SUN.format(end=" into the sea.")] * 9 + [SUN.format(end=".")]
    check = check_poem("\n\n".join(stanzas), "ballad", "common meter")
    meter = [f for f in check.explanation if f.constraint == "meter"]
    assert len(meter) == 9 and meter[-1].detail == "13 more failures of this kind"
    assert _meter_reason(check.summary) == "line 40 does not read with 3 beats (about 1)"
