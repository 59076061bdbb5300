"""Pair builders on real poems (the shipped Lear limericks, the shared POEMetric set), each
corruption checked independently of the builder: rhymes with CMUdict through `pronouncing`,
parts of speech and synonymy with WordNet's own index, words and punctuation by counting."""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pronouncing
import pytest

from poemetric.data import load_dataset
from poemetric.probes.builders import SourcePoem, build_pairs
from poemetric.probes.pairs import OFFLINE_TASKS, Pair, PairFileError, read_pairs, write_jsonl

WORD = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")


def sources(spec: str | Path, form: str | None = None) -> list[SourcePoem]:
    return [
        SourcePoem(p.poem_id, p.content, p.rhyme_pattern, str(p.form))
        for p in load_dataset(spec).poems
        if form is None or str(p.form) == form
    ]


def verse(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


def end_word(line: str) -> str:
    return WORD.findall(line)[-1]


def _last_syllable(phones: str) -> str:
    """Last vowel (stress dropped) and what follows it: Lear rhymes "up he" with "puppy"."""
    parts = phones.split()
    vowel = max(i for i, p in enumerate(parts) if p[-1].isdigit())
    return " ".join([parts[vowel][:-1], *parts[vowel + 1 :]])


def cmu_rhyme(a: str, b: str) -> bool | None:
    """Rhyme by CMUdict: the same stressed rhyming part, or the same final syllable sound
    (None when a word is not in CMUdict)."""
    pa, pb = pronouncing.phones_for_word(a.lower()), pronouncing.phones_for_word(b.lower())
    if not pa or not pb:
        return None
    stressed = {pronouncing.rhyming_part(p) for p in pa} & {pronouncing.rhyming_part(p) for p in pb}
    final = {_last_syllable(p) for p in pa} & {_last_syllable(p) for p in pb}
    return bool(stressed or final)


def changed_lines(pair: Pair) -> list[int]:
    a, b = verse(pair.original), verse(pair.corrupted)
    assert len(a) == len(b)
    return [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


@pytest.fixture(scope="module")
def lear_pairs() -> list[Pair]:
    from conftest import wordnet_or_skip

    wordnet_or_skip()
    return build_pairs(sources("lear-limericks"), OFFLINE_TASKS, seed=7)


def by_task(pairs: list[Pair], task: str) -> list[Pair]:
    chosen = [p for p in pairs if p.task == task]
    assert chosen, f"no {task} pair built"
    return chosen


def test_every_task_builds_on_the_shipped_limericks(lear_pairs: list[Pair]) -> None:
    counts = collections.Counter(p.task for p in lear_pairs)
    assert set(counts) == set(OFFLINE_TASKS)
    assert all(counts[t] >= 30 for t in OFFLINE_TASKS if t.startswith("delete"))
    assert all(p.original != p.corrupted for p in lear_pairs)
    assert len({p.id for p in lear_pairs}) == len(lear_pairs)


def test_rhyme_word_swap_swaps_two_rhyming_end_words_of_one_part_of_speech(
    lear_pairs: list[Pair],
) -> None:
    from poemetric.probes.thesaurus import load_wordnet

    wordnet = load_wordnet()
    for pair in by_task(lear_pairs, "rhyme_word_swap"):
        lines = changed_lines(pair)
        assert len(lines) == 2
        before = [end_word(verse(pair.original)[i]) for i in lines]
        after = [end_word(verse(pair.corrupted)[i]) for i in lines]
        assert [w.lower() for w in after] == [w.lower() for w in reversed(before)]
        assert before[0].lower() != before[1].lower()  # never a swap of a repeated word
        assert cmu_rhyme(*before) in (True, None)
        pos = {"noun": "n", "verb": "v", "adjective": "a", "adverb": "r"}[pair.details["pos"]]
        assert all(pos in wordnet.parts_of_speech(w.lower()) for w in before)
        # everything but the two end words is untouched
        for i in lines:
            strip = lambda line: line[: line.rfind(end_word(line))]  # noqa: E731
            assert strip(verse(pair.original)[i]) == strip(verse(pair.corrupted)[i])


def test_rhyme_line_swap_permutes_two_rhyming_lines(lear_pairs: list[Pair]) -> None:
    for pair in by_task(lear_pairs, "rhyme_line_swap"):
        a, b = verse(pair.original), verse(pair.corrupted)
        i, j = changed_lines(pair)
        assert (b[i], b[j]) == (a[j], a[i]) and sorted(a) == sorted(b)
        assert pair.details["rhyme_scheme"][i] == pair.details["rhyme_scheme"][j]
        assert cmu_rhyme(end_word(a[i]), end_word(a[j])) in (True, None)
        assert not b[-1].rstrip().endswith(",")


def test_rhyme_line_swap_never_moves_one_end_of_a_quotation(lear_pairs: list[Pair]) -> None:
    """BPoMP leaves out swaps of "lines that start a quotation": the swap is obvious. Only lines
    beginning with a quote mark were left out, so Lear's `Who said, "It is just as I feared!—`
    traded places with `Have all built their nests in my beard!"`, the quotation closing before
    it opened (7 of the 37 line swaps of the shipped limericks, seed 0)."""
    swaps = by_task(lear_pairs, "rhyme_line_swap")
    for pair in swaps:
        for line in pair.details["lines"]:
            text = pair.original.split("\n")[line]
            assert text.count('"') % 2 == 0 and text.count("“") == text.count("”"), text
    seed_0 = build_pairs(sources("lear-limericks"), ["rhyme_line_swap"], seed=0)
    beard = next(p for p in seed_0 if p.original.startswith("There was an Old Man with a beard"))
    assert sorted(beard.details["lines"]) == [2, 3]  # Hen / Wren, the one swap without quotes
    assert len(seed_0) == 32


def test_synonym_keeps_part_of_speech_and_breaks_the_rhyme(lear_pairs: list[Pair]) -> None:
    from poemetric.probes.thesaurus import load_wordnet, singular

    wordnet = load_wordnet()
    pairs = by_task(lear_pairs, "synonym")
    for pair in pairs:
        (line,) = changed_lines(pair)
        old = end_word(verse(pair.original)[line]).lower()
        new = end_word(verse(pair.corrupted)[line]).lower()
        assert new == pair.details["synonym"].lower() and old != new
        pos = {"noun": "n", "verb": "v", "adjective": "a", "adverb": "r"}[pair.details["pos"]]
        lemma_old, lemma_new = pair.details["lemmas"]
        assert lemma_old in (old, singular(old)) and lemma_new in (new, singular(new))
        # synonyms: the two lemmas share a WordNet synset of that part of speech
        shared = set(wordnet.index[pos][lemma_old]) & set(wordnet.index[pos][lemma_new])
        assert shared, (old, new)
        for partner in pair.details["partners"]:
            assert cmu_rhyme(new, partner) in (False, None), (new, partner)
        assert verse(pair.original)[line].replace(end_word(verse(pair.original)[line]), "") == (
            verse(pair.corrupted)[line].replace(end_word(verse(pair.corrupted)[line]), "")
        )
    assert len(pairs) >= 10


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("rhyming", [True, False])
def test_deletions_remove_words_and_keep_punctuation(
    lear_pairs: list[Pair], count: int, rhyming: bool
) -> None:
    task = f"delete_{count}_{'rhyming' if rhyming else 'nonrhyming'}"
    for pair in by_task(lear_pairs, task):
        before = collections.Counter(WORD.findall(pair.original))
        after = collections.Counter(WORD.findall(pair.corrupted))
        removed = before - after
        assert sum(removed.values()) == count and not after - before
        assert all(len(w) >= 2 for w in removed)
        punctuation = lambda text: re.sub(r"[A-Za-z\s'’-]", "", text)  # noqa: E731
        assert punctuation(pair.original) == punctuation(pair.corrupted)
        ends = collections.Counter(end_word(line) for line in verse(pair.original))
        deleted = [d["word"] for d in pair.details["deleted"]]
        assert collections.Counter(deleted) == removed
        grouped = {line for group in pair.details["rhyme_groups"] for line in group}
        for item in pair.details["deleted"]:
            is_end = item["token"] == len(pair.original.split("\n")[item["line"]].split()) - 1
            assert (is_end and item["line"] in grouped) == rhyming
            assert (item["word"] in ends) >= rhyming


def test_nonrhyming_deletions_spare_every_rhyme_word_of_the_scheme() -> None:
    """The paper's k-nr control deletes no rhyming end word. *law* / *door* rhyme by the
    scheme (B) but not perfectly, so they are in no rhyme group: k-r leaves them, and k-nr
    deleted them as if they did not rhyme."""
    poem = (
        "A cat who was living in Spain\n"
        "would dance every night in the rain;\n"
        'she sang out "O law!"\n'
        "to a dog at the door,\n"
        "and then she went home on a train."
    )
    pairs = build_pairs([SourcePoem("cat", poem, "AABBA")], ["delete_1_nonrhyming"], per_poem=99)
    deleted = sorted(d["word"] for p in pairs for d in p.details["deleted"])
    # words of two letters or more, the five end words left out: 5 + 6 + 3 + 4 + 6
    assert len(deleted) == 24 == pairs[0].details["candidates"]
    assert not {"Spain", "rain", "law", "door", "train"} & set(deleted)
    assert pairs[0].details["rhyme_groups"] == [[0, 1, 4]]  # law / door: no heard rhyme


def test_building_is_deterministic_per_seed(wordnet: None) -> None:
    poems = sources("lear-limericks")[:8]
    first = build_pairs(poems, OFFLINE_TASKS, seed=1)
    assert first == build_pairs(poems, OFFLINE_TASKS, seed=1)
    # a poem's pairs for one task do not depend on the other tasks asked for
    alone = build_pairs(poems, ["delete_2_nonrhyming"], seed=1)
    assert alone == [p for p in first if p.task == "delete_2_nonrhyming"]
    other = build_pairs(poems, OFFLINE_TASKS, seed=2)
    assert [p.corrupted for p in other] != [p.corrupted for p in first]


@pytest.mark.shared_data
def test_builders_on_the_shared_poemetric_set(poemetric_gold_csv: Path, wordnet: None) -> None:
    poems = sources(poemetric_gold_csv)
    pairs = build_pairs(poems, OFFLINE_TASKS, seed=0)
    counts = collections.Counter(p.task for p in pairs)
    assert set(counts) == set(OFFLINE_TASKS)
    forms = {p.poem_id.split("-")[0] for p in pairs}
    assert {"sonnet", "limerick", "villanelle"} <= forms
    for pair in pairs:
        assert pair.original != pair.corrupted
        if pair.task == "rhyme_line_swap":
            a, b = verse(pair.original), verse(pair.corrupted)
            assert sorted(a) == sorted(b) and len(changed_lines(pair)) == 2
        if pair.task == "synonym":
            line = pair.details["line"]
            new = pair.details["synonym"]
            assert end_word(pair.corrupted.split("\n")[line]) == new
            assert all(cmu_rhyme(new, w) in (False, None) for w in pair.details["partners"])


def test_pairs_file_round_trip_and_line_numbered_errors(tmp_path: Path, wordnet: None) -> None:
    pairs = build_pairs(sources("lear-limericks")[:2], ["synonym", "delete_1_rhyming"], seed=0)
    path = tmp_path / "pairs.jsonl"
    write_jsonl(pairs, path)
    assert read_pairs(path) == pairs
    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0], '{"id": "x"', *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(PairFileError, match=r"pairs.jsonl:2: not valid JSON"):
        read_pairs(path)
    path.write_text("\n".join([lines[0], lines[0]]) + "\n", encoding="utf-8")
    with pytest.raises(PairFileError, match=r":2: id: duplicate pair id"):
        read_pairs(path)
    same = lines[0].replace('"corrupted"', '"ignored"')
    path.write_text(same + "\n", encoding="utf-8")
    with pytest.raises(PairFileError, match=r":1: "):
        read_pairs(path)


def test_last_line_pairs_keep_only_rhyming_new_lines_and_name_their_search() -> None:
    from poemetric.probes.last_line import LineRequest, build_last_line_pairs

    class Scripted:
        description = "scripted"

        def candidates(self, requests: list[LineRequest]) -> list[list[str]]:
            return [
                [
                    r.original_line,  # identical: rejected
                    "And they sat on the top of his head.",  # no rhyme: rejected
                    f"And they sang as they sat on his {r.partners[-1].lower()}!",
                ]
                for r in requests
            ]

    poems = sources("lear-limericks")[:3]
    beam = build_last_line_pairs(poems, Scripted(), seed=0)
    delayed = build_last_line_pairs(poems, Scripted(), seed=0, task="last_line_dbs")
    assert [p.task for p in beam] == ["last_line"] * 3
    assert {p.id for p in beam}.isdisjoint(p.id for p in delayed)
    for pair in beam:
        a, b = verse(pair.original), verse(pair.corrupted)
        assert a[:-1] == b[:-1] and a[-1] != b[-1]
        assert b[-1] == pair.details["generated"]
        verdicts = [c["verdict"] for c in pair.details["candidates"]]
        assert verdicts == ["identical to the original line", "does not rhyme", "ok"]
