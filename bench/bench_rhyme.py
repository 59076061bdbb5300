"""Rhyme detection accuracy on the Chicago Rhyming Poetry Corpus gold file, and speed.

Usage: .venv/bin/python bench/bench_rhyme.py [--gold PATH] [--errors N] [--categories]
                                            [--speed-repeats N]

Prints, for even-indexed stanzas (calibration), odd-indexed stanzas (held out) and all:
precision / recall / F1 of "these two lines rhyme" over line pairs at most 4 lines apart in a
stanza, both for the pairwise classifier (``rhymes``) and for the inferred scheme (same letter),
the exact stanza-scheme match rate (letter-naming invariant), the same F1 restricted to pairs
with a word missing from CMUdict, and classify_rhyme throughput (cold and cached).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from shared_data import SHARED_DATA, require  # noqa: E402

from poemetric.form import phonetics, rhyme, rhyme_sounds  # noqa: E402

DEFAULT_GOLD = SHARED_DATA / "chicago_rhyme_gold_english.pgold"
MAX_DISTANCE = 4


@dataclass(frozen=True)
class Stanza:
    poem: str
    words: tuple[str, ...]
    scheme: tuple[int, ...]


def read_gold(path: Path, skipped: list[str] | None = None) -> list[Stanza]:
    """Parse the .pgold records (3 lines + blank).

    A record whose label count differs from its word count (the public file has about a hundred)
    is appended to `skipped` as ``path:line: reason``; without `skipped` it raises ValueError.
    """
    stanzas: list[Stanza] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        header = lines[index].split()
        try:
            scheme = tuple(int(value) for value in lines[index + 1].split())
        except (IndexError, ValueError) as error:
            raise ValueError(f"{path}:{index + 2}: expected integer rhyme scheme") from error
        if len(scheme) != len(header) - 1:
            problem = f"{path}:{index + 1}: {len(header) - 1} words but {len(scheme)} labels"
            if skipped is None:
                raise ValueError(problem)
            skipped.append(problem)
            index += 3
            continue
        stanzas.append(Stanza(header[0], tuple(header[1:]), scheme))
        index += 3
    return stanzas


def stanza_pairs(stanza: Stanza) -> Iterator[tuple[int, int]]:
    for second in range(len(stanza.words)):
        for first in range(max(0, second - MAX_DISTANCE), second):
            yield first, second


def canonical(labels: Sequence[object]) -> tuple[int, ...]:
    seen: dict[object, int] = {}
    return tuple(seen.setdefault(label, len(seen)) for label in labels)


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, gold: bool, predicted: bool, note: Callable[[], str]) -> None:
        if gold and predicted:
            self.tp += 1
        elif predicted:
            self.fp += 1
            self.errors.append("FP " + note())
        elif gold:
            self.fn += 1
            self.errors.append("FN " + note())
        else:
            self.tn += 1

    def prf(self) -> tuple[float, float, float]:
        precision = self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0
        recall = self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return precision, recall, f1

    def line(self, label: str) -> str:
        p, r, f = self.prf()
        n = self.tp + self.fp + self.fn + self.tn
        return f"{label:<34} P={p:.3f} R={r:.3f} F1={f:.3f}  (pairs={n}, gold+={self.tp + self.fn})"


def evaluate(stanzas: Sequence[Stanza]) -> dict[str, object]:
    pairwise, by_scheme, oov = Counts(), Counts(), Counts()
    exact = 0
    for stanza in stanzas:
        found = rhyme.infer_scheme(stanza.words, window=MAX_DISTANCE)
        exact += canonical(found) == canonical(stanza.scheme)
        for first, second in stanza_pairs(stanza):
            a, b = stanza.words[first], stanza.words[second]
            gold = stanza.scheme[first] == stanza.scheme[second]

            def note(a: str = a, b: str = b) -> str:
                return f"{a}/{b}: {rhyme.rhyme_match(a, b).describe(a, b)}"

            predicted = rhyme.rhymes(a, b)
            pairwise.add(gold, predicted, note)
            by_scheme.add(gold, found[first] == found[second], note)
            if not (phonetics.in_dictionary(a) and phonetics.in_dictionary(b)):
                oov.add(gold, predicted, note)
    return {"pairwise": pairwise, "scheme": by_scheme, "oov": oov, "exact": exact}


def report(label: str, stanzas: Sequence[Stanza]) -> dict[str, object]:
    result = evaluate(stanzas)
    pairwise, by_scheme, oov = result["pairwise"], result["scheme"], result["oov"]
    assert isinstance(pairwise, Counts) and isinstance(by_scheme, Counts)
    assert isinstance(oov, Counts) and isinstance(result["exact"], int)
    print(f"== {label}: {len(stanzas)} stanzas")
    print(pairwise.line("pairs <=4 apart, rhymes()"))
    print(by_scheme.line("pairs <=4 apart, infer_scheme()"))
    print(oov.line("  of which OOV pairs, rhymes()"))
    print(f"{'stanza scheme exact match':<34} {result['exact'] / max(1, len(stanzas)):.3f}")
    return result


def best_category(a: str, b: str) -> str:
    """Strongest resemblance category of two words, whether or not it counts as a rhyme."""
    key_a, key_b = phonetics.normalize_word(a), phonetics.normalize_word(b)
    if key_a == key_b:
        return "identical"
    order = list(rhyme_sounds.CATEGORY_RELATION)
    found = [
        (category, phones_a, phones_b)
        for phones_a, phones_b in itertools.product(
            phonetics.pronunciations(key_a), phonetics.pronunciations(key_b)
        )
        if (category := rhyme_sounds.rime_category(phones_a, phones_b))
    ]
    if not found:
        return "eye" if rhyme.classify_rhyme(a, b) == rhyme.RhymeKind.EYE else "none"
    category, phones_a, phones_b = min(found, key=lambda item: order.index(item[0]))
    if category in {"near_vowel", "far_vowel_same_coda", "r_coloured_vowel", "far_vowel_before_r"}:
        vowels = sorted(
            phonetics.rhyming_part(p).split()[0].rstrip("012") for p in (phones_a, phones_b)
        )
        category += ":" + "-".join(vowels)
    return category


def category_report(stanzas: Sequence[Stanza]) -> None:
    """Precision of each resemblance category (what the calibration thresholds rest on)."""
    counts: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for stanza in stanzas:
        for first, second in stanza_pairs(stanza):
            category = best_category(stanza.words[first], stanza.words[second])
            counts[category][stanza.scheme[first] == stanza.scheme[second]] += 1
    print("== resemblance categories on this split (gold rhymes / not / precision)")
    for category, (negative, positive) in sorted(counts.items(), key=lambda kv: -sum(kv[1])):
        print(f"{category:<36} {positive:7d} {negative:7d} {positive / (positive + negative):.3f}")


def speed(stanzas: Sequence[Stanza], repeats: int) -> None:
    pairs = [
        (stanza.words[a], stanza.words[b]) for stanza in stanzas for a, b in stanza_pairs(stanza)
    ]
    rhyme.clear_caches()
    start = time.perf_counter()
    for a, b in pairs:
        rhyme.classify_rhyme(a, b)
    cold = len(pairs) / (time.perf_counter() - start)
    warm_rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for a, b in pairs:
            rhyme.classify_rhyme(a, b)
        warm_rates.append(len(pairs) / (time.perf_counter() - start))
    scheme_rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for stanza in stanzas:
            rhyme.infer_scheme(stanza.words, window=MAX_DISTANCE)
            rhyme.check_rhyme_pattern(stanza.words, "ABAB", stanza_local=True)
        scheme_rates.append(len(stanzas) / (time.perf_counter() - start))
    print(f"classify_rhyme cold (empty caches, CMUdict loaded): {cold:,.0f} pairs/s")
    print(
        f"infer_scheme + check_rhyme_pattern per stanza (cached): best {max(scheme_rates):,.0f}"
        f" stanzas/s, worst {min(scheme_rates):,.0f} stanzas/s"
    )
    print(
        f"classify_rhyme cached: best {max(warm_rates):,.0f} pairs/s, "
        f"worst {min(warm_rates):,.0f} pairs/s over {repeats} runs of {len(pairs):,} pairs"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=DEFAULT_GOLD)
    parser.add_argument("--errors", type=int, default=0, help="print N errors (calibration split)")
    parser.add_argument("--speed-repeats", type=int, default=3)
    parser.add_argument(
        "--categories", action="store_true", help="precision per category (calibration split)"
    )
    args = parser.parse_args()
    skipped: list[str] = []
    stanzas = read_gold(require(args.gold), skipped)
    print(f"{len(stanzas)} stanzas read; {len(skipped)} malformed records skipped", end="")
    print(f" (first: {skipped[0]})" if skipped else "")
    phonetics.pronunciations("warm")  # load CMUdict outside the timings
    calibration = report("calibration (even-indexed stanzas)", stanzas[0::2])
    report("held out (odd-indexed stanzas)", stanzas[1::2])
    report("all stanzas", stanzas)
    if args.errors:
        errors = calibration["pairwise"]
        assert isinstance(errors, Counts)
        for line in errors.errors[: args.errors]:
            print(line)
    if args.categories:
        category_report(stanzas[0::2])
    speed(stanzas, args.speed_repeats)


if __name__ == "__main__":
    main()
