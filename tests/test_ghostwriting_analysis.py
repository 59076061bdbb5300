"""The ghostwriting tables in `analyze` and the `poemetric ghostwriting metrics | score` commands."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from test_runner_support import FAST, prepared_store, scripted_spec, use_scripted
from typer.testing import CliRunner

from poemetric.analysis import analyze_run
from poemetric.cli import app
from poemetric.cli.ghostwriting_cmd import NEAR_COPY_DEFAULT
from poemetric.generation.stage import run_generation
from poemetric.ghostwriting.metrics import author_measures, poem_measures
from poemetric.ghostwriting.tables import ghostwriting_tables
from poemetric.ghostwriting.uniqueness import NEAR_COPY_THRESHOLD
from poemetric.providers.base import Completion, GenerationRequest
from poemetric.report import build_report
from poemetric.store import RunStore

REQUIRED = {"author", "rhyme_density", "rhyme_density_raplyzer", "uniqueness", "near_copies"}


@pytest.fixture(scope="module")
def reciting_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Demo poems, their human rows and a model that recites each original."""
    run = tmp_path_factory.mktemp("run")
    use_scripted(lambda request, number: Completion(text=request.context["original"]))
    store = prepared_store(run, poems=6)
    run_generation(store, [scripted_spec(name="reciter")], options=FAST)
    store.close()
    return run


def test_analyze_writes_the_per_author_ghostwriting_table(
    reciting_run: Path, tmp_path: Path
) -> None:
    with RunStore(reciting_run, create=False) as store:
        result = analyze_run(store)
    result.write(tmp_path)
    table = pd.read_csv(tmp_path / "ghostwriting.csv").set_index("author")
    assert REQUIRED - {"author"} <= set(table.columns)
    assert list(table.index) == ["human", "reciter"]
    # The reciter copies every original: uniqueness 1.0, every poem a near-copy; the human poems
    # are compared with the other poems only.
    assert table.loc["reciter", "uniqueness"] == 1.0 and table.loc["reciter", "near_copies"] == 6
    assert table.loc["human", "near_copies"] == 0 and table.loc["human", "uniqueness"] < 0.3
    assert table.loc["human", "rhyme_density"] == table.loc["reciter", "rhyme_density"]
    poems = pd.read_csv(tmp_path / "ghostwriting_poems.csv")
    copied = poems[poems["author"] == "reciter"]
    assert (copied["nearest_reference_id"] == copied["poem_id"]).all()
    assert poems["english"].all()  # the demo poems are English: no note says otherwise
    assert not any("not English" in note for note in result.notes)
    assert (tmp_path / "ghostwriting.md").is_file() and (tmp_path / "ghostwriting.tex").is_file()
    assert any("6 poems are near-copies" in note for note in result.notes)


def test_excluding_the_original_hides_a_copy_of_it(reciting_run: Path) -> None:
    from poemetric.ghostwriting.metrics import GhostwritingOptions

    with RunStore(reciting_run, create=False) as store:
        result = ghostwriting_tables(store, options=GhostwritingOptions(exclude_original=True))
    table = result.tables["ghostwriting"].set_index("author")
    assert table.loc["reciter", "uniqueness"] < 0.3 and table.loc["reciter", "near_copies"] == 0


