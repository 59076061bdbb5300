"""Form checker on the POEMetric gold poems, each against its own annotation.

Prints the pass rate (overall and per form), the failures with their explanations, and the pass
rate of seeded corruptions per type (see bench/mutations.py). Needs ../shared/data.

    .venv/bin/python bench/bench_form_gold.py [--csv PATH] [--seed 0] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutations import GoldPoem, load_gold, mutation_pass_rates

from poemetric.form.checker import check_poem

DEFAULT_CSV = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "data"
    / "poemetric_human_poems_annotated.csv"
)


def gold_pass_rate(poems: list[GoldPoem], *, verbose: bool) -> float:
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for poem in poems:
        result = check_poem(poem.text, poem.form, poem.meter, poem.rhyme)
        total[poem.form] += 1
        if result.passed:
            passed[poem.form] += 1
        elif verbose:
            print(f"--- row {poem.row} {poem.form} meter={poem.meter!r} rhyme={poem.rhyme!r}")
            print("   ", result.summary)
            for issue in result.explanation[:6]:
                print(f"     [{issue.constraint}] {issue.lines} {issue.detail}")
    print("\nGold pass rate per form:")
    for form in sorted(total):
        print(f"  {form:<11} {passed[form]:>3}/{total[form]:<3} {passed[form] / total[form]:.3f}")
    rate = sum(passed.values()) / max(1, sum(total.values()))
    print(f"  {'all':<11} {sum(passed.values()):>3}/{sum(total.values()):<3} {rate:.3f}")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="do not print each failure")
    args = parser.parse_args()
    poems = load_gold(args.csv)
    gold_pass_rate(poems, verbose=not args.quiet)
    print("\nCorruptions that still pass (lower is better):")
    rates = mutation_pass_rates(poems, seed=args.seed, verbose=not args.quiet)
    for kind, (passed, total) in sorted(rates.items()):
        print(f"  {kind:<22} {passed:>4}/{total:<4} {passed / max(1, total):.3f}")
    all_passed = sum(p for p, _ in rates.values())
    all_total = sum(t for _, t in rates.values())
    print(f"  {'all':<22} {all_passed:>4}/{all_total:<4} {all_passed / max(1, all_total):.3f}")


if __name__ == "__main__":
    main()
