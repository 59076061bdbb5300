"""The lexical and ghostwriting measures are over poems: answers that are not poems (a refusal, an
empty or one-line answer: `poemetric.screening`, the rule the judge stage leaves them unjudged
by) are left out and counted per author, while the form check still counts them as failures.
"Roses are red." had TTR 1.0, and a refusal's words were a model's top words."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_analysis_scores import _fill

from poemetric.analysis import analyze_run
from poemetric.analysis.context import FigureContext
from poemetric.analysis.data import load_run_data
from poemetric.analysis.poems_only import poems_only
from poemetric.ghostwriting.tables import ghostwriting_tables
from poemetric.providers.base import ModelSpec
from poemetric.report import build_report
from poemetric.store import RunStore
from poemetric.store.models import record_models

NOT_POEMS = {
    "bot-refusal": "I'm sorry, but I can't write that poem.",
    "bot-one-line": "Roses are red.",
}


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    with RunStore(tmp_path / "run") as run_store:
        _fill(run_store)
        for index, (generation_id, text) in enumerate(NOT_POEMS.items(), start=2):
            run_store.save_generation({"generation_id": generation_id, "prompt_id": "q1",
                                       "poem_id": "p1", "author": "bot", "sample_index": index,
                                       "status": "ok", "poem": text})  # fmt: skip
            run_store.save_form_check({"generation_id": generation_id, "checker_version": "t",
                                       "passed": 0, "form_score": 0.0})  # fmt: skip
        yield run_store


def test_lexical_tables_leave_out_answers_that_are_not_poems(store: RunStore) -> None:
    result = analyze_run(store, n_boot=0)
    lexical = result.table("lexical").set_index("author")
    assert lexical.at["bot", "n"] == 2  # its two poems, not the refusal and the one-liner
    # bot-p1 "the sea the sea / the moon" 3 types of 6 and bot-p2 "rain rain / bright road" 3/4
    assert lexical.at["bot", "ttr_mean"] == pytest.approx((3 / 6 + 3 / 4) / 2)
    words = set(result.table("top_words").query("author == 'bot'")["word"])
    assert words.isdisjoint({"roses", "red", "sorry", "write", "poem"}), words
    openings = set(result.table("opening_words").query("author == 'bot'")["word"])
    assert openings == {"The", "Rain"}, openings
    # The form check still counts them: a refusal fails the form.
    checks = result.table("form_checks").set_index("author")
    assert checks.at["bot", "n"] == 3 and checks.at["bot", "n_unchecked"] == 1
    (note,) = [n for n in result.notes if "not poems" in n and "lexical tables" in n]
    assert "2 generations are not poems" in note and "bot 2 of 4" in note, note
    assert "human" not in note.split("by author,")[1], note
    for name in ("lexical", "top_words", "opening_words", "imagery", "profile_similarity"):
        assert "bot 2 of 4" in result.caption(name), name


def test_ghostwriting_tables_leave_out_answers_that_are_not_poems(store: RunStore) -> None:
    result = ghostwriting_tables(store)
    table = result.tables["ghostwriting"].set_index("author")
    assert table.at["bot", "poems"] == 2
    assert set(result.tables["ghostwriting_poems"]["generation_id"]).isdisjoint(NOT_POEMS)
    assert any("ghostwriting tables" in n and "bot 2 of 4" in n for n in result.notes)


def test_the_figures_measure_poems_and_say_so(store: RunStore) -> None:
    context = FigureContext(load_run_data(store))
    assert set(context.generations["generation_id"]).isdisjoint(NOT_POEMS)
    assert len(context.generations) == 4
    assert context.lexical.set_index("author").at["bot", "n"] == 2
    assert "are left out: bot 2 of 4." in context.not_poems_sentence()


def test_a_run_of_poems_only_has_no_note(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as run_store:
        _fill(run_store)
        data = load_run_data(run_store)
        result = analyze_run(run_store, n_boot=0, data=data)
    assert len(poems_only(data.generations)) == len(data.generations)
    assert not any("not poems" in n for n in result.notes)
    assert "poems only" not in result.caption("lexical")
    assert FigureContext(data).not_poems_sentence() == ""


def test_the_report_says_which_answers_its_lexical_section_leaves_out(
    store: RunStore, tmp_path: Path
) -> None:
    """The ghostwriting section dropped a model whose answers were all refusals without a word,
    and the leaderboard sent the reader to the overview's notes, which name each author by key
    (`markov`) beside rows naming it by display name (`Markov baseline`)."""
    store.save_generation({"generation_id": "markov-p1", "prompt_id": "q1", "poem_id": "p1",
                           "author": "markov", "status": "ok", "poem": "Roses are red."})  # fmt: skip
    html = build_report(store, tmp_path / "report.html").read_text(encoding="utf-8")
    for name in ("lexical", "ghostwriting", "leaderboard"):
        section = html[html.index(f'id="{name}"') :]
        section = section[: section.index("</table>")]
        assert "answers that are not poems (empty, a refusal" in section.lower(), name
        assert "bot 2 of 4, Markov baseline 1 of 1." in section, name


def test_ghostwriting_metrics_help_names_every_kind_of_answer_it_leaves_out() -> None:
    """`ghostwriting metrics --help` listed "empty, a refusal, one line" and left out the answers
    not in Latin script, which the command leaves out too (`NOT_POEM_KINDS`)."""
    from typer.testing import CliRunner

    from poemetric.analysis.poems_only import NOT_POEM_KINDS
    from poemetric.cli import app

    said = CliRunner().invoke(app, ["ghostwriting", "metrics", "--help"], env={"COLUMNS": "400"})
    assert said.exit_code == 0, said.output
    text = " ".join(said.output.split())
    assert f"not poems ({NOT_POEM_KINDS})" in text, text


def test_the_note_names_only_the_lexical_tables_made(store: RunStore) -> None:
    """Without human poems there is no `profile_similarity`; the left-out note named it anyway
    (the human row relabelled as another author: a run of LLM poems only)."""
    with store.conn:
        store.conn.execute("UPDATE generations SET author = 'poet-model' WHERE author = 'human'")
    result = analyze_run(store, n_boot=0)
    assert "profile_similarity" not in result.tables
    (note,) = [n for n in result.notes if "not poems" in n and "lexical tables" in n]
    assert "profile_similarity" not in note and "opening_words" in note, note


def test_the_table_captions_count_them_by_display_name(store: RunStore) -> None:
    """The ghostwriting and judge score tables' captions said nothing of the answers they leave
    out (NOTES.txt did), and the lexical tables' captions named their authors by key (`markov 1
    of 1`) beside rows that name them by display name (`Markov baseline`)."""
    store.save_generation({"generation_id": "markov-p1", "prompt_id": "q1", "poem_id": "p1",
                           "author": "markov", "status": "ok", "poem": "Roses are red."})  # fmt: skip
    result = analyze_run(store, n_boot=0)
    for name in ("ghostwriting", "lexical", "top_words", "dimension_scores", "group_scores"):
        assert "(bot 2 of 4, Markov baseline 1 of 1)" in result.caption(name), name


def test_the_notes_name_authors_as_the_tables_do(store: RunStore) -> None:
    """The notes of `analyze` (NOTES.txt, the report's overview) named each author by key
    (`markov 1 of 2`, `no form check (markov 2)`) beside tables, figures and captions that name
    it by display name (`Markov baseline`); the commands in them keep what is typed."""
    store.save_generation({"generation_id": "markov-p1", "prompt_id": "q1", "poem_id": "p1",
                           "author": "markov", "status": "ok", "poem": "Roses are red."})  # fmt: skip
    store.save_generation({"generation_id": "markov-p2", "prompt_id": "q2", "poem_id": "p2",
                           "author": "markov", "status": "ok", "poem": "rain on\nthe road"})  # fmt: skip
    store.save_generation({"generation_id": "markov-failed", "prompt_id": "q2", "poem_id": "p2",
                           "author": "markov", "sample_index": 1, "status": "error",
                           "error": "timeout"})  # fmt: skip
    store.save_judgment({"judgment_id": "markov-p1-0", "generation_id": "markov-p1",
                         "judge": "j", "sample_index": 0, "status": "not_judged"})  # fmt: skip
    # The judge too is named as the tables name it (`Judge J`); its command keeps `j`.
    record_models(store, "judge", [ModelSpec(name="j", provider="openai", model="j-model",
                                             display_name="Judge J")])  # fmt: skip
    notes = "\n".join(analyze_run(store, n_boot=0).notes)
    for said in (
        "(by author, bot 1 of 5, Markov baseline 1 of 3 generations)",  # failed
        "not made: the answer was not a poem (empty, a refusal, a single line, or not in Latin script): "
        "by author, Markov baseline 1 of 2 generations;",  # not judged
        "have no form check (Markov baseline 2)",
        "not judged by Judge J (bot 2, Markov baseline 1): its tables cover only the judged "
        "ones; run `poemetric judge --run",
        "lexical tables (lexical, top_words, imagery, opening_words, profile_similarity): by "
        "author, bot 2 of 4, Markov baseline 1 of 2 generations",
        "ghostwriting tables: by author, bot 2 of 4, Markov baseline 1 of 2 generations",
        "than the human row: Markov baseline 1 (1 answered with no poem)",
    ):
        assert said in notes, (said, notes)
    assert "markov" not in notes and "judged by j " not in notes, notes
    assert "--judge j`" in notes, notes


