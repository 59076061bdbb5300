"""Findings and scored results shared by every scorer of the form checker."""

from __future__ import annotations

from dataclasses import dataclass

from poemetric.text.plural import counted

#: A line whose rhyme credit or metre fit is below this is reported as a failure.
REPORT_BELOW = 0.5
#: Findings of one kind listed individually before they are summarised.
MAX_FINDINGS_PER_KIND = 8


@dataclass(frozen=True)
class Finding:
    """One failed (or weak) constraint: what, on which 1-based lines, and why."""

    constraint: str
    lines: tuple[int, ...]
    detail: str


@dataclass(frozen=True)
class Scored:
    score: float | None
    findings: tuple[Finding, ...] = ()
    note: str = ""
    #: The finding a failing score's summary names, where not its first (a beat metre's
    #: worst-fitting line; the findings stay in line order).
    lead: Finding | None = None


def cap_findings(findings: list[Finding], constraint: str) -> list[Finding]:
    """At most MAX_FINDINGS_PER_KIND findings, the rest summarised in one."""
    if len(findings) <= MAX_FINDINGS_PER_KIND:
        return findings
    extra = findings[MAX_FINDINGS_PER_KIND:]
    lines = tuple(sorted({n for f in extra for n in f.lines}))
    return [
        *findings[:MAX_FINDINGS_PER_KIND],
        Finding(constraint, lines, f"{counted(len(extra), 'more failure')} of this kind"),
    ]
