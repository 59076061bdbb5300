"""The metre scanner against real LLM lines counted by hand (bench/data/llm_meter_lines.tsv).

Usage: .venv/bin/python bench/bench_meter_llm.py [--data PATH] [--errors]

The lines were written by SmolLM2-135M-Instruct for the project's generation prompts and
scanned by hand (see bench/data/llm_meter_lines.md for the conventions). Prints, for isolated
lines (``scan_line``) and for each poem's sampled lines scanned together (``scan_poem``):
- syllable-count accuracy: share of lines whose scanned syllable count equals the hand count,
  and the mean absolute difference;
- line agreement: share of lines whose whole w/s string equals the hand scansion;
- syllable agreement under bench_meter's rules (strict, positional, aligned).
With --errors, lists every line where the count or the w/s string differs.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_meter import SYLLABLE_RULES, syllable_rates

from poemetric.form.meter import scan_line, scan_poem

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "llm_meter_lines.tsv"
COLUMNS = ("id", "poem", "form", "line", "syllables", "stresses", "note")


@dataclass(frozen=True)
class HandLine:
    id: str
    poem: str
    form: str
    line: str
    syllables: int
    stresses: str
    note: str


def load(path: Path) -> list[HandLine]:
    """The hand-counted lines; a malformed row stops with its file and line number."""
    rows: list[HandLine] = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise SystemExit(f"{path}:1: expected the columns {', '.join(COLUMNS)}")
        for number, rec in enumerate(reader, start=2):
            stresses = rec["stresses"].strip()
            if set(stresses) - {"w", "s"} or len(stresses) != int(rec["syllables"]):
                raise SystemExit(
                    f"{path}:{number}: stresses {stresses!r} must be w/s, one per syllable "
                    f"({rec['syllables']})"
                )
            rows.append(
                HandLine(
                    rec["id"], rec["poem"], rec["form"], rec["line"], int(rec["syllables"]),
                    stresses, rec["note"] or "",
                )
            )  # fmt: skip
    return rows


def report(rows: list[HandLine], patterns: dict[str, str], label: str) -> None:
    n = len(rows)
    same_count = sum(len(patterns[r.id]) == r.syllables for r in rows)
    off = sum(abs(len(patterns[r.id]) - r.syllables) for r in rows) / n
    same_line = sum(patterns[r.id] == r.stresses for r in rows)
    rates = syllable_rates([(patterns[r.id], r.stresses) for r in rows])
    cells = "  ".join(f"{rule} {rates[rule]:.1%}" for rule in SYLLABLE_RULES)
    print(
        f"{label:<14} syllable count {same_count}/{n} = {same_count / n:.1%} "
        f"(mean |diff| {off:.2f})  w/s lines {same_line}/{n} = {same_line / n:.1%}  "
        f"syllables: {cells}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--errors", action="store_true", help="list every disagreement")
    args = parser.parse_args()
    rows = load(args.data)
    poems: dict[str, list[HandLine]] = defaultdict(list)
    for row in rows:
        poems[row.poem].append(row)
    print(f"{len(rows)} hand-counted lines from {len(poems)} poems ({args.data.name})")
    isolated = {r.id: scan_line(r.line).pattern for r in rows}
    context: dict[str, str] = {}
    for lines in poems.values():
        result = scan_poem([r.line for r in lines])
        context |= {r.id: scan.pattern for r, scan in zip(lines, result.line_scans, strict=True)}
    report(rows, isolated, "isolated line")
    report(rows, context, "poem context")
    by_form: dict[str, list[HandLine]] = defaultdict(list)
    for row in rows:
        by_form[row.form].append(row)
    for form, members in sorted(by_form.items()):
        report(members, context, f"  {form}")
    if args.errors:
        print("\nDisagreements (poem context): id, hand, scanner, line")
        for row in rows:
            got = context[row.id]
            if got != row.stresses:
                mark = "COUNT" if len(got) != row.syllables else "     "
                print(f"{mark} {row.id:<6} {row.stresses:<16} {got:<16} {row.line}")


if __name__ == "__main__":
    main()
