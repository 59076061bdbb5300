"""Stanza labels a model writes into the poem: a label line ("Stanza 1", "### Couplet 2
(Matla):", "**Verse 3**"), stanza numbers ("**I**", "**II**"), a label before a stanza's first
line ("Couplet 1: ...") and refrain markers ("... (Refrain)", "(A1)"). `LABEL_LINE` also tells
the title pass that a first line is a label, not a title."""

from __future__ import annotations

import re

from poemetric.extraction.classify import _plain, _quote
from poemetric.extraction.marks import numbered_stanzas, unheaded

_NUMBERS = r"\d+|[ivxlc]+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_LABEL_WORDS = (
    r"stanza|verse|quatrain|tercet|couplet|sestet|octave|octet|cinquain|refrain|chorus|volta|"
    r"envoi|envoy|sher|she'r|shi'r|matla|matla'|maqta|maqta'|makta|poem|answer|final answer|"
    r"response|bridge|outro|intro|pre-chorus"
)
#: A remark in brackets after a label: "Couplet 1 (Matla):", "Stanza 6 (Refrain)", "Matla
#: (Opening Couplet)"; the stanza's scheme or end words, "Stanza 2 (FAEBDC)", "Tercet 1 (A1 b
#: A2)", "Stanza 1 (end words: tree, away, hill)".
_LABEL_REMARK = (
    rf"\s*\((?:(?:opening|closing|first|final|last)?\s*(?:{_LABEL_WORDS})(?:\s+(?:{_NUMBERS}))?|"
    r"(?=[^)]*[A-F])[A-Fa-f][A-Fa-f\d\s,'’–-]{1,24}|"
    r"(?:end[- ]?words?|rhymes?|rhyme scheme|scheme|teleutons?)\s*:[^()]{1,80})\)"
)
LABEL_LINE = re.compile(
    rf"^\s*[\(\[]?\s*(?:{_LABEL_WORDS})(?:\s+(?:{_NUMBERS}))?(?:{_LABEL_REMARK})?\s*[\)\]]?"
    r"\s*[:.\-–—]?\s*$",
    re.IGNORECASE,
)
_INLINE_LABEL = re.compile(
    rf"^\s*[\(\[]?(?:stanza|quatrain|tercet|couplet|sestet|envoi|envoy|sher|she'r|matla|maqta)"
    rf"(?:\s+(?:{_NUMBERS}))?[\)\]]?\s*[:\-–—]\s+(\S.*)$",
    re.IGNORECASE,
)
_REFRAIN_TAG = re.compile(r"\s*\((?:refrain(?:\s*[A-Z]?\d?)?|[A-Z]\d)\)\s*$", re.IGNORECASE)


def strip_stanza_labels(lines: list[str], notes: list[str]) -> list[str]:
    """`lines` without stanza labels ("Stanza 1", "**Verse 2:**"), stanza numbers over two
    stanzas or more, inline labels ("Couplet 1: ...", keeping the text) and refrain markers;
    each removal noted."""
    result: list[str] = []
    numbered = numbered_stanzas(lines)
    drop_numbers = len(numbered) >= 2
    for i, line in enumerate(lines):
        plain = _plain(line)
        if plain and LABEL_LINE.match(unheaded(line)):
            notes.append(f"removed stanza label: {_quote(line)}")
            if result and result[-1].strip():
                result.append("")
            continue
        if drop_numbers and i in numbered:
            notes.append(f"removed stanza number: {_quote(line)}")
            if result and result[-1].strip():
                result.append("")
            continue
        inline = _INLINE_LABEL.match(plain) if plain else None
        if inline:
            label = plain[: len(plain) - len(inline.group(1))].strip()
            notes.append(f"removed stanza label {label!r} (kept its text)")
            line = inline.group(1)
        tagged = _REFRAIN_TAG.search(line)
        if tagged and len(line[: tagged.start()].split()) >= 3:
            notes.append(f"removed refrain marker {tagged.group(0).strip()!r}")
            line = line[: tagged.start()]
        result.append(line)
    return result
