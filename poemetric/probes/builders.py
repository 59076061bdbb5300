"""Seeded, deterministic builders of minimal pairs, one function per task.

Each builder takes a `Poem`, its rhyme groups and a `random.Random` seeded from (seed, poem,
task), and returns up to `per_poem` corrupted texts with the details of what was touched. The
filters follow the papers: swapped end words share a part of speech; swapped lines never open or
close a quotation that runs over other lines and never leave the poem ending on a comma where the
original ended a sentence; a synonym has the original's part of speech, rhymes with none of its partners and takes the
original's article (*a*/*an*); deleted words have
at least two letters and keep their punctuation. Whatever the task, a corruption identical to the
original, or one that keeps a rhyme it claims to break, is never emitted.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from poemetric.probes.line_edits import delete_words, replace_end_word
from poemetric.probes.pairs import OFFLINE_TASKS, Pair
from poemetric.probes.poem import (
    Poem,
    RhymeInfo,
    RhymeSource,
    article_breaks,
    match_case,
    rhymes_with_any,
)
from poemetric.store.db import stable_id
from poemetric.text.plural import plural

_QUOTES = "\"'“‘«"
_SENTENCE_END = ".!?…"
_CLOSERS = "\"'”’»)]"


@dataclass
class Corruption:
    text: str
    details: dict[str, Any] = field(default_factory=dict)


Builder = Callable[[Poem, RhymeInfo, random.Random, int], list[Corruption]]


def previous_word(poem: Poem, line: int) -> str | None:
    """The word before a line's end word (in the same line), for part-of-speech cues."""
    index = poem.end_token_index(line)
    words = [t.core for t in poem.tokens(line)[: index or 0] if t.core]
    return words[-1] if words else None


def _pos_of(poem: Poem, line: int) -> str | None:
    from poemetric.probes.thesaurus import load_wordnet, word_pos

    return word_pos(load_wordnet(), poem.end_words[line], previous_word(poem, line))


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


# -- rhyme_word_swap ------------------------------------------------------------------------------
def rhyme_word_swap(
    poem: Poem, rhyme: RhymeInfo, rng: random.Random, per_poem: int
) -> list[Corruption]:
    """Two rhyming line-end words of the same part of speech, each fitting the other's article,
    trade places (BPoMP task 1)."""
    candidates = []
    for group in rhyme.groups:
        for first, second in itertools.combinations(group, 2):
            word_a, word_b = poem.end_words[first], poem.end_words[second]
            if word_a.lower() == word_b.lower():
                continue  # a repeated rhyme word (Lear's refrains): swapping changes nothing
            pos_a, pos_b = _pos_of(poem, first), _pos_of(poem, second)
            candidates.append((first, second, word_a, word_b, pos_a, pos_b))
    rng.shuffle(candidates)
    out: list[Corruption] = []
    for first, second, word_a, word_b, pos_a, pos_b in candidates:
        if pos_a is None or pos_a != pos_b:
            continue
        if article_breaks(previous_word(poem, first), word_a, word_b) or article_breaks(
            previous_word(poem, second), word_b, word_a
        ):
            continue  # "an eye" / "a sky" would become "a eye": a slip of grammar besides
        text = poem.with_lines(
            {
                first: replace_end_word(poem, first, match_case(word_b, word_a)),
                second: replace_end_word(poem, second, match_case(word_a, word_b)),
            }
        )
        out.append(
            Corruption(
                text,
                {
                    "lines": [first, second],
                    "words": [word_a, word_b],
                    "pos": POS_LABEL.get(pos_a, pos_a),
                    "candidates": len(candidates),
                },
            )
        )
        if len(out) >= per_poem:
            break
    return out


# -- rhyme_line_swap ------------------------------------------------------------------------------
def ends_sentence(line: str) -> bool:
    stripped = line.rstrip().rstrip(_CLOSERS + " –—-")
    return bool(stripped) and stripped[-1] in _SENTENCE_END


def opens_or_closes_quotation(line: str) -> bool:
    """A line that starts with a quote mark, or whose double quotes do not pair up within it
    (`Who said, "It is just as I feared!—`): swapped, the quotation it opens or closes would
    close before it opens, or take in lines that were never in it."""
    if line.lstrip()[:1] in _QUOTES:
        return True
    return (
        line.count('"') % 2 == 1
        or line.count("“") != line.count("”")
        or (line.count("«") != line.count("»"))
    )


