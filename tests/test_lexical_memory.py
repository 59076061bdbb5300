"""What `analyze`, `figures` and `report` hold per poem (docs/benchmarks.md, "`analyze`, `report`
and `figures` at study size: where the memory went"): the run data's one copy of each human
original, the tokenizer's cache sharing one object per distinct word, and the repetition
measure's poem x word matrix built from machine integers. Checked by dtype, object identity and
the bytes Python allocates (tracemalloc), never by the process's resident size, which moves
with the machine's load and allocator."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import numpy as np
from test_analysis_scores import _fill

from poemetric.analysis.data import load_run_data
from poemetric.analysis.repetition import _overlap_counts
from poemetric.store import RunStore
from poemetric.text.tokens import tokenize

WORDS = [f"word{index}" for index in range(3_000)]


def test_cached_poems_share_one_object_per_word() -> None:
    # Uninterned, each cached poem held its own copy of every word (about 55 bytes against an
    # 8-byte reference): 120 MB of repeated words at 14,833 poems.
    first = tokenize("Nightingales sing of moonlight, nightingales")
    second = tokenize("The moonlight and the nightingales")
    assert first[0] == first[-1] == second[-1] == "nightingales"
    assert first[0] is first[-1] is second[-1]
    assert first[3] is second[1]  # "moonlight"


def _corpus(poems: int, tokens: int) -> tuple[list[list[str]], list[list[str]]]:
    rng = random.Random(7)
    originals = [rng.choices(WORDS, k=tokens) for _ in range(50)]
    return [rng.choices(WORDS, k=tokens) for _ in range(poems)], originals


def test_overlap_matrix_is_built_without_a_python_int_per_token() -> None:
    poems, originals = _corpus(2_000, 200)  # 400,000 tokens
    tracemalloc.start()
    try:
        counts, _present, lengths = _overlap_counts(poems, originals)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    matrix = counts.data.nbytes + counts.indices.nbytes + counts.indptr.nbytes
    # Lists of Python ints (a row and a column per token) and their COO conversion peaked at
    # 4.0 times the matrix; its CSR arrays grown in place at 1.1 (400,000 tokens, the
    # vocabulary and the originals' matrix included).
    assert peak < 2 * matrix, (peak, matrix)
    # The counts are still every token of a poem found among the originals' words.
    vocabulary = {word for original in originals for word in original}
    found = [sum(word in vocabulary for word in poem) for poem in poems]
    assert counts.sum(axis=1).A1.tolist() == found
    assert lengths.tolist() == [200.0] * len(poems)


def test_repeated_words_in_a_poem_count_once_each() -> None:
    originals = [["sun", "sea"], ["moon"]]
    counts, present, _ = _overlap_counts([["sun", "sun", "moon", "star"], []], originals)
    shared = np.asarray((counts @ present).todense())
    assert shared.tolist() == [[2.0, 1.0], [0.0, 0.0]]


def test_the_generations_frame_holds_each_human_original_once(tmp_path: Path) -> None:
    # Joined in SQL, every generation held its own copy of its original (read as a Python
    # string, then copied into the frame): 90 copies of each at 30 models x 3 samples.
    with RunStore(tmp_path / "run") as store:
        _fill(store)
        for sample in range(1, 40):
            store.save_generation({"generation_id": f"bot-p1-{sample}", "prompt_id": "q1",
                                   "poem_id": "p1", "author": "bot", "sample_index": sample,
                                   "status": "ok", "poem": "the sea\nthe moon"})  # fmt: skip
        generations = load_run_data(store).generations
        joined = dict(store.query(
            "SELECT g.generation_id, p.content FROM generations g "
            "JOIN poems p ON p.poem_id = g.poem_id WHERE g.status = 'ok'"))  # fmt: skip
    assert len(generations) == 43
    originals = generations["human_poem"]
    assert originals.dtype == "category"
    assert list(originals.cat.categories) == ["a road in the rain", "the moon over the sea"]
    assert dict(zip(generations["generation_id"], originals, strict=True)) == joined
    assert list(generations.columns[8:11]) == ["poem_form", "human_poem", "poem_title"]
