"""Benchmark the meter scanner on the Stanford Literary Lab 2016 tagged sample.

Usage: .venv/bin/python bench/bench_meter.py [--data PATH] [--speed] [--errors N]

Prints, for isolated-line scansion (``scan_line``) and poem-context scansion (``scan_poem``):
- line accuracy: share of lines whose whole w/s string equals the human ``parse``;
- syllable accuracy under three rules, all over the gold syllables: *strict* (a line whose
  syllable count differs from the gold counts all its gold syllables as wrong), *positional*
  (positions compared from the start of the line as far as both readings go) and *aligned*
  (syllables in the longest matching blocks of the two strings, difflib); the second human
  annotator (``parse_human2``) is scored against ``parse`` under the same rules as a yardstick;
- the same on the two halves split by PoemID parity (hash of the id), as a held-out check;
- poem-level meter family accuracy and line-length (feet) accuracy.
With --speed, also times line_fit, meter_score and scan_poem: cold (each run in a fresh
process, so pronunciations, template tables and line analyses are all computed), on new lines
whose words were seen, and on repeated lines (cached); best and worst of 3 runs.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import subprocess
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shared_data import SHARED_DATA, require

from poemetric.form import meter, meter_words
from poemetric.form.meter import FEET_BY_NAME, scan_line, scan_poem

DEFAULT_DATA = SHARED_DATA / "litlab2016_meter_sample.tsv"


@dataclass(frozen=True)
class Row:
    index: int
    poem: str
    family: str  # Meter Scheme
    length: str  # Line Scheme
    line: str
    parse: str
    parse_human2: str = ""

    @property
    def half(self) -> int:
        return zlib.crc32(self.poem.encode()) % 2


def load(path: Path) -> list[Row]:
    """Rows with a line and a gold parse; a row missing either is reported, not dropped silently."""
    rows: list[Row] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for number, rec in enumerate(csv.DictReader(handle, delimiter="\t"), start=2):
            if not rec.get("line") or not rec.get("parse"):
                print(f"{path}:{number}: skipped (no line or no parse)", file=sys.stderr)
                continue
            rows.append(
                Row(
                    len(rows),
                    rec["PoemID"],
                    rec["Meter Scheme"],
                    rec["Line Scheme"],
                    rec["line"],
                    rec["parse"],
                    (rec.get("parse_human2") or "").replace("|", "").strip(),
                )
            )
    return rows


def score(pairs: list[tuple[str, str]]) -> tuple[float, float]:
    """(line accuracy, syllable accuracy); a length mismatch makes all its gold syllables wrong."""
    if not pairs:
        return 0.0, 0.0
    lines_ok = sum(pred == gold for pred, gold in pairs)
    syl_total = sum(len(gold) for _, gold in pairs)
    syl_ok = sum(
        sum(a == b for a, b in zip(pred, gold, strict=True))
        for pred, gold in pairs
        if len(pred) == len(gold)
    )
    return lines_ok / len(pairs), syl_ok / syl_total


SYLLABLE_RULES = ("strict", "positional", "aligned")


def syllable_rates(pairs: list[tuple[str, str]]) -> dict[str, float]:
    """Share of gold syllables matched under each rule of SYLLABLE_RULES (see module doc)."""
    total = sum(len(gold) for _, gold in pairs) or 1
    positional = sum(sum(a == b for a, b in zip(pred, gold)) for pred, gold in pairs)  # noqa: B905
    aligned = sum(
        sum(
            m.size
            for m in difflib.SequenceMatcher(None, pred, gold, autojunk=False).get_matching_blocks()
        )
        for pred, gold in pairs
    )
    return {
        "strict": score(pairs)[1],
        "positional": positional / total,
        "aligned": aligned / total,
    }


def report_rules(rows: list[Row], predictions: dict[int, str], label: str) -> None:
    """Syllable accuracy under each rule, beside the second annotator under the same rule."""
    ours = syllable_rates([(predictions[r.index], r.parse) for r in rows])
    annotated = [r for r in rows if r.parse_human2]
    human = syllable_rates([(r.parse_human2, r.parse) for r in annotated])
    human_lines = sum(r.parse_human2 == r.parse for r in annotated) / max(1, len(annotated))
    cells = "  ".join(
        f"{rule} {ours[rule]:.1%} (human2 {human[rule]:.1%})" for rule in SYLLABLE_RULES
    )
    print(f"{label:<14} syllables by rule: {cells}; human2 lines {human_lines:.1%}")


def report(rows: list[Row], predictions: dict[int, str], label: str) -> None:
    line_acc, syl_acc = score([(predictions[r.index], r.parse) for r in rows])
    halves = []
    for half in (0, 1):
        sub = [(predictions[r.index], r.parse) for r in rows if r.half == half]
        h_line, h_syl = score(sub)
        halves.append(f"half{half} {h_line:.1%}/{h_syl:.1%} (n={len(sub)})")
    same_length = sum(len(predictions[r.index]) == len(r.parse) for r in rows) / len(rows)
    print(
        f"{label:<14} lines {line_acc:.1%}  syllables {syl_acc:.1%}  "
        f"same syllable count {same_length:.1%}  | " + "  ".join(halves)
    )


def group_poems(rows: list[Row]) -> dict[str, list[Row]]:
    poems: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        poems[row.poem].append(row)
    return poems


def run_accuracy(rows: list[Row], show_errors: int) -> None:
    isolated = {r.index: scan_line(r.line).pattern for r in rows}
    report(rows, isolated, "isolated line")
    context: dict[int, str] = {}
    family_ok = feet_ok_poems = feet_ok_lines = 0
    by_meter: dict[str, list[tuple[str, str]]] = defaultdict(list)
    poems = group_poems(rows)
    for poem in poems.values():
        result = scan_poem([r.line for r in poem])
        family = Counter(r.family for r in poem).most_common(1)[0][0]
        length = Counter(FEET_BY_NAME[r.length] for r in poem).most_common(1)[0][0]
        family_ok += result.foot == family
        feet_ok_poems += result.feet == length
        for row, scan in zip(poem, result.line_scans, strict=True):
            context[row.index] = scan.pattern
            feet_ok_lines += (
                scan.template is not None and scan.template.feet == FEET_BY_NAME[row.length]
            )
            by_meter[f"{row.family} {row.length}"].append((scan.pattern, row.parse))
    report(rows, context, "poem context")
    report_rules(rows, context, "poem context")
    n = len(poems)
    print(f"poem meter family accuracy {family_ok}/{n} = {family_ok / n:.1%}")
    print(f"poem typical feet accuracy {feet_ok_poems}/{n} = {feet_ok_poems / n:.1%}")
    print(f"line feet accuracy (poem context) {feet_ok_lines / len(rows):.1%}")
    print("per meter (poem context): lines / syllables")
    for name, pairs in sorted(by_meter.items()):
        line_acc, syl_acc = score(pairs)
        print(f"  {name:<22} n={len(pairs):<4} {line_acc:.1%} / {syl_acc:.1%}")
    wrong = [r for r in rows if context[r.index] != r.parse][:show_errors]
    for row in wrong:
        scan = scan_line(row.line, row.family)
        print(
            f"{row.family[:5]} gold {row.parse:<18} got {context[row.index]:<18} "
            f"{scan.stresses:<18} {row.line}"
        )


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _workloads(rows: list[Row]) -> dict[str, tuple[int, Callable[[], object]]]:
    """Named workloads: (lines processed, function)."""
    lines = [r.line for r in rows]
    poems = [[r.line for r in poem] for poem in group_poems(rows).values()]
    # form-check sized chunks (~20 lines, the average generated poem) for meter_score
    chunks = [lines[i : i + 20] for i in range(0, len(lines), 20)]
    return {
        "line_fit one line at a time": (
            len(lines),
            lambda: [meter.line_fit(line, "iambic", 5) for line in lines],
        ),
        "meter_score per 20-line poem": (
            len(lines),
            lambda: [meter.meter_score(chunk, "Iambic pentameter") for chunk in chunks],
        ),
        "scan_poem per poem": (len(lines), lambda: [scan_poem(p) for p in poems]),
    }


def run_cold_once(rows: list[Row], name: str) -> None:
    """One cold measurement in this (fresh) process: prints seconds and lines."""
    count, work = _workloads(rows)[name]
    print(f"{_timed(work):.6f} {count}")


def run_speed(rows: list[Row], data: Path) -> None:
    workloads = _workloads(rows)
    for name in workloads:
        rates = []
        for _ in range(3):
            out = subprocess.run(
                [sys.executable, __file__, "--data", str(data), "--cold-once", name],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            rates.append(int(out[1]) / float(out[0]))
        print(
            f"{name}, cold (fresh process: dictionary, templates, words, lines all new): "
            f"best {max(rates):,.0f} lines/s (worst {min(rates):,.0f})"
        )
    for name, (count, work) in workloads.items():
        work()  # word pronunciations and template tables now cached
        rates = []
        for _ in range(3):
            meter.clear_caches()
            meter_words.line_options.cache_clear()
            rates.append(count / _timed(work))
        print(
            f"{name}, new lines (words seen before): best {max(rates):,.0f} lines/s "
            f"(worst {min(rates):,.0f})"
        )
        rates = [count / _timed(work) for _ in range(3)]
        print(f"{name}, repeated lines (cached): best {max(rates):,.0f} lines/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--errors", type=int, default=0)
    parser.add_argument("--cold-once", help=argparse.SUPPRESS)
    args = parser.parse_args()
    rows = load(require(args.data))
    if args.cold_once:
        run_cold_once(rows, args.cold_once)
        return
    halves = Counter(r.half for r in rows)
    print(
        f"{len(rows)} lines, {len(group_poems(rows))} poems, half0/half1 lines {halves[0]}/{halves[1]}"
    )
    run_accuracy(rows, args.errors)
    if args.speed:
        run_speed(rows, args.data)


if __name__ == "__main__":
    main()
