"""Sestina rotation, stanza by stanza: each stanza takes the previous one's end words 6-1-5-2-4-3.

One stanza that does not rotate (it repeats the previous order, or takes another) fails the form;
a variant word form, a homophone, a substituted word or one swapped pair are slips that do not.
A rhymed sestina may reorder its words to keep its rhyme scheme, as Swinburne's *Sestina* does.
The poems are the hand-written fixture of test_forms.py and one more of our own.
"""

from __future__ import annotations

import pytest
from test_forms import SESTINA

from poemetric.form.checker import FormCheck, check_poem
from poemetric.form.parsing import end_word

#: 6-1-5-2-4-3: the next stanza's end words, as indices of the previous stanza's.
RETROGRADATIO = (5, 0, 4, 1, 3, 2)


def _stanzas(text: str) -> list[list[str]]:
    return [block.split("\n") for block in text.split("\n\n")]


def _join(stanzas: list[list[str]]) -> str:
    return "\n\n".join("\n".join(lines) for lines in stanzas)


def _in_order(lines: list[str], words: list[str]) -> list[str]:
    """The stanza's lines reordered so that their end words come in the order of `words`."""
    by_word = {end_word(line): line for line in lines}
    return [by_word[word] for word in words]


def _ends(lines: list[str]) -> list[str]:
    return [end_word(line) for line in lines]


def _with_end(line: str, word: str) -> str:
    head, _, last = line.rpartition(" ")
    return f"{head} {word}{last[len(end_word(line)) :]}"


def _rotation_findings(result: FormCheck) -> list[str]:
    return [i.detail for i in result.explanation if "does not rotate" in i.detail]


def test_a_perfect_sestina_passes_with_every_stanza_rotated() -> None:
    result = check_poem(SESTINA, "sestina")
    assert result.passed and result.form_score == 1.0, result.summary
    assert result.facts["rotation"] == "5 of stanzas 2-6 follow 6-1-5-2-4-3"
    assert not result.explanation


def test_a_stanza_that_repeats_the_previous_order_fails() -> None:
    """It passed with form 0.94: six lines at half credit cost only 3 of 30 positions."""
    stanzas = _stanzas(SESTINA)
    stanzas[2] = _in_order(stanzas[2], _ends(stanzas[1]))
    result = check_poem(_join(stanzas), "sestina")
    assert not result.passed, result.summary
    assert result.form_score is not None and result.form_score < 0.7
    assert _rotation_findings(result) == [
        "stanza 3 (lines 13-18) does not rotate: expected bread, mother, window, stone, river, "
        "light (6-1-5-2-4-3 of stanza 2), found mother, stone, light, river, window, bread "
        "(stanza 2's order again)"
    ]
    assert result.explanation[0].lines == [13, 14, 15, 16, 17, 18]
    assert "form: stanza 3 (lines 13-18) does not rotate" in result.summary
    assert result.facts["rotation"] == (
        "4 of stanzas 2-6 follow 6-1-5-2-4-3; stanza 3 does not rotate"
    )


def test_going_on_rotating_from_the_wrong_stanza_is_one_error() -> None:
    """Stanzas 4-6 rotate from stanza 3 as written: only stanza 3 is wrong (it passed, 0.74)."""
    stanzas = _stanzas(SESTINA)
    order = _ends(stanzas[1])
    for k in range(2, 6):
        if k > 2:
            order = [order[i] for i in RETROGRADATIO]
        stanzas[k] = _in_order(stanzas[k], order)
    result = check_poem(_join(stanzas), "sestina")
    assert not result.passed, result.summary
    assert len(_rotation_findings(result)) == 1
    assert _rotation_findings(result)[0].startswith("stanza 3 (lines 13-18) does not rotate")
    assert [i for i in result.explanation if "does not rotate" not in i.detail] == []


def test_swapped_stanzas_fail() -> None:
    stanzas = _stanzas(SESTINA)
    stanzas[1], stanzas[2] = stanzas[2], stanzas[1]
    result = check_poem(_join(stanzas), "sestina")
    assert not result.passed, result.summary
    assert [d.split(" (")[0] for d in _rotation_findings(result)] == ["stanza 2", "stanza 3"]


