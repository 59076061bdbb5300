"""Uniqueness: maximum tf-idf cosine similarity to a reference corpus, nearest text, near-copies."""

from __future__ import annotations

import csv
import math
import unicodedata
from pathlib import Path

import pytest

from poemetric.ghostwriting.references import (
    ReferenceCorpusError,
    load_reference_corpora,
    load_reference_corpus,
)
from poemetric.ghostwriting.uniqueness import (
    NEAR_COPY_THRESHOLD,
    ReferenceText,
    UniquenessIndex,
    is_near_copy,
)

DEMO = Path(__file__).parent.parent / "datasets" / "demo" / "poems.csv"
NEW_LINE = "A quiet river wanders through the town,"
#: Lines of no demo poem, to replace lines of Sonnet 18 one by one.
NEW_LINES = (
    NEW_LINE,
    "and nobody is looking at the sky",
    "the engine hums beneath the kitchen floor",
    "while grandmother counts the coins in jars",
    "and radios murmur of a distant war",
    "a dog is barking somewhere in the rain",
)
UNRELATED = (
    "The engine hums beneath the kitchen floor\n"
    "while grandmother counts the coins in jars\n"
    "and radios murmur of a distant war"
)


@pytest.fixture(scope="module")
def corpus() -> list[ReferenceText]:
    with DEMO.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [ReferenceText(f"demo-{i}", r["content"], r["title"]) for i, r in enumerate(rows)]


@pytest.fixture(scope="module")
def index(corpus: list[ReferenceText]) -> UniquenessIndex:
    return UniquenessIndex(corpus)


def test_a_copy_scores_one_and_names_its_source(
    index: UniquenessIndex, corpus: list[ReferenceText]
) -> None:
    for reference in corpus:
        (nearest,) = index.nearest([reference.text])
        assert nearest.similarity == 1.0
        assert (nearest.reference_id, nearest.reference_label) == (reference.id, reference.label)
        assert is_near_copy(nearest.similarity)


def test_changing_one_line_scores_just_below_one(
    index: UniquenessIndex, corpus: list[ReferenceText]
) -> None:
    lines = corpus[0].text.splitlines()
    one = "\n".join([*lines[:5], NEW_LINE, *lines[6:]])
    (first,) = index.nearest([one])
    assert first.reference_id == corpus[0].id
    assert 0.9 < first.similarity < 1.0 and is_near_copy(first.similarity)
    # Replacing more lines lowers the score step by step; most of the poem copied still flags.
    scores = []
    for changed, new in enumerate(NEW_LINES, start=1):
        lines[2 * changed - 1] = new
        (nearest,) = index.nearest(["\n".join(lines)])
        scores.append(nearest.similarity)
    assert scores == sorted(scores, reverse=True)
    assert is_near_copy(scores[3]) and not is_near_copy(scores[5])
    assert scores[3] >= NEAR_COPY_THRESHOLD


def test_unrelated_poems_score_low(index: UniquenessIndex, corpus: list[ReferenceText]) -> None:
    (nearest,) = index.nearest([UNRELATED])
    assert nearest.similarity < 0.1 and not is_near_copy(nearest.similarity)
    # The demo poems are unrelated to one another: each scores low against the others.
    others = index.nearest([r.text for r in corpus], exclude=[{r.id} for r in corpus])
    assert max(n.similarity for n in others) < 0.25
    assert all(n.reference_id != r.id for n, r in zip(others, corpus, strict=True))


def test_text_the_corpus_never_saw_counts_against_similarity(
    index: UniquenessIndex, corpus: list[ReferenceText]
) -> None:
    """Words no reference uses keep their weight in the poem's norm: appending new text to a
    copy lowers the score instead of being ignored."""
    appended = corpus[0].text + "\n" + UNRELATED
    (nearest,) = index.nearest([appended])
    assert nearest.reference_id == corpus[0].id and nearest.similarity < 0.9


def test_similarity_computed_by_hand() -> None:
    """Sublinear tf, smoothed idf fitted on the references, unigrams and bigrams, cosine; a
    word no reference has keeps the idf ln(1 + n) + 1 of an unseen term in the poem's norm."""
    index = UniquenessIndex(
        [ReferenceText("1", "A cat", "one"), ReferenceText("2", "a dog", "two")]
    )
    shared = 1.0  # idf of "a": ln(3 / 3) + 1
    rare = math.log(3 / 2) + 1  # "cat", "a cat": in one of two references
    unseen = math.log(3) + 1  # "sat", "cat sat"
    poem = shared**2 + 2 * rare**2  # the dot product with reference 1 (before norms)
    expected = poem / (math.sqrt(poem) * math.sqrt(poem + 2 * unseen**2))
    (nearest,) = index.nearest(["a cat sat"])
    assert nearest.reference_id == "1"
    assert nearest.similarity == pytest.approx(expected, abs=1e-12)  # 0.5998...
    # Reference 2 ("a dog", as long and as rare) shares only "a" with it.
    other = shared**2 / (math.sqrt(poem) * math.sqrt(poem + 2 * unseen**2))
    assert index.similarities(["a cat sat"])[0, 1] == pytest.approx(other, abs=1e-12)