def test_metrics_command_with_an_extra_corpus(reciting_run: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "unrelated.txt").write_text("a quiet river wanders through the town\n")
    out = tmp_path / "out"
    args = ["ghostwriting", "metrics", "--run", str(reciting_run), "--reference", str(corpus),
            "--no-dataset", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    poems = pd.read_csv(out / "ghostwriting_poems.csv")
    assert set(poems["nearest_reference_id"]) == {"corpus/unrelated.txt"}
    bad = CliRunner().invoke(
        app, ["ghostwriting", "metrics", "--run", str(reciting_run), "--no-dataset"]
    )
    assert bad.exit_code == 2 and "--reference" in bad.output


def test_empty_files_in_a_reference_folder_are_skipped_and_named(
    reciting_run: Path, tmp_path: Path
) -> None:
    """One empty .txt in a --reference folder aborted the command (`refs/empty.txt:1: the file
    is empty`); it is now left out with a warning naming it, and counted in the summary. A
    folder of empty files only is still refused."""
    corpus = tmp_path / "refs"
    corpus.mkdir()
    (corpus / "unrelated.txt").write_text("a quiet river wanders through the town\n")
    (corpus / "empty.txt").write_text("")
    (corpus / "blank.txt").write_text("  \n\n")
    out = tmp_path / "out"
    args = ["ghostwriting", "metrics", "--run", str(reciting_run), "--reference", str(corpus),
            "--no-dataset", "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 0, result.output
    assert result.stderr == (
        f"warning: skipped 2 empty reference files: {corpus / 'blank.txt'}, "
        f"{corpus / 'empty.txt'}\n"
    )
    assert "reference corpus: 1 text from --reference (2 empty files skipped)" in (result.stdout)
    poems = pd.read_csv(out / "ghostwriting_poems.csv")
    assert set(poems["nearest_reference_id"]) == {"refs/unrelated.txt"}
    (corpus / "unrelated.txt").write_text("")
    assert _reference_error(reciting_run, corpus) == (
        f"error: reference corpus: {corpus}: every .txt file in this folder is empty (3)\n"
    )


def _reference_error(run: Path, corpus: Path) -> str:
    """stderr of `ghostwriting metrics --reference CORPUS`, which must refuse the corpus."""
    args = ["ghostwriting", "metrics", "--run", str(run), "--reference", str(corpus)]
    result = CliRunner().invoke(app, args, terminal_width=200)
    assert result.exit_code == 2 and result.stdout == "", result.output
    return result.stderr


def test_a_reference_text_that_is_not_a_string_is_named_so(
    reciting_run: Path, tmp_path: Path
) -> None:
    """`{"text": 5}` was reported as "empty text"."""
    corpus = tmp_path / "refs.jsonl"
    corpus.write_text('{"text": 5}\n{"content": ["a", "b"]}\n{"text": "fine"}\n')
    assert _reference_error(reciting_run, corpus) == (
        f"error: reference corpus: {corpus}:1: text is not a string (found 5)\n"
        f'{corpus}:2: content is not a string (found ["a", "b"])\n'
    )


def test_reference_problems_come_in_file_order_without_a_column_dash(
    reciting_run: Path, tmp_path: Path
) -> None:
    """A bad JSON line came out as `refs.jsonl:3: -: bad JSON: ...` (the `-` of a dataset
    validator's empty column) and ahead of the problems of lines 1 and 5."""
    corpus = tmp_path / "refs.jsonl"
    corpus.write_text(
        '{"text": ""}\n{"text": "ok", "id": "a"}\n{"text": \n\n{"text": "x", "id": "a"}\n'
    )
    assert _reference_error(reciting_run, corpus) == (
        f"error: reference corpus: {corpus}:1: empty text (columns text, content)\n"
        f"{corpus}:3: bad JSON: Expecting value at column 10\n"
        f"{corpus}:5: id 'a' appears twice\n"
    )


def test_a_corpus_holding_the_dataset_poems_is_not_their_copy(
    reciting_run: Path, tmp_path: Path
) -> None:
    """The dataset file given as --reference (which docs/ghostwriting.md says works as it is) or
    any corpus holding the poems: a human poem is still compared with the other texts only, and
    --exclude-original still hides the original. Every human poem was a 1.0 'near-copy' of
    itself, and the reciter of its original."""
    with RunStore(reciting_run, create=False) as store:
        rows = store.query("SELECT poem_id, content FROM poems")
    corpus = tmp_path / "poems.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": f"copy-{r['poem_id']}", "text": r["content"] + "\n"}) + "\n"
            for r in rows
        ),
        encoding="utf-8",
    )

    def table(*extra: str) -> pd.DataFrame:
        out = tmp_path / "-".join(["out", *extra])
        args = ["ghostwriting", "metrics", "--run", str(reciting_run), "--reference", str(corpus),
                "--out", str(out), *extra]  # fmt: skip
        result = CliRunner().invoke(app, args, terminal_width=200)
        assert result.exit_code == 0, result.output
        return pd.read_csv(out / "ghostwriting.csv").set_index("author")

    for extra in ([], ["--no-dataset"]):
        scores = table(*extra)
        assert scores.loc["human", "near_copies"] == 0 and scores.loc["human", "uniqueness"] < 0.3
        assert scores.loc["reciter", "uniqueness"] == 1.0  # still caught reciting
        hidden = table(*extra, "--exclude-original")
        assert hidden.loc["reciter", "near_copies"] == 0
        assert hidden.loc["reciter", "uniqueness"] == scores.loc["human", "uniqueness"]


