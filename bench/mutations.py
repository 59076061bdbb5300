"""Corruption generators: broken versions of real poems that a form checker must reject.

Shared by the gold benchmark (bench/bench_form_gold.py) and the tests. Every generator is a pure
function of (poem, random generator) and returns a `Corruption` (text and request to check) or
None when it does not apply to that poem (e.g. refrains for a ballad).
"""

from __future__ import annotations

import csv
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from shared_data import SHARED_DATA, require

from poemetric.form.adapters import Rhyme, rhyme_kind
from poemetric.form.checker import check_poem
from poemetric.form.parsing import end_word, parse_poem, parse_rhyme_pattern

FORMS = ("ballad", "ghazal", "limerick", "pantoum", "sestina", "sonnet", "villanelle")
#: The POEMetric release, read from ../shared/data beside the checkout (never committed).
GOLD_CSV = SHARED_DATA / "poemetric_human_poems_annotated.csv"

#: Plain words used as non-rhyming replacements for end words.
FILLER_WORDS = [
    "table",
    "window",
    "river",
    "garden",
    "basket",
    "pencil",
    "mountain",
    "morning",
    "candle",
    "ladder",
    "orange",
    "silver",
    "market",
    "kitchen",
    "paper",
    "shoulder",
    "pocket",
    "blanket",
    "hammer",
    "engine",
    "carpet",
    "lemon",
    "forest",
    "wagon",
    "button",
    "letter",
    "harbor",
    "doctor",
    "bottle",
    "cabin",
    "village",
    "ribbon",
    "blossom",
    "thunder",
    "meadow",
    "kettle",
    "lantern",
    "saddle",
    "tunnel",
    "velvet",
]


@dataclass(frozen=True)
class GoldPoem:
    row: int
    form: str
    text: str
    meter: str | None
    rhyme: str | None


@dataclass(frozen=True)
class Corruption:
    kind: str
    text: str
    form: str
    meter: str | None
    rhyme: str | None


def load_gold(path: Path) -> list[GoldPoem]:
    """POEMetric annotated CSV (UTF-8 with BOM) -> poems with their own annotation."""
    poems = []
    with require(path).open(encoding="utf-8-sig", newline="") as handle:
        for row_number, row in enumerate(csv.DictReader(handle), start=1):
            poems.append(
                GoldPoem(
                    row=row_number,
                    form=row["form"].strip().lower(),
                    text=row["content"],
                    meter=(row.get("meter_pattern") or "").strip() or None,
                    rhyme=(row.get("rhyme_pattern") or "").strip() or None,
                )
            )
    return poems


def _lines(text: str) -> list[str]:
    return [line for line in text.replace("\r\n", "\n").split("\n")]


def _join(lines: list[str]) -> str:
    return "\n".join(lines)


def _verse_positions(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip()]


