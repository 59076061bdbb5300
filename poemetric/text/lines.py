"""The lines of a poem, one rule for the stages that count or grade them."""

from __future__ import annotations


def poem_lines(text: str) -> list[str]:
    """The non-blank lines of a poem, stripped (stanza breaks do not count as lines)."""
    return [line.strip() for line in text.splitlines() if line.strip()]
