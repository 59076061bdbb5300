"""Form checker on the POEMetric gold poems, each against its own annotation.

Prints the pass rate (overall and per form), the failures with their explanations, and the pass
rate of seeded corruptions per type (see bench/mutations.py) for several seeds, with the worst
seed, so the margin to the 3% target on an unseen corruption set is visible. Needs ../shared/data.

    .venv/bin/python bench/bench_form_gold.py [--csv PATH] [--seeds 0 1 2 3 4] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutations import GOLD_CSV, GoldPoem, load_gold, mutation_pass_rates

from poemetric.data.errata import corrected_annotation, load_errata
from poemetric.form.checker import check_poem

DEFAULT_CSV = GOLD_CSV


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


def errata_rates(poems: list[GoldPoem]) -> None:
    """Gold pass rate as released, without the errata rows, and with the errata applied."""
    errata = load_errata("poemetric")
    if errata is None:
        return
    released = excluded = corrected = 0
    kept = fixed = 0
    for poem in poems:
        ok = check_poem(poem.text, poem.form, poem.meter, poem.rhyme).passed
        released += ok
        annotation = corrected_annotation(
            errata, poem.row, poem.text, poem.form, poem.meter, poem.rhyme
        )
        if annotation is None:
            kept += 1
            excluded += ok
            fixed += 1
            corrected += ok
            continue
        status = annotation.correction.status
        if status == "mismatch":
            print(f"  erratum for row {poem.row} does not match the file: not applied")
            fixed += 1
            corrected += ok
        elif status == "corrected":
            fixed += 1
            corrected += check_poem(
                poem.text, annotation.form, annotation.meter, annotation.rhyme
            ).passed
    n = len(poems)
    print(f"\nGold with the {len(errata.errata)} errata of datasets/poemetric/errata.yaml:")
    print(f"  as released (default)          {released:>3}/{n:<3} {released / n:.3f}")
    print(f"  errata rows left out           {excluded:>3}/{kept:<3} {excluded / max(1, kept):.3f}")
    print(
        f"  errata applied (null = out)    {corrected:>3}/{fixed:<3} {corrected / max(1, fixed):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--quiet", action="store_true", help="do not print each failure")
    args = parser.parse_args()
    poems = load_gold(args.csv)
    gold_pass_rate(poems, verbose=not args.quiet)
    errata_rates(poems)
    print("\nCorruptions that still pass (lower is better), per seed:")
    per_seed: list[dict[str, tuple[int, int]]] = []
    for seed in args.seeds:
        rates = mutation_pass_rates(
            poems, seed=seed, verbose=not args.quiet and seed == args.seeds[0]
        )
        per_seed.append(rates)
    kinds = sorted({k for rates in per_seed for k in rates})
    print(f"  {'kind':<22} " + " ".join(f"seed {s:<5}" for s in args.seeds) + "  pooled")
    for kind in [*kinds, "all"]:
        cells = []
        pooled_p = pooled_t = 0
        for rates in per_seed:
            if kind == "all":
                passed, total = sum(p for p, _ in rates.values()), sum(t for _, t in rates.values())
            else:
                passed, total = rates.get(kind, (0, 0))
            pooled_p, pooled_t = pooled_p + passed, pooled_t + total
            cells.append(f"{passed / max(1, total):.3f}    ")
        print(
            f"  {kind:<22} "
            + " ".join(cells)
            + f"  {pooled_p}/{pooled_t} = {pooled_p / max(1, pooled_t):.4f}"
        )
    overall = [
        sum(p for p, _ in r.values()) / max(1, sum(t for _, t in r.values())) for r in per_seed
    ]
    print(
        f"\n  all corruptions: worst seed {max(overall):.4f}, best {min(overall):.4f} (target <= 0.03)"
    )


if __name__ == "__main__":
    main()
