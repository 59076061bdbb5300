"""Closing remarks after the poem: sign-offs, notes and analyses, as whole paragraphs after the
last stanza or as a sign-off or metadata line glued to it."""

from __future__ import annotations

from poemetric.extraction.classify import _BULLET, _is_commentary, _is_glued_closing, _quote


def strip_trailing_chatter(lines: list[str], notes: list[str]) -> list[str]:
    starts = [
        i for i, line in enumerate(lines) if line.strip() and (i == 0 or not lines[i - 1].strip())
    ]
    first_content = starts[0] if starts else len(lines)
    cut = len(lines)
    for start in starts[1:]:
        if not _is_commentary(lines[start]):
            continue
        later = [s for s in starts if s > start]
        if all(_is_commentary(lines[s]) or _BULLET.match(lines[s]) for s in later):
            cut = start
            break
    # A sign-off or metadata glued to the last stanza ("... night.\nI hope you enjoy it!").
    end = cut
    while end > first_content + 1 and _is_glued_closing(lines[end - 1]):
        end -= 1
    if end < cut:
        cut = end
    for line in lines[cut:]:
        if line.strip():
            notes.append(f"removed closing remark: {_quote(line)}")
    return lines[:cut]
