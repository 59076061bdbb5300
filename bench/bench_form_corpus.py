"""Form checker on a public-domain evaluation corpus (bench/data/form_eval), per category.

Sonnets are checked by form alone (no pattern), ballads as "ballad" with no pattern, limericks
as "limerick"; free verse, blank verse and prose are checked as sonnet, ballad and limerick, and
rhymed couplets as sonnet: those must fail. Prints pass rates per category, every unexpected
verdict with its summary, the schemes chosen for passing sonnets, the overlap with the POEMetric
release (must be empty; needs ../shared/data), and whole-process speed of `poemetric form check`
on all cases (wall and CPU time, best of --runs).

    .venv/bin/python bench/bench_form_corpus.py [--quiet] [--runs 3] [--corpus DIR]

`--corpus bench/data/form_holdout` runs the same on the corpus typed after the checker was built
(see its README.md for its first, unseen result).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_form_speed import PIN
from form_corpus import CORPUS_DIR, Case, gold_overlap, load_corpus
from mutations import GOLD_CSV

from poemetric.form.checker import check_poem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quiet", action="store_true", help="do not list unexpected verdicts")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--corpus", type=Path, default=CORPUS_DIR, help="corpus directory (default: %(default)s)"
    )
    args = parser.parse_args()
    cases = load_corpus(args.corpus)
    print(f"corpus: {args.corpus} ({len(cases)} cases)")
    if GOLD_CSV.is_file():
        overlap = gold_overlap(GOLD_CSV, args.corpus)
        print(f"poems also in the POEMetric release: {len(overlap)} {overlap or ''}")
    else:
        print("POEMetric release not found: overlap not checked")
    ok: Counter[str] = Counter()
    total: Counter[str] = Counter()
    schemes: Counter[str] = Counter()
    for case in cases:
        result = check_poem(case.text, case.form)
        expected = result.passed == case.should_pass or (
            not case.should_pass and result.error is not None
        )
        total[case.category] += 1
        ok[case.category] += expected
        if case.category == "sonnet" and result.passed:
            schemes[result.facts.get("scheme", "?").split(" ")[0]] += 1
        if not expected and not args.quiet:
            print(f"--- {case.category}: {case.id} ({case.note or 'no note'})")
            print(f"    {result.summary}")
            for issue in result.explanation[:4]:
                print(f"      [{issue.constraint}] {issue.lines} {issue.detail}")
    print("\nExpected verdicts per category (positives: passed; negatives: failed):")
    for category in sorted(total):
        share = ok[category] / total[category]
        print(f"  {category:<28} {ok[category]:>3}/{total[category]:<3} {share:.3f}")
    print(f"  passing sonnets by scheme family: {dict(schemes.most_common())}")
    _whole_process(cases, args.runs)


def _whole_process(cases: list[Case], runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "cases.jsonl"
        with source.open("w", encoding="utf-8") as handle:
            for case in cases:
                handle.write(
                    json.dumps({"id": case.id, "text": case.text, "form": case.form}) + "\n"
                )
        command = [
            str(Path(sys.executable).with_name("poemetric")),
            "form",
            "check",
            str(source),
            "-o",
            str(Path(tmp) / "out.jsonl"),
        ]
        walls, cpus = [], []
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([*PIN, *command], capture_output=True, check=False)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    n = len(cases)
    print(
        f"\n`poemetric form check` whole process on {n} cases: best {n / min(walls):,.0f} cases/s "
        f"wall ({min(walls):.2f} s), {n / min(cpus):,.0f} cases/s CPU ({min(cpus):.2f} s); "
        f"best of {runs}, precomputed tables already in the user cache"
        + ("" if PIN else " (not pinned: no taskset)")
    )
    rate = n / min(cpus)
    print(
        f"target: whole-process `form check` {rate:,.0f} cases/s CPU vs >= 500: "
        + ("met" if rate >= 500 else "NOT MET")
    )


if __name__ == "__main__":
    main()