def test_typographic_apostrophes_and_unicode_forms_still_make_a_copy(
    index: UniquenessIndex, corpus: list[ReferenceText]
) -> None:
    """A model that recites a poem with *summer’s* for *summer's*, or with decomposed accents,
    has copied it: it scored 0.85 (Sonnet 18) and could fall below the near-copy flag."""
    changed = 0
    for reference in corpus:
        typed = unicodedata.normalize("NFD", reference.text.replace("'", "\u2019"))
        if typed == reference.text:
            continue
        changed += 1
        (nearest,) = index.nearest([typed])
        assert (nearest.reference_id, nearest.similarity) == (reference.id, 1.0)
    assert changed >= 10


def test_a_text_without_words_has_no_nearest_text(index: UniquenessIndex) -> None:
    (nearest,) = index.nearest(["... --- !!!"])
    assert math.isnan(nearest.similarity) and nearest.reference_id is None
    assert not is_near_copy(nearest.similarity)


def test_scores_do_not_depend_on_the_other_poems_scored(index: UniquenessIndex) -> None:
    alone = index.similarities([UNRELATED])
    together = index.similarities([UNRELATED, "Shall I compare thee to a summer's day?"])
    assert alone[0].tolist() == together[0].tolist()


def test_reference_corpora_from_files(tmp_path: Path) -> None:
    folder = tmp_path / "corpus"
    (folder / "a").mkdir(parents=True)
    (folder / "a" / "one.txt").write_text("first text\n", encoding="utf-8")
    (folder / "two.txt").write_text("second text\n", encoding="utf-8")
    texts = load_reference_corpus(folder)
    assert [t.id for t in texts] == ["corpus/a/one.txt", "corpus/two.txt"]
    table = tmp_path / "extra.csv"
    table.write_text('id,title,text\n7,Seven,"a poem\nover two lines"\n8,Eight,another\n')
    loaded = load_reference_corpus(table)
    assert [(t.id, t.label) for t in loaded] == [("extra.csv:7", "Seven"), ("extra.csv:8", "Eight")]
    assert loaded[0].text == "a poem\nover two lines"


def test_a_windows_1252_reference_table_is_read_with_a_warning(tmp_path: Path) -> None:
    """Excel's "CSV" on Windows is Windows-1252: refused as not UTF-8 before, it is read as the
    dataset reader reads it, and the warning names the file (never read so silently)."""
    table = tmp_path / "extra.csv"
    table.write_bytes("id,text\n1,caf\u00e9\u2019s song\n".encode("cp1252"))
    loaded = load_reference_corpora([table])
    assert [t.text for t in loaded.texts] == ["caf\u00e9\u2019s song"]
    assert len(loaded.notes) == 1
    assert loaded.notes[0].startswith(f"{table}:2: not UTF-8 (byte 0xe9): read as Windows")


def test_a_bad_reference_record_names_its_file_and_line(tmp_path: Path) -> None:
    table = tmp_path / "extra.csv"
    table.write_text('id,text\n1,"fine"\n2,\n3,"also fine"\n3,"same id"\n', encoding="utf-8")
    with pytest.raises(ReferenceCorpusError) as caught:
        load_reference_corpus(table)
    message = str(caught.value)
    assert f"{table}:3: empty text" in message
    assert f"{table}:5: id '3' appears twice" in message
    jsonl = tmp_path / "extra.jsonl"
    jsonl.write_text('{"text": "ok"}\n{"text": \n', encoding="utf-8")
    with pytest.raises(ReferenceCorpusError, match=r"extra\.jsonl:2"):
        load_reference_corpus(jsonl)
    with pytest.raises(ReferenceCorpusError, match="no text column"):
        (tmp_path / "x.csv").write_text("id,body\n1,hello\n", encoding="utf-8")
        load_reference_corpus(tmp_path / "x.csv")