def test_a_corpus_named_twice_or_two_of_one_name_make_no_poem_its_own_copy(
    reciting_run: Path, tmp_path: Path
) -> None:
    """Two texts had one id when a corpus was named twice (`--reference poems.jsonl
    --reference poems.jsonl`) or two corpora had one name (`a/poems.jsonl`, `b/poems.jsonl`):
    a human poem's original is left out by id, one copy stayed in, and every human poem was a
    1.0 near-copy of itself."""
    with RunStore(reciting_run, create=False) as store:
        rows = store.query("SELECT poem_id, content FROM poems")
    lines = "".join(json.dumps({"id": r["poem_id"], "text": r["content"]}) + "\n" for r in rows)
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "poems.jsonl").write_text(lines, encoding="utf-8")
    first, second = str(tmp_path / "a" / "poems.jsonl"), str(tmp_path / "b" / "poems.jsonl")
    for number, references in enumerate(([first, first], [first, second])):
        out = tmp_path / f"out-{number}"
        args = ["ghostwriting", "metrics", "--run", str(reciting_run), "--no-dataset",
                "--out", str(out)]  # fmt: skip
        for reference in references:
            args += ["--reference", reference]
        result = CliRunner().invoke(app, args, terminal_width=200)
        assert result.exit_code == 0, result.output
        scores = pd.read_csv(out / "ghostwriting.csv").set_index("author")
        assert scores.loc["human", "near_copies"] == 0 and scores.loc["human", "uniqueness"] < 0.3
        assert scores.loc["reciter", "uniqueness"] == 1.0
        if number == 0:
            assert "1 reference corpus named more than once, read once" in result.output


def test_score_tells_apart_two_reference_folders_of_one_name(tmp_path: Path) -> None:
    """`score y/poems/a.txt --reference y/poems --reference x/poems`: both folders' texts were
    `poems/...`, so leaving out the poem's own file by id left its own file in, and the poem
    was scored 1.0, a near-copy of itself."""
    for folder, text in (("x", "A different poem of other words\nwith nothing shared\n"),
                         ("y", "My heart is full of wonder\nas skies roll on in thunder\n")):  # fmt: skip
        (tmp_path / folder / "poems").mkdir(parents=True)
        (tmp_path / folder / "poems" / "a.txt").write_text(text, encoding="utf-8")
    (tmp_path / "y" / "poems" / "b.txt").write_text("The wind is still upon the hill\n")
    poem = tmp_path / "y" / "poems" / "a.txt"
    args = ["ghostwriting", "score", str(poem), "--reference", str(tmp_path / "y" / "poems"),
            "--reference", str(tmp_path / "x" / "poems")]  # fmt: skip
    result = CliRunner().invoke(app, args, terminal_width=300)
    assert result.exit_code == 0, result.output
    output = " ".join(result.stdout.split())
    assert "near-copies (>= 0.7): none" in output
    assert "(poems/a.txt)" not in output  # the two folders' texts are told apart by their paths


def test_a_poem_too_short_to_measure_is_left_out_of_its_authors_mean() -> None:
    """A one-word poem's Raplyzer factor was 0 and pulled its author's mean down; it is NaN
    (undefined), which the mean skips, as it skips the density of a poem without syllables."""
    couplet = "My heart is full of wonder\nas skies roll on in thunder"
    generations = pd.DataFrame({"generation_id": ["g1", "g2", "g3"],
                                "author": ["terse", "terse", "mute"], "poem_id": ["p1", "p2", "p1"],
                                "poem_form": ["couplet"] * 3,
                                "poem": [couplet, "Silence", "Silence"]})  # fmt: skip
    poems = poem_measures(generations, []).frame
    assert poems["rhyme_density_raplyzer"].isna().tolist() == [False, True, True]
    table = author_measures(poems).set_index("author")
    assert table.loc["terse", "rhyme_density_raplyzer"] == pytest.approx(4 / 11)
    assert table.loc["terse", "poems"] == 2  # the poem still counts as a poem
    assert math.isnan(table.loc["mute", "rhyme_density_raplyzer"])


