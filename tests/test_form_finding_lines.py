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