def test_texts_scored_in_blocks_get_the_same_nearest_references(
    index: UniquenessIndex, corpus: list[ReferenceText], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `nearest` scored every text against every reference in one dense matrix (a 31,000-poem
    # run against a 1,000-poem dataset: 250 MB, 1 GB with its temporaries); it now scores a
    # block of texts at a time. Blocks of one text (and of 3, across block edges) give the same
    # results, exclusions (by each text's own row) and wordless texts included.
    from poemetric.ghostwriting import uniqueness

    texts = [r.text for r in corpus] + [UNRELATED, "", "1 2 3", corpus[2].text]
    exclude = [{r.id} for r in corpus] + [set(), set(), set(), {corpus[2].id, "missing"}]
    whole = index.nearest(texts, exclude)
    assert whole[0].reference_id != corpus[0].id and math.isnan(whole[-3].similarity)
    for cells in (1, 3 * len(corpus)):
        monkeypatch.setattr(uniqueness, "SCORE_BLOCK_CELLS", cells)
        blocked = index.nearest(texts, exclude)
        assert [(n.reference_id, n.reference_label) for n in blocked] == [
            (n.reference_id, n.reference_label) for n in whole
        ]
        assert [n.similarity for n in blocked] == pytest.approx(
            [n.similarity for n in whole], nan_ok=True, abs=0
        )


#: Li Bai's "Quiet Night Thought": not one word or word pair in common with the demo corpus.
CHINESE = "床前明月光\n疑是地上霜\n举头望明月\n低头思故乡"


def test_a_text_sharing_no_word_with_the_corpus_has_no_nearest_text(
    index: UniquenessIndex, tmp_path: Path
) -> None:
    """Every reference ties at similarity 0: naming the first of them (Sonnet 18, as before)
    as its nearest text was arbitrary and wrong."""
    (nearest,) = index.nearest([CHINESE])
    assert (nearest.similarity, nearest.reference_id, nearest.reference_label) == (0.0, None, None)
    assert not is_near_copy(nearest.similarity)
    # `ghostwriting score --reference` says so instead of naming a text.
    from poemetric.ghostwriting.own_poems import own_poems_uniqueness

    poem = tmp_path / "zh.txt"
    poem.write_text(CHINESE, encoding="utf-8")
    measured = own_poems_uniqueness([(poem, CHINESE)], [DEMO], NEAR_COPY_THRESHOLD)
    assert measured.nearest[0].reference_id is None
    assert measured.lines[0] == f"{poem}: no word in common with any reference text (uniqueness 0)"


def test_similarities_equal_stock_scikit_learn_configured_as_the_docs_say(
    index: UniquenessIndex, corpus: list[ReferenceText]
) -> None:
    """Cross-check against an independent configuration of scikit-learn (docs/ghostwriting.md,
    section 3): lower-cased NFC words with inner apostrophes, unigrams and bigrams, sublinear
    tf, smoothed idf fitted on the references alone, l2 norm, cosine. Words the references lack
    are put into the vocabulary (so they keep their weight in the poem's norm) and get sklearn's
    own idf for a term in no document, ln((1 + n) / 1) + 1."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    def prepare(text: str) -> str:
        return unicodedata.normalize("NFC", text).replace("\u2019", "'").lower()

    pattern = r"(?u)\b\w+(?:'\w+)*\b"
    lines = corpus[0].text.splitlines()
    poems = [
        corpus[3].text,
        UNRELATED,
        "\n".join([*lines[:5], NEW_LINE, *lines[6:]]),
        corpus[7].text + "\n" + UNRELATED,
        "\n".join([corpus[8].text.splitlines()[0]] * 6),  # a refrain
        "O’er the hills, the summer’s day\nShall I compare thee",
    ]
    references = [r.text for r in corpus]
    words = CountVectorizer(preprocessor=prepare, token_pattern=pattern, ngram_range=(1, 2))
    words.fit(references + poems)
    stock = TfidfVectorizer(
        preprocessor=prepare,
        token_pattern=pattern,
        ngram_range=(1, 2),
        sublinear_tf=True,
        smooth_idf=True,
        norm="l2",
        vocabulary=words.vocabulary_,
    ).fit(references)
    expected = (stock.transform(poems) @ stock.transform(references).T).toarray()
    assert index.similarities(poems) == pytest.approx(expected, abs=1e-12)


def test_an_excluded_id_leaves_out_every_text_that_has_it(corpus: list[ReferenceText]) -> None:
    """Only the last text with an excluded id was left out: with two copies under one id, the
    poem was compared with the other copy, its own text (1.0)."""
    poem = corpus[0]
    twice = UniquenessIndex([poem, *corpus[1:], ReferenceText(poem.id, poem.text, poem.label)])
    (nearest,) = twice.nearest([poem.text], [{poem.id}])
    assert nearest.reference_id != poem.id and nearest.similarity < NEAR_COPY_THRESHOLD


def test_corpora_named_twice_are_read_once_and_corpora_of_one_name_keep_apart(
    tmp_path: Path,
) -> None:
    for folder in ("x", "y"):
        (tmp_path / folder / "poems").mkdir(parents=True)
        (tmp_path / folder / "poems" / "a.txt").write_text(f"poem in {folder}\n", encoding="utf-8")
    x, y = tmp_path / "x" / "poems", tmp_path / "y" / "poems"
    loaded = load_reference_corpora([x, y, tmp_path / "x" / ".." / "x" / "poems"])
    assert [t.id for t in loaded.texts] == [f"{x}/a.txt", f"{y}/a.txt"]
    assert loaded.notes == ["1 reference corpus named more than once, read once"]
    assert [t.id for t in load_reference_corpora([x]).texts] == ["poems/a.txt"]
