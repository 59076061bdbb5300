"""Findings on a re-laid-out poem, renamed to the poem's own lines.

Two rules check a text laid out otherwise than the poem as given: a ballad printed in long
lines (fourteeners) is read split at the caesura, and a limerick in Lear's layout has its line 3
read as the two short lines it holds. Their scorers number the lines of that text; a user sees
the poem's lines, so every finding's `lines`, its text and the summary's lead are renamed here:
a line split in two becomes *the first half of line 3* / *the second half of line 3*, both
halves together *the two halves of line 3*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from poemetric.form.findings import Finding

#: "line N" and "lines N and M" in a finding's text, N and M counted in the re-laid-out text.
_LINE_REFERENCE = re.compile(r"\blines (\d+) and (\d+)\b|\bline (\d+)\b")
_PART_NAMES = ("first", "second")


@dataclass(frozen=True)
class LineOrigins:
    """`origins[k - 1]` is the poem's 1-based line that holds line k of the re-laid-out text."""

    origins: tuple[int, ...]

    def name(self, number: int) -> str:
        """Line `number` of the re-laid-out text as the poem's line, or the part of one."""
        if not 0 < number <= len(self.origins):
            return f"line {number}"  # not a line of the text: left as it was written
        origin = self.origins[number - 1]
        parts = [k for k, o in enumerate(self.origins, 1) if o == origin]
        if len(parts) == 1:
            return f"line {origin}"
        rank = parts.index(number)
        if len(parts) == len(_PART_NAMES):
            return f"the {_PART_NAMES[rank]} half of line {origin}"
        return f"part {rank + 1} of line {origin}"

    def _pair(self, first: int, second: int) -> str:
        one, other = self.name(first), self.name(second)
        if one.startswith("line ") and other.startswith("line "):
            return f"lines {one[5:]} and {other[5:]}"
        if self._halves_of_one_line(first, second):
            return f"the two halves of line {self.origins[first - 1]}"
        return f"{one} and {other}"

    def _halves_of_one_line(self, first: int, second: int) -> bool:
        n = len(self.origins)
        if first == second or not (0 < first <= n and 0 < second <= n):
            return False
        origin = self.origins[first - 1]
        return origin == self.origins[second - 1] and self.origins.count(origin) == 2

    def _reference(self, match: re.Match[str]) -> str:
        if match.group(3) is not None:
            return self.name(int(match.group(3)))
        return self._pair(int(match.group(1)), int(match.group(2)))

    def detail(self, text: str) -> str:
        """`text` with every "line N" / "lines N and M" naming the poem's lines."""
        return _LINE_REFERENCE.sub(self._reference, text)

    def finding(self, finding: Finding) -> Finding:
        """`finding` on the poem's lines, in `lines` and in its text alike."""
        n = len(self.origins)
        lines = tuple(sorted({self.origins[k - 1] for k in finding.lines if 0 < k <= n}))
        return Finding(finding.constraint, lines, self.detail(finding.detail))

    def renamed(
        self, findings: list[Finding], leads: dict[str, Finding]
    ) -> tuple[list[Finding], dict[str, Finding]]:
        """A rule's findings and its summary's leads (by kind) on the poem's lines."""
        return [self.finding(f) for f in findings], {k: self.finding(f) for k, f in leads.items()}
