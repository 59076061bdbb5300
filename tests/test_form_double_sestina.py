"""Double sestina rotation, stanza by stanza: each stanza takes the previous one's twelve end words
12-1-11-2-10-3-9-4-8-5-7-6.

A reversed stanza or one that repeats the previous order fails the form, as an unrotated stanza
fails a sestina; a variant word, two of them, or a swapped pair or two are slips that do not.
The poems are built here.
"""

from __future__ import annotations

import pytest
from test_forms import SESTINA

from poemetric.form.checker import FormCheck, check_poem
from poemetric.form.extra_forms import spiral

WORDS = (
    "light",
    "night",
    "stone",
    "home",
    "river",
    "hand",
    "voice",
    "field",
    "rain",
    "bread",
    "fire",
    "sea",
)
SPIRAL = spiral(12)
ORDER = "12-1-11-2-10-3-9-4-8-5-7-6"


def _orders(first: tuple[str, ...] = WORDS) -> list[list[str]]:
    """The twelve stanzas' end words, each the spiral of the one before."""
    orders = [list(first)]
    for _ in range(11):
        orders.append([orders[-1][k] for k in SPIRAL])
    return orders


def _poem(orders: list[list[str]]) -> str:
    stanzas = [
        "\n".join(f"And here the line goes on to {word}" for word in order) for order in orders
    ]
    envoi = [f"{WORDS[k]} and {WORDS[k + 1]} close it" for k in range(0, 12, 2)]
    return "\n\n".join([*stanzas, "\n".join(envoi)])


def _check(orders: list[list[str]]) -> FormCheck:
    return check_poem(_poem(orders), "double sestina")


def _rotation_findings(result: FormCheck) -> list[str]:
    return [i.detail for i in result.explanation if "does not rotate" in i.detail]


def test_a_perfect_double_sestina_passes_with_every_stanza_rotated() -> None:
    result = _check(_orders())
    assert result.passed and result.form_score == 1.0, result.summary
    assert result.facts["rotation"] == f"11 of stanzas 2-12 follow {ORDER}"
    assert not result.explanation


def test_a_reversed_stanza_fails() -> None:
    """It passed with form 0.97: twelve lines at half credit cost only 6 of 132 positions."""
    orders = _orders()
    orders[5] = orders[5][::-1]
    result = _check(orders)
    assert not result.passed, result.summary
    assert result.form_score == pytest.approx(0.61)
    [finding] = _rotation_findings(result)
    assert finding.startswith(
        "stanza 6 (lines 61-72) does not rotate: expected voice, fire, home, stone, bread, field, "
        f"light, hand, sea, river, night, rain ({ORDER} of stanza 5), found rain, night, river,"
    ), finding
    assert result.explanation[0].lines == list(range(61, 73))
    assert (
        result.facts["rotation"] == f"10 of stanzas 2-12 follow {ORDER}; stanza 6 does not rotate"
    )


def test_a_stanza_that_repeats_the_previous_order_fails() -> None:
    orders = _orders()
    orders[3] = list(orders[2])
    result = _check(orders)
    assert not result.passed, result.summary
    [finding] = _rotation_findings(result)
    assert finding.startswith("stanza 4 (lines 37-48) does not rotate"), finding
    assert finding.endswith("(stanza 3's order again)"), finding


def test_going_on_rotating_from_the_wrong_stanza_is_one_error() -> None:
    """Stanzas 8-12 rotate from the reversed stanza 7 as written: only stanza 7 is wrong."""
    orders = _orders()
    orders[6] = orders[6][::-1]
    for k in range(7, 12):
        orders[k] = [orders[k - 1][i] for i in SPIRAL]
    result = _check(orders)
    assert not result.passed, result.summary
    assert [d.split(" (")[0] for d in _rotation_findings(result)] == ["stanza 7"]
    assert [i for i in result.explanation if "does not rotate" not in i.detail] == []