def test_tables_and_report_show_an_undefined_raplyzer_mean_as_missing(tmp_path: Path) -> None:
    # Two words, the second without a vowel: no rhyme to measure, yet a poem (two lines).
    use_scripted(lambda request, number: Completion(text="Silence.\nShh."))
    with prepared_store(tmp_path / "run", poems=2) as store:
        run_generation(store, [scripted_spec(name="terse")], options=FAST)
        analyze_run(store).write(tmp_path / "out")
        html = build_report(store, tmp_path / "report.html").read_text(encoding="utf-8")
    table = pd.read_csv(tmp_path / "out" / "ghostwriting.csv").set_index("author")
    assert math.isnan(table.loc["terse", "rhyme_density_raplyzer"])  # an empty CSV field
    assert table.loc["human", "rhyme_density_raplyzer"] > 0
    row = next(r for r in (tmp_path / "out" / "ghostwriting.md").read_text().splitlines()
               if r.startswith("| terse |"))  # fmt: skip
    assert row.split(" | ")[4] == "–", row
    section = html[html.index('id="ghostwriting"') :]
    terse = section[section.index(">terse<") : section.index("</tr>", section.index(">terse<"))]
    assert '<td class="num">–</td>' in terse and "nan" not in terse.lower()


def test_an_author_with_poems_for_fewer_prompts_is_named_in_a_note(tmp_path: Path) -> None:
    """`demo --local` adds SmolLM2's 4 sonnets beside 16 human poems of four forms: its row's
    means were set beside the human row's over all 16, whose rhyme densities differ by form,
    and nothing said the two rows measured different prompts."""
    use_scripted(lambda request, number: Completion(text=request.context["original"]))
    with prepared_store(tmp_path / "run", poems=6) as store:
        run_generation(store, [scripted_spec(name="reciter")], options=FAST)
        run_generation(store, [scripted_spec(name="late")], options=replace(FAST, limit=2))
        # Answers every prompt, two of them (re-asks too) with a refusal (not a poem,
        # `poems_only`): those prompts were counted as not answered ("refuser 4", no more).
        refused: list[str] = []

        def refusing(request: GenerationRequest, number: int) -> Completion:
            original = request.context["original"]
            if original in refused or len(refused) < 2:
                refused.append(original)
                return Completion(text="I'm sorry, I can't write that.")
            return Completion(text=original)

        use_scripted(refusing)
        run_generation(store, [scripted_spec(name="refuser", model="refusing-1")], options=FAST)
        result = ghostwriting_tables(store)
    table = result.tables["ghostwriting"].set_index("author")
    assert table.loc[["human", "reciter", "late", "refuser"], "poems"].tolist() == [6, 6, 2, 4]
    said = [note for note in result.notes if "fewer of the 6 prompts" in note]
    assert len(said) == 1 and "reciter" not in said[0], said
    assert ": late 2 (4 not answered); refuser 4 (2 answered with no poem);" in said[0], said
    cli = CliRunner().invoke(app, ["ghostwriting", "metrics", "--run", str(tmp_path / "run")])
    assert cli.exit_code == 0 and "fewer of the 6 prompts" in " ".join(cli.output.split())