def rhyme_line_swap(
    poem: Poem, rhyme: RhymeInfo, rng: random.Random, per_poem: int
) -> list[Corruption]:
    """Two rhyming lines trade places (BPoMP task 2)."""
    candidates = [pair for group in rhyme.groups for pair in itertools.combinations(group, 2)]
    rng.shuffle(candidates)
    last = poem.verse[-1]
    out: list[Corruption] = []
    for first, second in candidates:
        line_a, line_b = poem.lines[first], poem.lines[second]
        if line_a.strip() == line_b.strip():
            continue
        if opens_or_closes_quotation(line_a) or opens_or_closes_quotation(line_b):
            continue  # a quotation run over lines: the swap would be obvious
        swapped = {
            first: _indent(line_a) + line_b.strip(),
            second: _indent(line_b) + line_a.strip(),
        }
        new_last = swapped.get(last, poem.lines[last])
        if ends_sentence(poem.lines[last]) and not ends_sentence(new_last):
            continue  # the corrupted poem would end on a comma
        out.append(
            Corruption(
                poem.with_lines(swapped),
                {"lines": [first, second], "candidates": len(candidates)},
            )
        )
        if len(out) >= per_poem:
            break
    return out


# -- synonym --------------------------------------------------------------------------------------
POS_LABEL = {"n": "noun", "v": "verb", "a": "adjective", "r": "adverb"}


def synonym(poem: Poem, rhyme: RhymeInfo, rng: random.Random, per_poem: int) -> list[Corruption]:
    """A line-end rhyme word replaced by a WordNet synonym of the same part of speech that
    rhymes with none of its partners (BPoMP task 3): the first candidate, most frequent sense
    first, that is a common word in a sense SemCor attests (`thesaurus.Candidate.verdict`)."""
    from poemetric.probes.thesaurus import load_wordnet, synonym_candidates, synonym_lemma

    wordnet = load_wordnet()
    slots = [(line, group) for group in rhyme.groups for line in group]
    rng.shuffle(slots)
    out: list[Corruption] = []
    for line, group in slots:
        word = poem.end_words[line]
        partners = [poem.end_words[other] for other in group if other != line]
        previous = previous_word(poem, line)
        pos, candidates = synonym_candidates(wordnet, word, previous)
        lemmas: list[str] = []
        considered = []
        chosen = None
        for candidate in candidates:
            option = candidate.word
            reason = candidate.verdict  # "ok", or a rare word or sense
            if reason == "ok" and rhymes_with_any(option, partners):
                reason = "rhymes with a partner"
            elif reason == "ok" and option.lower() == word.lower():
                reason = "same word"
            elif reason == "ok" and article_breaks(previous, word, option):
                reason = f"article: {previous} {option}"
            considered.append(
                {
                    "word": option,
                    "verdict": reason,
                    "sense": candidate.sense,
                    "zipf": candidate.zipf,
                }
            )
            if reason == "ok" and chosen is None:
                chosen = option
                lemmas = [synonym_lemma(wordnet, word), synonym_lemma(wordnet, option)]
        if chosen is None:
            continue
        text = poem.with_lines({line: replace_end_word(poem, line, match_case(chosen, word))})
        out.append(
            Corruption(
                text,
                {
                    "line": line,
                    "word": word,
                    "synonym": match_case(chosen, word),
                    "lemmas": lemmas,
                    "pos": POS_LABEL.get(pos or "", pos),
                    "partners": partners,
                    "candidates": considered,
                },
            )
        )
        if len(out) >= per_poem:
            break
    return out


# -- delete_k_rhyming / delete_k_nonrhyming -------------------------------------------------------
def scheme_rhyme_lines(poem: Poem, rhyme: RhymeInfo) -> set[int]:
    """The lines whose rhyme-scheme letter (not X) another line shares: rhyming by the scheme,
    whether or not their end words are heard to rhyme perfectly (Lear's *law* / *bore*, *bonnet*
    / *upon it*)."""
    by_letter: dict[str, list[int]] = {}
    for line, letter in zip(poem.verse, rhyme.scheme, strict=True):
        if letter != "X" and line in poem.end_words:
            by_letter.setdefault(letter, []).append(line)
    return {line for members in by_letter.values() if len(members) >= 2 for line in members}