def _ended(orders: list[list[str]], changes: dict[int, str]) -> list[list[str]]:
    """`orders` with the end word of some lines (1-based; stanzas of 12 lines) replaced."""
    orders = [list(order) for order in orders]
    for line, word in changes.items():
        stanza, k = divmod(line - 1, 12)
        orders[stanza][k] = word
    return orders


def _swapped(orders: list[list[str]], *first_lines: int) -> list[list[str]]:
    """`orders` with each of the lines `first_lines` swapped with the line after it."""
    orders = [list(order) for order in orders]
    for line in first_lines:
        stanza, k = divmod(line - 1, 12)
        orders[stanza][k], orders[stanza][k + 1] = orders[stanza][k + 1], orders[stanza][k]
    return orders


def _variant_in_every_stanza() -> list[list[str]]:
    """'sunlight' wherever stanzas 2-12 ask for 'light' (Kipling's along for long)."""
    return [
        [("sunlight" if w == "light" else w) for w in order] if k else order
        for k, order in enumerate(_orders())
    ]


@pytest.mark.parametrize(
    ("orders", "findings"),
    [
        (_ended(_orders(), {57: "sunlight"}), 1),  # line 57 asks for 'light'
        (_ended(_orders(), {57: "sunlight", 55: "nights"}), 1),  # and 'nights' for 'night'
        (_ended(_orders(), {49: "fireside", 56: "seashore"}), 2),  # for 'fire' and 'sea'
        (_variant_in_every_stanza(), 1),  # stanzas 3-12 rotate stanza 2 as written
        (_swapped(_orders(), 30), 2),  # one swapped pair
        (_swapped(_orders(), 30, 34), 4),  # two swapped pairs: four words out of place
    ],
    ids=[
        "variant word",
        "variant and inflection",
        "two variants",
        "variant in every stanza",
        "swapped pair",
        "two swapped pairs",
    ],
)
def test_variant_end_words_and_swapped_pairs_still_pass(
    orders: list[list[str]], findings: int
) -> None:
    result = _check(orders)
    assert result.passed, result.summary
    assert result.form_score is not None and result.form_score >= 0.9
    assert not _rotation_findings(result)
    assert len(result.explanation) == findings, result.explanation


def test_five_words_out_of_place_make_an_unrotated_stanza() -> None:
    """The tolerance ends at four: five misplaced end words in one stanza fail the form."""
    orders = _orders()
    lines = orders[8]
    orders[8] = [*lines[1:5], lines[0], *lines[5:]]  # five words each one place off
    result = _check(orders)
    assert not result.passed, result.summary
    assert _rotation_findings(result)[0].startswith("stanza 9 (lines 97-108) does not rotate")


def test_a_short_double_sestina_fails_without_a_rotation_finding() -> None:
    text = "\n\n".join(_poem(_orders()).split("\n\n")[:5])
    result = check_poem(text, "double sestina")
    assert result.error is None and not result.passed, result.summary
    assert not _rotation_findings(result)
    assert result.facts["rotation"] == (
        f"4 of stanzas 2-12 follow {ORDER}; stanzas 6, 7, 8, 9, 10, 11, 12 are cut short"
    )


def test_a_first_stanza_that_repeats_an_end_word_is_reported_as_in_the_sestina() -> None:
    """Its order score was scaled by 11 of 12 words with no finding to say why (the sestina
    has one)."""
    result = _check(_orders((*WORDS[:11], WORDS[0])))  # 'light' ends lines 1 and 12, no 'sea'
    assert result.form_score is not None and result.form_score < 1.0, result.summary
    [finding] = [i for i in result.explanation if "different end words" in i.detail]
    assert finding.detail == "the first stanza has only 11 different end words"
    assert finding.constraint == "end words" and finding.lines == list(range(1, 13))
    sestina = check_poem(SESTINA.replace("mother", "stone"), "sestina")
    assert [i.detail for i in sestina.explanation if "different end words" in i.detail] == [
        "the first stanza has only 5 different end words"
    ]


