"""The verdict block under `poemetric form scan`'s table: the summary, what the checker found
(the scheme it chose, the rhymes and lines that fit, a ghazal's radif, a sestina's rotation:
`FormCheck.facts`) and each finding, wrapped to the terminal with its continuation indented.

Before, the facts were only in `form check`'s JSON: a sonnet's finding said "the pattern asks
for a new rhyme" under a verdict that never named the pattern it had chosen, and a finding
longer than the terminal ran on at column 0, under the next finding's bracket.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from rich.console import Console

from poemetric.form.io_csv import finding_text

if TYPE_CHECKING:
    from poemetric.form.checker import FormCheck

#: `FormCheck.facts` keys in the order they are shown (others follow in the checker's order).
FACT_ORDER = (
    "scheme",
    "rhyme",
    "meter",
    "meter request",
    "radif",
    "closing",
    "rotation",
    "variant",
    "shape",
)


def verdict_lines(result: FormCheck) -> list[tuple[str, str]]:
    """(text, hanging indent) of each line after the summary: the facts, then the findings."""
    facts = result.facts or {}
    keys = [key for key in FACT_ORDER if key in facts]
    keys += [key for key in facts if key not in keys]
    shown = [(f"  {key}: {facts[key]}", "    ") for key in keys]
    for issue in result.explanation:
        shown.append((f"  {finding_text(issue.constraint, issue.lines, issue.detail)}", "      "))
    return shown


def print_verdict(console: Console, result: FormCheck) -> None:
    """The summary (green when it passed, red when not), the facts and the findings."""
    colour = "green" if result.passed else "red"
    console.print(result.summary, style=colour, markup=False)
    width = max(console.width, 40)
    for text, indent in verdict_lines(result):
        # `[rhyme]` is the constraint's name in brackets, not a style: no markup.
        wrapped = textwrap.fill(text, width=width, subsequent_indent=indent, break_on_hyphens=False)
        console.print(wrapped, markup=False, highlight=False, soft_wrap=True)
