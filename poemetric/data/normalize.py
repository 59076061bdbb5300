"""The canonical text of a dataset's cells: poem content (NFC, `\\n` newlines, no trailing
spaces) and rhyme patterns (upper-case letters, one space between stanza groups).
"""

from __future__ import annotations

import re
import unicodedata

from poemetric.data.text_files import newlines

_RHYME_PATTERN = re.compile(r"[A-Z]+( [A-Z]+)*")
#: A letter with a refrain's number or prime (a villanelle's `A1`, `A2`), as the form checker reads.
_REFRAIN = re.compile(r"[A-Z][0-9'′¹²³⁴]+")
#: What a spreadsheet or a script writes in a cell for a missing value (`str(None)`, pandas'
#: `nan`, SQL's `NULL`, a spreadsheet's `N/A` or `-`), lower-cased. The prompt leaves such a
#: metre or theme out, and a rhyme pattern is refused: upper-cased, `NONE` or `UNKNOWN` is
#: letters, read as a scheme (`NONE`: lines 1 and 3 rhyme) that failed the human poem's own
#: rhyme check, while the prompt said nothing of a rhyme scheme.
MISSING_VALUE_WORDS = frozenset(
    {"none", "null", "nil", "nan", "n/a", "na", "-", "–", "—", "/", "unknown"}
)


#: Unicode's other line breaks, which a text pasted from a word processor or a web page may hold
#: (U+2028 LINE SEPARATOR, Word's manual line break U+000B; U+2029 PARAGRAPH SEPARATOR, a stanza
#: break): an editor shows them as line breaks, and so does POEMetric. NEL (U+0085) is left
#: alone: in scraped text it is nearly always Windows-1252's ellipsis read as Latin-1, which a
#: line break would cut in two.
_OTHER_LINE_BREAKS = str.maketrans({"\u2028": "\n", "\u000b": "\n", "\u2029": "\n\n"})


def normalize_content(text: str) -> str:
    """Canonical poem text: NFC, `\\n` newlines, no trailing spaces, no blank lines at the ends.

    Indentation and blank lines between stanzas are kept.
    """
    text = newlines(unicodedata.normalize("NFC", text)).translate(_OTHER_LINE_BREAKS)
    lines = [line.rstrip() for line in text.split("\n")]
    return "\n".join(lines).strip("\n")


def normalize_rhyme_pattern(pattern: str) -> str | None:
    """Upper-case letters, one space between stanza groups; empty → None; else ValueError."""
    cleaned = " ".join(pattern.split()).upper()
    if not cleaned:
        return None
    if cleaned.lower() in MISSING_VALUE_WORDS:
        raise ValueError(
            f"bad rhyme pattern {pattern!r}: a word for a missing value, not a rhyme scheme; "
            "leave the cell empty for a poem without one"
        )
    if not _RHYME_PATTERN.fullmatch(cleaned) or not cleaned.isascii():
        bare = _without_refrain_numbers(cleaned)
        hint = f"and no refrain numbers ({bare!r}: the form checks its refrains)" if bare else ""
        raise ValueError(
            f"bad rhyme pattern {pattern!r}: use letters A-Z, with spaces between stanza groups "
            + (hint or "(e.g. 'ABABCDCDEFEF GG')")
        )
    return cleaned


def _without_refrain_numbers(pattern: str) -> str | None:
    """`pattern` without a villanelle's refrain numbers (`A1BA2 ABA1` → `ABA ABA`), which the
    form checker reads and a dataset does not, where a numbered letter recurs (`AB1B`: a typo)."""
    numbered = _REFRAIN.findall(pattern)
    if all(numbered.count(token) < 2 for token in numbered):
        return None
    bare = _REFRAIN.sub(lambda token: token[0][0], pattern)
    return bare if _RHYME_PATTERN.fullmatch(bare) else None


def rhyme_groups(pattern: str | None) -> list[str]:
    """Stanza groups of a rhyme pattern: `'ABBAABBA CDECDE'` → `['ABBAABBA', 'CDECDE']`."""
    return pattern.split() if pattern else []
