"""The vocabulary that chat detection (`classify._META`) and closing remarks (`closing`) share."""

from __future__ import annotations

import pytest

from poemetric.extraction.classify import (
    _DESCRIBING_VERBS,
    _META_RE,
    _META_RE_I,
    _PREAMBLE_OPENER,
    _TECHNICAL_TERMS,
    _WRITTEN,
)
from poemetric.extraction.closing import _DESCRIBES, _GLUED_DESCRIBES, _TECHNICAL


@pytest.mark.parametrize("term", [term.rstrip("?") for term in _TECHNICAL_TERMS.split("|")])
def test_a_technical_term_is_chat_and_technical_prose(term: str) -> None:
    assert _META_RE.search(f"a poem in {term} here")
    assert _META_RE_I.search(f"A poem in {term.upper()} here")
    assert _TECHNICAL.findall(f"{term.capitalize()}, {term}.") == [term.capitalize(), term]


@pytest.mark.parametrize("verb", _DESCRIBING_VERBS)
def test_a_describing_verb_is_chat_and_opens_a_description(verb: str) -> None:
    assert _META_RE.search(f"the poem {verb} the sea")
    assert _DESCRIBES.match(f"This {verb} the sea.")
    assert _GLUED_DESCRIBES.match(f"This {verb} the sea.")


def test_chat_reads_a_describing_verb_without_its_s_but_not_use() -> None:
    assert _META_RE.search("I tried to capture the sea")
    assert not _META_RE.search("I use the sea")
    assert not _DESCRIBES.match("This capture of the sea.")


@pytest.mark.parametrize("participle", _WRITTEN.split("|"))
def test_a_participle_of_writing_is_chat_and_opens_a_description(participle: str) -> None:
    assert _META_RE.search(f"a sonnet {participle} for you")
    assert _PREAMBLE_OPENER.match(f"I've {participle} a sonnet")
    assert _DESCRIBES.match(f"{participle.capitalize()} in ballad stanzas.")
    assert _GLUED_DESCRIBES.match(f"{participle.capitalize()} in ballad stanzas.")