def deletion(count: int, rhyming: bool) -> Builder:
    """Delete `count` words: line-end rhyme words (`rhyming`) or any other words (the limerick
    paper's 1/2/3-r and 1/2/3-nr tasks).

    The rhyme words deleted are those of the rhyme groups (heard to rhyme); the other words
    exclude the end word of every line the scheme says rhymes: the paper's control deletes no
    rhyme word, and a slant rhyme (*law* / *bore*) is one."""

    def build(poem: Poem, rhyme: RhymeInfo, rng: random.Random, per_poem: int) -> list[Corruption]:
        rhyme_lines = {line for group in rhyme.groups for line in group}
        if not rhyming:
            rhyme_lines |= scheme_rhyme_lines(poem, rhyme)
        rhyme_slots = {(line, poem.end_token_index(line)) for line in rhyme_lines}
        slots = [
            (line, index)
            for line in poem.verse
            for index, token in enumerate(poem.tokens(line))
            if token.is_word and ((line, index) in rhyme_slots) == rhyming
        ]
        if len(slots) < count:
            return []
        out: list[Corruption] = []
        seen: set[tuple[tuple[int, int], ...]] = set()
        for _ in range(per_poem * 20):
            chosen = tuple(sorted(rng.sample(slots, count)))
            if chosen in seen:
                continue
            seen.add(chosen)
            words = [poem.tokens(line)[index].core for line, index in chosen]
            out.append(
                Corruption(
                    delete_words(poem, chosen),
                    {
                        "deleted": [
                            {"line": line, "token": index, "word": word}
                            for (line, index), word in zip(chosen, words, strict=True)
                        ],
                        "candidates": len(slots),
                    },
                )
            )
            if len(out) >= per_poem:
                break
        return out

    return build


BUILDERS: dict[str, Builder] = {
    "rhyme_word_swap": rhyme_word_swap,
    "rhyme_line_swap": rhyme_line_swap,
    "synonym": synonym,
    **{
        f"delete_{k}_{'rhyming' if r else 'nonrhyming'}": deletion(k, r)
        for k in (1, 2, 3)
        for r in (True, False)
    },
}
assert set(BUILDERS) == set(OFFLINE_TASKS)


@dataclass(frozen=True)
class SourcePoem:
    poem_id: str
    text: str
    rhyme_pattern: str | None = None
    form: str | None = None
    #: Where the poem is, `file:line`, for messages (None: not read from a file).
    where: str | None = None


def build_pairs(
    poems: Iterable[SourcePoem],
    tasks: Sequence[str],
    *,
    seed: int = 0,
    per_poem: int = 1,
    rhyme_source: RhymeSource = "auto",
) -> list[Pair]:
    """Pairs for every poem and task (offline tasks; `last_line` has its own builder).

    Deterministic: the same poems, tasks, seed and `per_poem` always give the same pairs, and a
    poem's pairs for one task do not depend on the other tasks or poems asked for.
    """
    unknown = [t for t in tasks if t not in BUILDERS]
    if unknown:
        raise ValueError(
            f"unknown {plural(len(unknown), 'task')} {', '.join(unknown)}; offline tasks: "
            f"{', '.join(BUILDERS)}"
        )
    pairs: list[Pair] = []
    for source in poems:
        poem = Poem(source.poem_id, source.text, source.rhyme_pattern)
        rhyme = poem.rhyme_info(rhyme_source)
        for task in tasks:
            rng = random.Random(stable_id(seed, source.poem_id, task))
            for number, corruption in enumerate(BUILDERS[task](poem, rhyme, rng, per_poem)):
                if corruption.text == poem.text:
                    continue
                pairs.append(
                    Pair(
                        id=stable_id(source.poem_id, task, seed, number),
                        poem_id=source.poem_id,
                        task=task,
                        original=poem.text,
                        corrupted=corruption.text,
                        details={
                            **corruption.details,
                            "rhyme_groups": [list(group) for group in rhyme.groups],
                            "rhyme_scheme": rhyme.scheme,
                            "rhyme_source": rhyme.source,
                            "seed": seed,
                        },
                    )
                )
    return pairs
