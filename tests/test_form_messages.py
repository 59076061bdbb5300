"""Messages of the form check that a poet reads: an unknown form named with its kind, and a
sonnet whose requested pattern sets another line count. Verdicts are unchanged (the rows stay
unchecked, the sonnet still fails); only what the messages say is tested here."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from poemetric.cli.app import app
from tests.test_form_scan_verdict import SONNET

runner = CliRunner()


def _check(tmp_path: Path, rows: list[dict[str, str]]) -> list[dict[str, object]]:
    source = tmp_path / "answers.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "checks.jsonl"
    runner.invoke(app, ["form", "check", str(source), "-o", str(out), "-j", "1"])
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_a_form_named_with_its_kind_is_pointed_to_the_form(tmp_path: Path) -> None:
    """A form given with its kind ("Shakespearean sonnet") was told "it cannot check this one"."""
    rows = _check(
        tmp_path,
        [
            {"id": "a", "form": "Shakespearean sonnet", "text": SONNET},
            {"id": "b", "form": "traditional English folk ballad", "text": SONNET},
            {"id": "c", "form": "rondeau", "text": SONNET},
        ],
    )
    assert [row["passed"] for row in rows] == [False, False, False]
    assert [row["error_kind"] for row in rows] == ["request"] * 3
    errors = [str(row["error"]) for row in rows]
    assert (
        "did you mean 'sonnet'? (give the form alone: a scheme such as Shakespearean" in (errors[0])
    )
    assert errors[1].endswith("did you mean 'ballad'? (give the form alone)")
    assert errors[2].endswith("it cannot check this one")
    poem = tmp_path / "poem.txt"
    poem.write_text(SONNET, encoding="utf-8")
    scanned = runner.invoke(app, ["form", "scan", str(poem), "--form", "Petrarchan sonnet"])
    assert scanned.exit_code == 2
    assert "did you mean 'sonnet'?" in " ".join(scanned.stderr.split())


def test_a_sonnet_pattern_of_twelve_lines_is_not_said_to_be_a_sonnets_length(
    tmp_path: Path,
) -> None:
    """A 12-letter pattern for a 14-line poem: "a sonnet has 12 lines; this poem has 14"."""
    rows = _check(
        tmp_path, [{"id": "s", "form": "sonnet", "text": SONNET, "rhyme": "ABAB CDCD EFEF"}]
    )
    assert rows[0]["passed"] is False and rows[0]["form_score"] == 0.0
    details = [issue["detail"] for issue in rows[0]["explanation"]]  # type: ignore[attr-defined]
    assert "a sonnet of the requested rhyme pattern has 12 lines; this poem has 14" in details
    assert "a sonnet has 12 lines" not in str(rows[0]["summary"])
    plain = _check(tmp_path, [{"id": "s", "form": "sonnet", "text": SONNET + "\nOne more line."}])
    assert "a sonnet has 14 lines; this poem has 15" in str(plain[0]["summary"])


# Written for this test: every rhyme is a repeated end word (town, hat), 0.6 credit each.
REPEATS = """A fellow who lived in the town
Went walking all over the town;
He bought a new hat,
Then a second new hat,
And wore both of them back through the town."""


def test_a_score_of_partial_rhymes_names_what_was_found(tmp_path: Path) -> None:
    """No pair under half credit, so no failure finding: the summary said only "rhyme score
    below threshold"; it now gives the rhymes counted and the weakest partial rhyme, which the
    one finding names with the others (`poemetric.form.partial_rhymes`)."""
    rows = _check(tmp_path, [{"id": "l", "form": "limerick", "text": REPEATS}])
    assert rows[0]["passed"] is False and rows[0]["rhyme_score"] == 0.6
    [finding] = rows[0]["explanation"]  # type: ignore[misc]
    assert finding["constraint"] == "rhyme" and finding["lines"] == [1, 2, 3, 4, 5]
    assert str(rows[0]["summary"]).endswith(
        "- rhyme: AABBA: 1.8 of 3 required rhymes; weakest partial rhyme: lines 1 and 2, "
        "'town' / 'town' (the same word, 0.60)"
    )


def test_a_text_that_is_not_a_poem_reads_as_the_failure_it_is(tmp_path: Path) -> None:
    """An empty answer or a one-line refusal is a failed check (counted so, `passed` false, the
    report's badge "failed"), but its summary said "not checked: ..."."""
    rows = _check(
        tmp_path,
        [
            {"id": "e", "form": "sonnet", "response": ""},
            {"id": "r", "form": "sonnet", "response": "I'm sorry, but I can't write that poem."},
            {"id": "u", "form": "rondeau", "text": SONNET},
        ],
    )
    assert [row["passed"] for row in rows] == [False, False, False]
    assert [row["summary"] for row in rows[:2]] == [
        "FAIL sonnet: empty poem text",
        "FAIL sonnet: only 1 verse line; a poem in a fixed form needs more",
    ]
    assert str(rows[2]["summary"]).startswith("not checked: unknown form 'rondeau'")


# Written for this test: lines 1 and 2 end on room / storm, no rhyme a limerick credits.
ROOM = """A fellow who sat in his room
Was waiting all night for the storm;
He bought a new hat,
And a ribbon for that,
Then went out to dance in the gloom."""


def test_a_failed_rhyme_says_the_words_do_not_rhyme(tmp_path: Path) -> None:
    """A failed rhyme read "'room' / 'storm' is none"."""
    rows = _check(tmp_path, [{"id": "l", "form": "limerick", "text": ROOM}])
    assert rows[0]["summary"] == (
        "FAIL limerick: meter 1.00, rhyme 0.67, form 1.00 (threshold 0.70) - rhyme: lines 1 and "
        "2 should rhyme (A) but 'room' / 'storm' do not"
    )
    rows = _check(
        tmp_path, [{"id": "s", "form": "sonnet", "text": SONNET, "rhyme": "ABBAABBA CDECDE"}]
    )
    details = [issue["detail"] for issue in rows[0]["explanation"]]  # type: ignore[attr-defined]
    assert details[0] == "lines 2 and 3 should rhyme (B) but 'stove' / 'rain' do not"
    assert not any(detail.endswith(" is none") for detail in details)


# Written for this test: a villanelle whose last A1 refrain (line 18) changes a word.
VILLANELLE = """The river does not answer when I call,
It hurries past the willows to the sea.
I wait beside the water all the same.

The stones are cold, the evening starts to fall,
The heron lifts its grey wings from the lea;
The river does not answer when I call.

I told it once my sorrow and my shame,
It carried every word away from me.
I wait beside the water all the same.

The swallows gather, tiny, black and small,
They vanish where the river bends to flee;
The river does not answer when I call.

No boat will come, no lantern, and no flame,
No voice across the dark to set me free;
I wait beside the water all the same.

And though the night grows deep and covers all,
And though the stars go out above the tree,
The river never answers when I call;
I wait beside the water all the same."""


# Written for this test: a pantoum whose second stanza's 2nd line (line 6) is not the third
# stanza's 1st (line 9).
PANTOUM = """The tide goes out and takes the sand,
The gulls are crying overhead,
I hold the shell within my hand,
And think of all the words you said.

The gulls are crying overhead,
The wind is cold along the shore,
And think of all the words you said,
I cannot hear them any more.

The rain is grey along the shore,
I hold the shell within my hand,
I cannot hear them any more,
The tide goes out and takes the sand."""


def test_a_pantoum_repeat_is_explained_in_a_poets_words(tmp_path: Path) -> None:
    """It read "chain (line 2 -> next line 1): line 9 only a near-repeat of line 6"."""
    rows = _check(tmp_path, [{"id": "p", "form": "pantoum", "text": PANTOUM}])
    details = [issue["detail"] for issue in rows[0]["explanation"]]  # type: ignore[attr-defined]
    assert details == [
        "a stanza's 2nd line returns as the next one's 1st: line 9 is only a near-repeat of line 6"
    ]

    villanelle = _check(tmp_path, [{"id": "v", "form": "villanelle", "text": VILLANELLE}])[0][
        "explanation"
    ]
    assert {
        "constraint": "refrain",
        "lines": [1, 18],
        "detail": "refrain A1: line 18 is only a near-repeat of line 1",
    } in villanelle  # type: ignore[operator]