def test_ghostwriting_metrics_writes_the_tables_analyze_writes(store: RunStore) -> None:
    """`poemetric ghostwriting metrics` captioned its per-author table without the answers it
    leaves out as not poems (only its console note, by model key, said so) and named the rows
    by key (`human`, where `analyze` writes `Human`), with no word of the intervals: its
    Markdown and LaTeX tables now are `analyze`'s, count and display names included."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    store.save_generation({"generation_id": "markov-p1", "prompt_id": "q1", "poem_id": "p1",
                           "author": "markov", "status": "ok", "poem": "Roses are red."})  # fmt: skip
    analyzed, measured = store.run_dir / "analyzed", store.run_dir / "measured"
    analyze_run(store, n_boot=0).write(analyzed)
    args = ["ghostwriting", "metrics", "--run", str(store.run_dir), "--out", str(measured)]
    said = CliRunner().invoke(app, args, terminal_width=200)
    assert said.exit_code == 0, said.output
    # Its console table named the rows by key too (`human`) beside files that say `Human`.
    rows = [line.split("│")[1].strip() for line in said.stdout.splitlines() if "│" in line]
    assert rows == ["Human", "bot"], said.stdout
    table = (measured / "ghostwriting.md").read_text(encoding="utf-8")
    assert "(bot 2 of 4, Markov baseline 1 of 1)" in table.splitlines()[0], table
    # Its notes named the author by key (`markov 1 of 1`) beside that caption.
    printed = " ".join(said.stdout.split())
    assert "ghostwriting tables: by author, bot 2 of 4, Markov baseline 1 of 1 " in printed, printed
    for suffix in (".md", ".tex"):
        name = "ghostwriting" + suffix
        assert (measured / name).read_text(encoding="utf-8") == (analyzed / name).read_text(
            encoding="utf-8"
        ), name


def test_the_judge_figures_say_whose_answers_the_judge_left_unjudged(
    store: RunStore, tmp_path: Path
) -> None:
    """A judge figure (Fig. 9's ranking, the App. H heatmap) said "2 poems per author" without a
    word of bot's 2 answers that were not poems (a model that refused every prompt was missing
    from it unsaid), where the lexical figures' captions count them per author."""
    from poemetric.analysis import render_figures
    from poemetric.analysis.recipes import FigureSpec, Recipe

    recipe = Recipe(figures=[FigureSpec(name="matrix", kind="heatmap")])
    report = render_figures(store, tmp_path / "figures", recipe=recipe, formats=("png",))
    assert [path.name for path in report.paths] == ["matrix.png", "matrix.caption.txt"]
    caption = (tmp_path / "figures" / "matrix.caption.txt").read_text(encoding="utf-8").strip()
    assert caption.endswith(
        " Answers that are not poems (empty, a refusal, a single line, or not in Latin script) "
        "are left out, as the judge stage leaves them unjudged: bot 2 of 4."
    ), caption
