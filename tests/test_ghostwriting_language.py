"""Both rhyme densities assume English pronunciations: a poem mostly not in English is flagged
(`ghostwriting score` warns once on stderr, `ghostwriting metrics` / `analyze` add a note and the
per-poem column `english`), where German or French got numbers from English spelling rules and
Chinese a `–` density beside an entropy weight of 1.000, without a word."""

from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.ghostwriting.language import not_english_reason
from poemetric.ghostwriting.metrics import near_copy_note, not_english_note, poem_measures

DEMO = Path(__file__).parent.parent / "datasets" / "demo" / "poems.csv"

GERMAN = (
    "Ich weiß nicht, was soll es bedeuten,\nDass ich so traurig bin;\n"
    "Ein Märchen aus alten Zeiten,\nDas kommt mir nicht aus dem Sinn."
)
FRENCH = (
    "Demain, dès l'aube, à l'heure où blanchit la campagne,\n"
    "Je partirai. Vois-tu, je sais que tu m'attends."
)
CHINESE = "床前明月光\n疑是地上霜\n举头望明月\n低头思故乡"
OTHERS = {
    "Spanish": "El viento de la noche gira en el cielo y canta,\ny yo te quiero con los ojos.",
    "Italian": "Nel mezzo del cammin di nostra vita\nmi ritrovai per una selva oscura",
    "Portuguese": "Minha terra tem palmeiras,\nOnde canta o Sabiá;\nNão gorjeiam como lá.",
    "Dutch": "Ik ben een dichter en ik schrijf niet veel,\nmaar het is voor het hart alleen.",
}
ENGLISH = {
    "a French phrase": (
        "The lovers met beneath the ancient tree,\n"
        "and whispered \"je t'aime, mon coeur, c'est la vie\",\n"
        "then walked together slowly to the sea."
    ),
    "Middle English": "Sumer is icumen in,\nLhude sing cuccu!\nGroweth sed and bloweth med",
    "Scots": "The wee burn rins doon by the auld mill-stane,\nAn' the lassie sings blythe when "
    "the day is gane;\nShe kens na the morn, an' she fears na the rain,\nFor her heart's aye "
    "as licht as the bonnie mune's wane.",
    "no function word": "Silence falls",
    "contractions like elisions": "C'mon, c'mon, c'mon now,\nD'ye hear me? D'you care?",
}


def test_texts_in_other_languages_are_told_from_english_ones() -> None:
    assert not_english_reason(CHINESE) == "not in Latin script"
    for name, text in {"German": GERMAN, "French": FRENCH, **OTHERS}.items():
        reason = not_english_reason(text)
        assert reason is not None and "common non-English words" in reason, name
    for name, text in ENGLISH.items():
        assert not_english_reason(text) is None, name
    with DEMO.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            assert not_english_reason(row["content"]) is None, row["title"]


def test_score_warns_once_about_the_files_that_are_not_english(tmp_path: Path) -> None:
    files = {"de.txt": GERMAN, "zh.txt": CHINESE, "en.txt": ENGLISH["Scots"]}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    paths = [str(tmp_path / name) for name in files]
    result = CliRunner().invoke(app, ["ghostwriting", "score", *paths], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert result.stderr.count("warning:") == 1, result.stderr
    assert result.stderr.startswith(
        f"warning: mostly not English: {tmp_path / 'de.txt'} (11 common non-English words "
        f"against 0 English ones); {tmp_path / 'zh.txt'} (not in Latin script). Both rhyme "
        "densities read every word with English pronunciations"
    ), result.stderr
    assert "en.txt" not in result.stderr and "warning" not in result.stdout
    english = CliRunner().invoke(app, ["ghostwriting", "score", paths[2]])
    assert english.exit_code == 0 and "warning" not in english.stderr, english.output


@pytest.mark.parametrize("with_foreign", [True, False])
def test_metrics_flag_the_poems_that_are_not_english(with_foreign: bool) -> None:
    poems = [("h1", "human", ENGLISH["Scots"]), ("m1", "model", ENGLISH["a French phrase"])]
    if with_foreign:
        poems += [("m2", "model", FRENCH), ("m3", "model", CHINESE)]
    generations = pd.DataFrame(
        [(gid, author, f"p{gid}", "ballad", text) for gid, author, text in poems],
        columns=["generation_id", "author", "poem_id", "poem_form", "poem"],
    )
    frame = poem_measures(generations, []).frame
    assert list(frame["english"]) == [True, True, False, False][: len(poems)]
    note = not_english_note(frame)
    if with_foreign:
        assert note is not None and note.startswith("2 poems are mostly not English: model 2;")
    else:
        assert note is None


def test_the_note_lists_authors_in_the_order_of_every_other_note() -> None:
    """Human poets first, then the models in natural order (`author_order`), as the near-copy
    and coverage notes list them; it was a plain sort (Qwen2.5-14B before Qwen2.5-3B, human
    last)."""
    authors = ["Qwen2.5-3B", "human", "Qwen2.5-14B"]
    frame = pd.DataFrame({"author": authors, "english": [False] * 3})
    note = not_english_note(frame)
    assert note is not None
    assert "mostly not English: human 1, Qwen2.5-3B 1, Qwen2.5-14B 1;" in note


def test_the_notes_name_authors_as_the_tables_do() -> None:
    """`analyze` and `ghostwriting metrics` pass each author's display name (the tables' rows
    name it so): the notes named it by key (`markov 2`) beside a row `Markov baseline`. The
    order stays the keys' (`author_order`)."""
    shown = {"human": "Human", "Qwen2.5-3B": "Qwen 3B", "Qwen2.5-14B": "Qwen 14B"}.__getitem__
    authors = ["Qwen2.5-3B", "human", "Qwen2.5-14B"]
    frame = pd.DataFrame({"author": authors, "english": [False] * 3, "near_copy": [True] * 3})
    for note in (not_english_note(frame, shown), near_copy_note(frame, 0.8, shown)):
        assert note is not None and ": Human 1, Qwen 3B 1, Qwen 14B 1;" in note, note


def test_one_poem_not_in_english_is_its_densities() -> None:
    """It said "1 poem is mostly not English: ...; ... so theirs say little"."""
    one = not_english_note(pd.DataFrame({"author": ["model"], "english": [False]}))
    assert one is not None and "so its densities say little about rhyme" in one, one
    two = not_english_note(pd.DataFrame({"author": ["model"] * 2, "english": [False] * 2}))
    assert two is not None and "so theirs say little about rhyme" in two, two