def test_the_envoi_holds_an_end_word_as_the_stanzas_do() -> None:
    """The envoi compared crude stems: 'fir' held 'fire' (both 'fir')."""
    text = _poem(_orders()).replace("fire and sea close it", "fir and sea close it")
    result = check_poem(text, "double sestina")
    assert [i.detail for i in result.explanation] == ["the envoi holds 11 of the 12 end words"]
    assert result.form_score == pytest.approx(1.0 - 0.2 / 12, abs=1e-4)


#: Swinburne's *The Complaint of Lisa* rhymes its twelve end words in pairs and does not follow
#: 12-1-11-2...: each stanza opens with the last word of the one before and then its first, and
#: orders the rest for the rhyme. These are its stanza orders (indices of stanza 1's end words).
LISA_ORDERS = tuple(
    tuple(k - 1 for k in order)
    for order in (
        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12),
        (12, 1, 9, 11, 4, 7, 2, 8, 3, 10, 6, 5),
        (5, 12, 6, 4, 7, 1, 2, 3, 10, 9, 11, 8),
        (8, 5, 7, 6, 4, 12, 10, 2, 3, 11, 1, 9),
        (9, 8, 6, 10, 1, 2, 7, 4, 3, 12, 5, 11),
        (11, 9, 6, 10, 4, 2, 7, 1, 12, 8, 5, 3),
        (3, 11, 7, 8, 12, 1, 2, 10, 5, 6, 9, 4),
        (4, 3, 9, 6, 5, 10, 1, 7, 12, 11, 8, 2),
        (2, 4, 5, 1, 3, 8, 7, 10, 9, 11, 12, 6),
        (6, 2, 9, 3, 8, 1, 7, 5, 10, 4, 11, 12),
        (12, 6, 8, 4, 3, 5, 9, 10, 2, 1, 11, 7),
        (7, 12, 6, 3, 9, 11, 5, 8, 4, 2, 10, 1),
    )
)
#: Its end words: breath/death, her/sunflower, way/day, sun/done, bed/dead, thee/me.
LISA_WORDS = (
    "breath",
    "her",
    "way",
    "death",
    "sunflower",
    "sun",
    "day",
    "bed",
    "thee",
    "dead",
    "done",
    "me",
)


def _lisa(orders: tuple[tuple[int, ...], ...], words: tuple[str, ...] = LISA_WORDS) -> str:
    stanzas = ["\n".join(f"And here the line goes on to {words[k]}" for k in o) for o in orders]
    envoi = [f"{words[k]} and {words[k + 1]} close it" for k in range(0, 12, 2)]
    return "\n\n".join([*stanzas, "\n".join(envoi)])


def test_a_rhymed_double_sestina_may_reorder_its_words_as_the_complaint_of_lisa_does() -> None:
    result = check_poem(_lisa(LISA_ORDERS), "double sestina")
    assert result.passed and result.form_score == pytest.approx(0.87), result.summary
    assert result.facts["rotation"] == (
        f"0 of stanzas 2-12 follow {ORDER}; stanzas 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 "
        "reorder for the rhyme"
    )
    # ... but a stanza that repeats the previous order, or is reversed, still does not rotate.
    for k, order in ((4, LISA_ORDERS[3]), (6, LISA_ORDERS[6][::-1])):
        orders = list(LISA_ORDERS)
        orders[k] = order
        broken = check_poem(_lisa(tuple(orders)), "double sestina")
        assert not broken.passed, broken.summary
        assert _rotation_findings(broken)[0].startswith(f"stanza {k + 1} "), broken.summary
    # Unrhymed, the same orders are only a departure from 12-1-11-2...: they do not rotate.
    result = check_poem(_lisa(LISA_ORDERS, WORDS), "double sestina")
    assert not result.passed and len(_rotation_findings(result)) == 11, result.summary