def test_score_command_prints_both_densities(tmp_path: Path) -> None:
    poem = tmp_path / "couplet.txt"
    poem.write_text("My heart is full of wonder\nas skies roll on in thunder\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["ghostwriting", "score", str(poem), "--rhymes"], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    assert "0.286" in result.output and "0.364" in result.output
    assert "wonder / thunder" in result.output


def test_score_command_prints_no_minus_zero_for_a_one_word_poem(tmp_path: Path) -> None:
    poem = tmp_path / "i.txt"
    poem.write_text("I I I\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["ghostwriting", "score", str(poem)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "-0.000" not in result.output and "0.000" in result.output


def test_score_command_gives_each_poem_the_ttr_analyze_gives_it(tmp_path: Path) -> None:
    """`ghostwriting score` on a folder of poems gave no type-token ratio: only `analyze` did,
    for a run's poems. Its TTR column is the value `analyze`'s per-poem features hold."""
    from poemetric.analysis.features import poem_features

    texts = {
        "a.txt": "The cat sat on the mat today\nThe rat ran off along the way\n",
        "b.txt": "Upon the hill the wind is still\nAnd still the mill is on the hill\n",
    }
    folder = tmp_path / "poems"
    folder.mkdir()
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["ghostwriting", "score", str(folder)], terminal_width=200)
    assert result.exit_code == 0, result.output
    rows = [[cell.strip() for cell in line.split("│")[1:-1]]
            for line in result.stdout.splitlines() if line.startswith("│")]  # fmt: skip
    rows = [row for row in rows if row[-1]]  # a long file name folds onto more lines
    header = next(line for line in result.stdout.splitlines() if "syllables" in line)
    assert header.split("┃")[-2].strip() == "TTR"
    columns = {"generation_id": list(texts), "author": "me", "poem_form": "sonnet",
               "poem": list(texts.values()), "poem_id": list(texts), "human_poem": ""}  # fmt: skip
    generations = pd.DataFrame(columns)
    features = poem_features(generations).set_index("generation_id")
    assert [row[-1] for row in rows] == [f"{features.at[name, 'ttr']:.3f}" for name in texts]
    assert [row[-1] for row in rows] == ["0.786", "0.600"]  # 11 of 14 tokens; 9 of 15


def test_score_command_reports_a_file_that_is_not_text(tmp_path: Path) -> None:
    """(A Latin-1 `café` is Windows-1252 text: read with a warning, tests/test_text_file_encodings.)"""
    poem = tmp_path / "binary.txt"
    poem.write_bytes(b"caf\x81 au lait\n")  # 0x81: neither UTF-8 nor Windows-1252
    result = CliRunner().invoke(app, ["ghostwriting", "score", str(poem)], terminal_width=200)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(
        f"error: {poem}:1: not valid UTF-8 (byte 0x81 at offset 3), nor Windows-1252"
    )


def test_cli_default_threshold_is_the_documented_one() -> None:
    assert NEAR_COPY_DEFAULT == NEAR_COPY_THRESHOLD


def test_the_ghostwriting_figure_is_drawn(reciting_run: Path, tmp_path: Path) -> None:
    from poemetric.analysis import render_figures
    from poemetric.analysis.recipes import FigureSpec, Recipe

    recipe = Recipe(figures=[FigureSpec(name="gw", kind="ghostwriting")])
    with RunStore(reciting_run, create=False) as store:
        report = render_figures(store, tmp_path, formats=["png"], recipe=recipe)
    assert sorted(p.name for p in report.paths) == ["gw.caption.txt", "gw.png"]
    assert not report.skipped
    assert "95% CI" in (tmp_path / "gw.caption.txt").read_text()


def test_the_report_lists_near_copies_with_their_source(reciting_run: Path, tmp_path: Path) -> None:
    with RunStore(reciting_run, create=False) as store:
        html = build_report(store, tmp_path / "report.html").read_text(encoding="utf-8")
    section = html[html.index('id="ghostwriting"') :]
    section = section[: section.index("</section>")]
    assert "Near-copies (6)" in section and section.count("1.000") == 6


def test_score_and_metrics_tables_never_cut_a_file_or_author_name(tmp_path: Path) -> None:
    """At 80 columns (a terminal, or the width Rich takes for a pipe: `score drafts/*.txt >
    out.txt`) long names were cut to `/tmp/pytest-…`, the same for every file, so the rows could
    not be told apart (and `smollm2-135m` to `smollm2-1…`). The name column now folds: every
    name is there in full."""
    names = [tmp_path / f"a-long-folder-name/sonnet-by-some-model-sample-{i}.txt" for i in (1, 2)]
    names[0].parent.mkdir()
    for name in names:
        name.write_text(
            "My heart is full of wonder\nas skies roll on in thunder\n", encoding="utf-8"
        )
    result = CliRunner().invoke(app, ["ghostwriting", "score", *map(str, names)], terminal_width=80)
    assert result.exit_code == 0, result.output
    first_column = [
        line.split("│")[1].strip() for line in result.output.splitlines() if "│" in line
    ]
    assert "".join(first_column) == "".join(map(str, names))

    model = "a-model-with-a-long-name"
    use_scripted(lambda request, number: Completion(text=request.context["original"]))
    with prepared_store(tmp_path / "run", poems=2) as store:
        run_generation(store, [scripted_spec(name=model)], options=FAST)
    args = ["ghostwriting", "metrics", "--run", str(tmp_path / "run")]
    metrics = CliRunner().invoke(app, args, terminal_width=80)
    assert metrics.exit_code == 0, metrics.output
    authors = [line.split("│")[1].strip() for line in metrics.output.splitlines() if "│" in line]
    assert "".join(authors) == "Human" + model  # display names, as the tables' files


def test_score_command_reads_a_folder_of_poems(tmp_path: Path) -> None:
    """`ghostwriting score my-poems/` was refused (`is a folder; give a file`) while `metrics
    --reference` reads a folder of .txt files: a folder now means its .txt files, in name order."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "b.txt").write_text("My heart is full of wonder\nas skies roll on in thunder\n")
    (folder / "a.txt").write_text("The day is long\nI sing my song\n")
    (folder / "notes.md").write_text("not a poem\n")
    result = CliRunner().invoke(
        app, ["ghostwriting", "score", str(folder), "--rhymes"], terminal_width=200
    )
    assert result.exit_code == 0, result.output
    listed = [line.split(":")[0] for line in result.stdout.splitlines() if " / " in line]
    assert listed == [str(folder / "a.txt"), str(folder / "b.txt")]
    assert "notes.md" not in result.stdout and "0.286" in result.stdout
    (tmp_path / "empty").mkdir()
    empty = CliRunner().invoke(app, ["ghostwriting", "score", str(tmp_path / "empty")])
    assert empty.exit_code == 2 and "no .txt files" in empty.stderr


def test_score_says_why_uniqueness_is_missing_and_computes_it_with_a_reference(
    tmp_path: Path,
) -> None:
    """`score` on one's own poems gave rhyme densities only, with no word on uniqueness (which
    `metrics` reports for a run). It needs a reference corpus: without `--reference` the output
    now says so and what to run; with it, a uniqueness column, each poem's nearest text and the
    near-copies; a poem is not compared with its own file in a `--reference` folder."""
    import csv

    demo = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "poems.csv"
    with demo.open(encoding="utf-8", newline="") as handle:
        sonnet = next(row["content"] for row in csv.DictReader(handle))
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "copy.txt").write_text(sonnet + "\n", encoding="utf-8")
    (folder / "new.txt").write_text("My heart is full of wonder\nas skies roll on in thunder\n")
    runner = CliRunner()
    plain = runner.invoke(app, ["ghostwriting", "score", str(folder)], terminal_width=200)
    assert plain.exit_code == 0, plain.output
    said = " ".join(plain.stderr.split())
    assert "no uniqueness column without --reference CORPUS" in said
    assert "--reference CORPUS" in said and "--help" in said
    args = ["ghostwriting", "score", str(folder), "--reference", str(demo)]
    scored = runner.invoke(app, args, terminal_width=200)
    assert scored.exit_code == 0, scored.output
    assert "uniqueness" in scored.stdout and "not computed" not in scored.stderr
    cells = [line.split("│")[1:-1] for line in scored.stdout.splitlines() if "│" in line]
    uniqueness = [row[-1].strip() for row in cells if row[1].strip()]  # copy.txt, new.txt
    assert uniqueness[0] == "1.000" and float(uniqueness[1]) < 0.2
    assert f"{folder / 'copy.txt'}: nearest William Shakespeare: Sonnet 18" in scored.stdout
    assert f"near-copies (>= 0.7): {folder / 'copy.txt'}" in scored.stdout
    assert "16 reference texts" in scored.stdout
    # Its own folder as the corpus: each poem against the other, never against itself.
    itself = runner.invoke(
        app, ["ghostwriting", "score", str(folder), "--reference", str(folder)], terminal_width=200
    )
    assert itself.exit_code == 0, itself.output
    assert f"{folder / 'copy.txt'}: nearest new (mine/new.txt)" in itself.stdout
    assert "near-copies (>= 0.7): none" in itself.stdout
    alone = runner.invoke(
        app,
        ["ghostwriting", "score", str(folder / "new.txt"), "--reference", str(folder / "new.txt")],
    )
    assert alone.exit_code == 2 and "no text but the poems scored" in alone.stderr
