"""Precomputed tables under the user cache dir: built once, reused, rebuilt when stale (issue 11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from poemetric.form import lexicon, meter_words


def test_cached_table_is_built_once_and_rebuilt_when_stale_or_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "table.marshal"
    builds: list[int] = []

    def build() -> dict[str, str]:
        builds.append(1)
        return {"word": "W ER1 D"}

    assert lexicon.cached_table(path, "v1", build) == {"word": "W ER1 D"}
    assert lexicon.cached_table(path, "v1", build) == {"word": "W ER1 D"}
    assert len(builds) == 1
    lexicon.cached_table(path, "v2", build)  # another version tag: rebuilt
    assert len(builds) == 2
    path.write_bytes(b"not marshal data")
    lexicon.cached_table(path, "v2", build)
    assert len(builds) == 3


def test_unwritable_cache_dir_still_works(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert lexicon.cached_table(blocker / "t.marshal", "v", lambda: [1, 2]) == [1, 2]


def test_cache_dir_honours_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POEMETRIC_CACHE_DIR", str(tmp_path))
    assert lexicon.table_path().parent == tmp_path


def test_lexicon_agrees_with_cmudict_and_word_entries_with_their_computation() -> None:
    assert lexicon.phones_for_word("tyger") == ("T AY1 G ER0",)
    assert lexicon.phones_for_word("read") == ("R EH1 D", "R IY1 D")
    assert lexicon.phones_for_word("qwzx") == ()
    table = meter_words.word_entry_table()
    for word in ("heaven", "the", "flower", "beautiful", "upon", "wandering"):
        assert meter_words.decode_entry(table[word]) == meter_words._compute_word_entry(word)
    assert meter_words._word_entry("Heaven") == meter_words._compute_word_entry("heaven")