def broken_rhymes(poem: GoldPoem, rng: random.Random) -> Corruption:
    """Replace the end word of half of the lines by a word that does not rhyme with it."""
    lines = _lines(poem.text)
    positions = _verse_positions(lines)
    chosen = rng.sample(positions, k=max(1, len(positions) // 2))
    for index in chosen:
        word = end_word(lines[index])
        options = [w for w in FILLER_WORDS if rhyme_kind(w, word) is Rhyme.NONE]
        replacement = rng.choice(options or FILLER_WORDS)
        lines[index] = _replace_last_word(lines[index], replacement)
    return Corruption("broken_rhymes", _join(lines), poem.form, poem.meter, poem.rhyme)


def _replace_last_word(line: str, word: str) -> str:
    matches = list(re.finditer(r"[A-Za-z’']+", line))
    if not matches:
        return f"{line} {word}"
    last = matches[-1]
    return line[: last.start()] + word + line[last.end() :]


def shuffled_lines(poem: GoldPoem, rng: random.Random) -> Corruption:
    """Shuffle the verse lines, keeping the blank-line layout."""
    lines = _lines(poem.text)
    positions = _verse_positions(lines)
    texts = [lines[i] for i in positions]
    for _ in range(5):
        rng.shuffle(texts)
        if [lines[i] for i in positions] != texts:
            break
    for index, text in zip(positions, texts, strict=True):
        lines[index] = text
    return Corruption("shuffled_lines", _join(lines), poem.form, poem.meter, poem.rhyme)


def prose_relineated(poem: GoldPoem, rng: random.Random) -> Corruption:
    """Join all words and break them again at random line lengths (3-14 words)."""
    words = poem.text.split()
    lines: list[str] = []
    while words:
        size = rng.randint(3, 14)
        lines.append(" ".join(words[:size]))
        words = words[size:]
    return Corruption("prose_relineated", _join(lines), poem.form, poem.meter, poem.rhyme)


def other_form(poem: GoldPoem, rng: random.Random) -> Corruption:
    """Check the poem against a different form (with no metre or rhyme request)."""
    form = rng.choice([f for f in FORMS if f != poem.form])
    return Corruption("other_form", poem.text, form, None, None)


def other_rhyme(poem: GoldPoem, rng: random.Random, patterns: list[str]) -> Corruption | None:
    """Check the poem against another poem's (different) rhyme pattern."""
    if not poem.rhyme:
        return None
    own = _canonical(poem.rhyme)
    options = [p for p in patterns if _canonical(p) != own]
    if not options:
        return None
    return Corruption("other_rhyme", poem.text, poem.form, poem.meter, rng.choice(options))


def _canonical(pattern: str) -> str:
    from poemetric.form.parsing import canonical_pattern, minimal_period

    return minimal_period(canonical_pattern(parse_rhyme_pattern(pattern)[0]))


def dropped_lines(poem: GoldPoem, rng: random.Random) -> Corruption:
    """Drop 15% of the verse lines (at least one)."""
    lines = _lines(poem.text)
    positions = _verse_positions(lines)
    drop = set(rng.sample(positions, k=max(1, round(0.15 * len(positions)))))
    kept = [line for i, line in enumerate(lines) if i not in drop]
    return Corruption("dropped_lines", _join(kept), poem.form, poem.meter, poem.rhyme)


def duplicated_lines(poem: GoldPoem, rng: random.Random) -> Corruption:
    """Duplicate 15% of the verse lines (at least one) in place."""
    lines = _lines(poem.text)
    positions = _verse_positions(lines)
    dup = set(rng.sample(positions, k=max(1, round(0.15 * len(positions)))))
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        if i in dup:
            out.append(line)
    return Corruption("duplicated_lines", _join(out), poem.form, poem.meter, poem.rhyme)


def refrains_destroyed(poem: GoldPoem, rng: random.Random) -> Corruption | None:
    """Replace the repeated lines of a villanelle or pantoum by non-repeating lines."""
    if poem.form not in {"villanelle", "pantoum"}:
        return None
    parsed = parse_poem(poem.text)
    verse = list(parsed.lines)
    if poem.form == "villanelle":
        targets = [i for i in (5, 8, 11, 14, 17, 18) if i < len(verse)]
    else:
        targets = [i for i in range(4, len(verse)) if i % 4 in (0, 2)]
    for index in targets:
        words = verse[index].split()
        rng.shuffle(words)
        words[-1] = rng.choice(FILLER_WORDS)
        verse[index] = " ".join(
            rng.choice(FILLER_WORDS) if k % 2 else w for k, w in enumerate(words)
        )
    blocks: list[str] = []
    for stanza in parsed.stanzas:
        blocks.append("\n".join(verse[i] for i in stanza))
    return Corruption("refrains_destroyed", "\n\n".join(blocks), poem.form, poem.meter, poem.rhyme)


SIMPLE_GENERATORS: dict[str, Callable[[GoldPoem, random.Random], Corruption | None]] = {
    "broken_rhymes": broken_rhymes,
    "shuffled_lines": shuffled_lines,
    "prose_relineated": prose_relineated,
    "other_form": other_form,
    "dropped_lines": dropped_lines,
    "duplicated_lines": duplicated_lines,
    "refrains_destroyed": refrains_destroyed,
}


def corruptions(poems: list[GoldPoem], *, seed: int = 0) -> Iterator[Corruption]:
    """Every applicable corruption of every poem, deterministic for a seed."""
    rng = random.Random(seed)
    patterns = sorted({p.rhyme for p in poems if p.rhyme})
    for poem in poems:
        for generator in SIMPLE_GENERATORS.values():
            result = generator(poem, rng)
            if result is not None:
                yield result
        other = other_rhyme(poem, rng, patterns)
        if other is not None:
            yield other


def mutation_pass_rates(
    poems: list[GoldPoem], *, seed: int = 0, verbose: bool = False
) -> dict[str, tuple[int, int]]:
    """kind -> (corruptions that passed, corruptions checked)."""
    rates: dict[str, tuple[int, int]] = {}
    for corruption in corruptions(poems, seed=seed):
        result = check_poem(corruption.text, corruption.form, corruption.meter, corruption.rhyme)
        passed, total = rates.get(corruption.kind, (0, 0))
        rates[corruption.kind] = (passed + int(result.passed), total + 1)
        if verbose and result.passed:
            print(
                f"  passed: {corruption.kind} form={corruption.form} rhyme={corruption.rhyme!r}: {result.summary}"
            )
    return rates


__all__ = ["Corruption", "GoldPoem", "corruptions", "load_gold", "mutation_pass_rates", "replace"]