def _line_changed(line_number: int, word: str) -> str:
    """SESTINA with the end word of one line (1-based; its stanzas have 6 lines) replaced."""
    stanzas = _stanzas(SESTINA)
    stanza, k = divmod(line_number - 1, 6)
    stanzas[stanza][k] = _with_end(stanzas[stanza][k], word)
    return _join(stanzas)


def _pair_swapped(first_line: int) -> str:
    """SESTINA with two neighbouring lines of a stanza swapped."""
    stanzas = _stanzas(SESTINA)
    stanza, k = divmod(first_line - 1, 6)
    lines = stanzas[stanza]
    lines[k], lines[k + 1] = lines[k + 1], lines[k]
    return _join(stanzas)


@pytest.mark.parametrize(
    ("text", "findings"),
    [
        (_line_changed(14, "mothers"), 0),  # line 14 asks for 'mother': an inflected form
        (_line_changed(12, "bred"), 0),  # line 12 asks for 'bread': a homophone
        (_line_changed(9, "sunlight"), 1),  # line 9 asks for 'light' (Kipling's along/long)
        (_pair_swapped(20), 2),  # lines 20-21 ('bread', 'river') swapped: one slip
    ],
    ids=["inflection", "homophone", "variant word", "swapped pair"],
)
def test_variant_end_words_and_one_swapped_pair_still_pass(text: str, findings: int) -> None:
    result = check_poem(text, "sestina")
    assert result.passed, result.summary
    assert result.form_score is not None and result.form_score >= 0.95
    assert not _rotation_findings(result)
    assert len(result.explanation) == findings, result.explanation


def test_three_words_out_of_place_make_an_unrotated_stanza() -> None:
    """The tolerance ends at two: three misplaced end words in one stanza fail the form."""
    stanzas = _stanzas(SESTINA)
    lines = stanzas[3]
    stanzas[3] = [lines[1], lines[2], lines[0], *lines[3:]]
    result = check_poem(_join(stanzas), "sestina")
    assert not result.passed, result.summary
    assert _rotation_findings(result)[0].startswith("stanza 4 (lines 19-24) does not rotate")


#: Swinburne's *Sestina* keeps its rhymes alternating (ABABAB) in every stanza and so departs
#: from 6-1-5-2-4-3; these are its stanza orders (indices of the first stanza's end words).
SWINBURNE_ORDERS = (
    (0, 1, 2, 3, 4, 5),
    (5, 0, 3, 2, 1, 4),
    (4, 5, 0, 3, 2, 1),
    (1, 4, 5, 0, 3, 2),
    (2, 1, 0, 5, 4, 3),
    (3, 2, 1, 4, 5, 0),
)
_RHYMED_WORDS = ("rain", "stone", "lane", "bone", "plain", "alone")
_OPENINGS = (
    "We walked together in the falling",
    "and set our names upon a mossy",
    "the cattle waited in the narrow",
    "the winter cut us to the very",
    "the farmer ploughed across the open",
    "and no one there was ever quite",
)


def _rhymed_sestina(orders: tuple[tuple[int, ...], ...]) -> str:
    stanzas = [
        [f"{_OPENINGS[(i + k) % 6]} {_RHYMED_WORDS[w]}," for i, w in enumerate(order)]
        for k, order in enumerate(orders)
    ]
    envoi = [
        "The rain upon the stone, the lane,",
        "the bone beneath the plain,",
        "and we were not alone.",
    ]
    return _join([*stanzas, envoi])


