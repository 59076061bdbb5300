"""Reasoning in a model's answer: `<think>` blocks (closed, unopened or unclosed) and the
provider's own reasoning field, separated from the answer."""

from __future__ import annotations

import re

from poemetric.text.plural import counted

_THINK_BLOCK = re.compile(
    r"<(think|thinking|thought|reasoning)>(.*?)</\1>", re.IGNORECASE | re.DOTALL
)
_THINK_CLOSE = re.compile(r"</(think|thinking|thought|reasoning)>", re.IGNORECASE)
_THINK_OPEN = re.compile(r"^\s*<(think|thinking|thought|reasoning)>", re.IGNORECASE)


def split_reasoning(text: str, reasoning: str | None = None) -> tuple[str, str | None, list[str]]:
    """Separate reasoning from the answer: tagged blocks plus the provider's reasoning field.

    Returns (answer, reasoning or None, notes).
    """
    notes: list[str] = []
    parts: list[str] = []
    if reasoning and reasoning.strip():
        parts.append(reasoning.strip())

    blocks = [match.group(2).strip() for match in _THINK_BLOCK.finditer(text)]
    if blocks:
        text = _THINK_BLOCK.sub("", text)
        notes.append(f"moved {counted(len(blocks), '<think> block')} to reasoning")
        parts.extend(block for block in blocks if block)
    closing = list(_THINK_CLOSE.finditer(text))
    if closing:
        # R1-style output: the chat template opened the block, so only the closing tag is left.
        last = closing[-1]
        before = _THINK_OPEN.sub("", _THINK_CLOSE.sub("", text[: last.start()])).strip()
        if before:
            parts.append(before)
        text = text[last.end() :]
        notes.append("moved the text before a closing </think> tag (no opening tag) to reasoning")
    opening = _THINK_OPEN.match(text)
    if opening:
        # Opened but never closed: the answer was cut off while still thinking.
        unfinished = text[opening.end() :].strip()
        if unfinished:
            parts.append(unfinished)
        text = ""
        notes.append("the response ends inside an unclosed <think> block: no answer after it")

    merged: list[str] = []
    for part in parts:
        if part not in merged:
            merged.append(part)
    return text, ("\n\n".join(merged) if merged else None), notes