def test_a_rhymed_sestina_may_reorder_its_words_to_keep_the_rhyme() -> None:
    result = check_poem(_rhymed_sestina(SWINBURNE_ORDERS), "sestina")
    assert result.passed, result.summary
    assert "reorder to keep the rhyme scheme" in result.facts["rotation"]
    # ... but a stanza that repeats the previous order still does not rotate.
    orders = list(SWINBURNE_ORDERS)
    orders[2] = orders[1]
    broken = check_poem(_rhymed_sestina(tuple(orders)), "sestina")
    assert not broken.passed, broken.summary
    first = _rotation_findings(broken)[0]
    assert first.startswith("stanza 3 (lines 13-18) does not rotate"), first
    assert first.endswith("(stanza 2's order again)"), first
    # Two stanzas swapped break the link: a stanza no longer opens with the last word before it.
    swapped = list(SWINBURNE_ORDERS)
    swapped[4], swapped[5] = swapped[5], swapped[4]
    assert not check_poem(_rhymed_sestina(tuple(swapped)), "sestina").passed
    # Unrhymed, the same orders are only a departure from 6-1-5-2-4-3: they do not rotate.
    unrhymed = _rhymed_sestina(SWINBURNE_ORDERS)
    for rhymed, plain in (("lane", "field"), ("bone", "hand"), ("plain", "sea"), ("alone", "tree")):
        unrhymed = unrhymed.replace(f" {rhymed}", f" {plain}")
    result = check_poem(unrhymed, "sestina")
    assert not result.passed and len(_rotation_findings(result)) >= 4, result.summary


def test_a_short_poem_checked_as_a_sestina_fails_without_an_error() -> None:
    text = _join(_stanzas(SESTINA)[:3])
    result = check_poem(text, "sestina")
    assert result.error is None and not result.passed, result.summary
    assert not _rotation_findings(result)


def _end_word_pattern() -> str:
    """The end-word pattern of a sestina's six stanzas: ABCDEF FAEBDC CFDABE ..."""
    order, groups = list(range(6)), []
    for _ in range(6):
        groups.append("".join("ABCDEF"[k] for k in order))
        order = [order[j] for j in RETROGRADATIO]
    return " ".join(groups)


def test_end_words_that_happen_to_rhyme_cost_nothing_against_the_end_word_pattern() -> None:
    """A sestina's pattern letters name its end words: 'night' and 'light' are two of them that
    rhyme, which the form allows; the pattern's "new rhyme" rule made the poem fail (0.59)."""
    rhyming = SESTINA.replace("stone", "night")
    result = check_poem(rhyming, "sestina", None, _end_word_pattern())
    assert result.passed, result.summary
    assert result.rhyme_score is not None and result.rhyme_score > 0.9
    assert "asks for a new rhyme" not in " ".join(issue.detail for issue in result.explanation)


def test_the_envoi_holds_an_end_word_as_the_stanzas_do() -> None:
    """The envoi compared crude stems: 'moth' held 'mother' (both 'moth'), and 'mothers' (stem
    'mother') did not. It now matches words as the stanzas' end words are matched, where an
    inflection must also sound like its word; so does the rotation ('moth' for 'mother')."""
    stanzas = _stanzas(SESTINA)

    def envoi_with(word: str) -> FormCheck:
        envoi = [line.replace("mother", word) for line in stanzas[6]]
        return check_poem(_join([*stanzas[:6], envoi]), "sestina")

    moth = envoi_with("moth")
    assert [i.detail for i in moth.explanation] == ["the envoi lacks 'mother'"]
    assert moth.form_score == pytest.approx(1.0 - 0.2 / 6, abs=1e-4)
    mothers = envoi_with("mothers")
    assert mothers.form_score == 1.0 and not mothers.explanation, mothers.explanation
    slip = check_poem(_line_changed(14, "moth"), "sestina")  # line 14 asks for 'mother'
    assert [i.detail for i in slip.explanation] == [
        "line 14 ends with 'moth', which is none of the six end words"
    ]


def test_moth_and_mother_are_two_of_the_first_stanzas_six_end_words() -> None:
    """The first stanza's different end words were counted by crude stem, so 'moth' beside
    'mother' read as one word repeated: "only 5 different end words" and the order score cut to
    5/6 of itself, for a sestina whose six words rotate perfectly."""
    with_moth = SESTINA.replace("stone", "moth")
    result = check_poem(with_moth, "sestina")
    assert not [i.detail for i in result.explanation if "different end words" in i.detail]
    assert result.form_score == 1.0, result.explanation


def test_a_possessive_end_word_is_its_word() -> None:
    """'world's' lost only its s ('world'' is not 'world'): a slip for 'world' read as another word."""
    from poemetric.form.same_word import same_end_word

    assert same_end_word("world's", "world") and same_end_word("world’s", "worlds")
    assert not same_end_word("moth", "mother")
