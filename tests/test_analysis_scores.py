"""Per-author aggregation, expert ratings and agreement on a hand-filled run store."""

from __future__ import annotations

import math
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from poemetric.analysis import ExpertRatingsError, analyze_run, load_expert_ratings
from poemetric.analysis.data import load_run_data
from poemetric.analysis.scores import dimension_scores, group_scores
from poemetric.judge import DIMENSION_KEYS
from poemetric.store import RunStore

BASE = dict.fromkeys(DIMENSION_KEYS, 3)


def _fill(store: RunStore) -> None:
    """Two prompts (sonnet, ballad); authors human and bot; hand-chosen scores."""
    template = store.add_template("t", "Write a {form}.")
    store.add_poems([
        {"poem_id": "p1", "dataset": "t", "position": 0, "form": "sonnet",
         "content": "the moon over the sea", "record": "{}"},
        {"poem_id": "p2", "dataset": "t", "position": 1, "form": "ballad",
         "content": "a road in the rain", "record": "{}"},
    ])  # fmt: skip
    store.add_prompts([
        {"prompt_id": f"q{i}", "poem_id": f"p{i}", "template_hash": template, "text": "x"}
        for i in (1, 2)
    ])  # fmt: skip
    poems = {  # two lines each: a one-line answer is not a poem (`poemetric.screening`)
        ("human", "p1"): "the moon over\nthe sea",
        ("human", "p2"): "a road\nin the rain",
        ("bot", "p1"): "the sea the sea\nthe moon",
        ("bot", "p2"): "rain rain\nbright road",
    }
    for (author, poem_id), text in poems.items():
        store.save_generation({"generation_id": f"{author}-{poem_id}", "prompt_id": f"q{poem_id[1]}",
                               "poem_id": poem_id, "author": author, "status": "ok", "poem": text})  # fmt: skip
    store.save_generation({"generation_id": "bot-failed", "prompt_id": "q1", "poem_id": "p1",
                           "author": "bot", "sample_index": 1, "status": "error", "error": "timeout"})  # fmt: skip
    judgments = [
        # (generation, sample, overrides)
        ("human-p1", 0, {"form": 5, "overall_quality": 5, "imagery": 4}),
        ("human-p2", 0, {"form": 3, "overall_quality": 4, "imagery": 0}),
        ("bot-p1", 0, {"form": 4, "overall_quality": 2, "imagery": 0, "literary_devices": 0}),
        ("bot-p1", 1, {"form": 2, "overall_quality": 2, "imagery": 0, "literary_devices": 4}),
        ("bot-p2", 0, {"form": 4, "overall_quality": 3, "imagery": 2}),
    ]
    for generation_id, sample, overrides in judgments:
        store.save_judgment({"judgment_id": f"{generation_id}-{sample}", "generation_id": generation_id,
                             "judge": "j", "sample_index": sample, "status": "ok", **BASE, **overrides})  # fmt: skip
    store.save_judgment({"judgment_id": "bad", "generation_id": "bot-p2", "judge": "j",
                         "sample_index": 2, "status": "error", "error": "unparseable"})  # fmt: skip
    for generation_id, passed, score in [("human-p1", 1, 0.9), ("human-p2", 1, 0.8),
                                         ("bot-p1", 0, 0.5), ("bot-p2", None, None)]:  # fmt: skip
        store.save_form_check({"generation_id": generation_id, "checker_version": "t",
                               "passed": passed, "form_score": score})  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    with RunStore(tmp_path / "run") as run_store:
        _fill(run_store)
        yield run_store


def _cell(frame: pd.DataFrame, author: str, dimension: str, column: str) -> float:
    row = frame[(frame["author"] == author) & (frame["dimension"] == dimension)]
    assert len(row) == 1
    return float(row.iloc[0][column])


def test_dimension_means_average_samples_and_exclude_na(store: RunStore) -> None:
    data = load_run_data(store)
    assert any("1 generation failed" in note for note in data.notes)
    assert any("1 judgment failed" in note for note in data.notes)
    scores = dimension_scores(data.judgments)
    assert list(scores["author"].unique()) == ["human", "bot"]
    # bot-p1 samples 4 and 2 average to 3; bot-p2 says 4 -> mean 3.5 over 2 poems.
    assert _cell(scores, "bot", "form", "mean") == pytest.approx(3.5)
    assert _cell(scores, "bot", "form", "n") == 2
    # imagery: bot-p1 is N/A in both samples -> excluded; only bot-p2 (2) counts.
    assert _cell(scores, "bot", "imagery", "mean") == pytest.approx(2.0)
    assert _cell(scores, "bot", "imagery", "na_share") == pytest.approx(0.5)
    # literary devices: bot-p1 samples 0 (N/A) and 4 -> 4; bot-p2 3 -> mean 3.5, no N/A poem.
    assert _cell(scores, "bot", "literary_devices", "mean") == pytest.approx(3.5)
    assert _cell(scores, "bot", "literary_devices", "na_share") == 0
    assert _cell(scores, "human", "overall_quality", "mean") == pytest.approx(4.5)
    assert _cell(scores, "human", "overall_quality", "sd") == pytest.approx(0.70710678)
    # t interval with 1 df: mean +- 12.706 * sd / sqrt(2)
    # the t interval 4.5 ± 12.7062 × 0.5 reaches 10.85, past the scale: clipped to its top
    assert 4.5 + 12.7062 * 0.5 > 5
    assert _cell(scores, "human", "overall_quality", "ci_high") == 5.0
    assert _cell(scores, "human", "overall_quality", "ci_low") == 1.0
    assert math.isnan(_cell(scores, "human", "form", "na_share"))


def test_dimension_scores_by_form_and_groups(store: RunStore) -> None:
    data = load_run_data(store)
    by_form = dimension_scores(data.judgments, by_form=True)
    human_sonnet = by_form[(by_form["author"] == "human") & (by_form["poem_form"] == "sonnet")
                           & (by_form["dimension"] == "form")]  # fmt: skip
    assert float(human_sonnet["mean"].iloc[0]) == 5
    groups = group_scores(data.judgments).set_index(["author", "part"])["mean"]
    # human basic: p1 (5+3)/2 = 4, p2 (3+3)/2 = 3 -> 3.5
    assert groups[("human", "basic")] == pytest.approx(3.5)
    assert groups[("human", "quality")] == pytest.approx(4.5)
    # poemetric = mean over poems of mean(basic, advanced, quality)
    p1 = (4 + (3 + 3 + 3 + 3 + 4 + 3) / 6 + 5) / 3
    p2 = (3 + (3 + 3 + 3 + 3 + 3) / 5 + 4) / 3
    assert groups[("human", "poemetric")] == pytest.approx((p1 + p2) / 2)


def test_analyze_run_tables_and_files(store: RunStore, tmp_path: Path) -> None:
    result = analyze_run(store)
    checks = result.table("form_checks").set_index("author")
    assert checks.at["human", "pass_rate"] == 1.0
    assert checks.at["bot", "n"] == 1 and checks.at["bot", "n_unchecked"] == 1
    lexical = result.table("lexical").set_index("author")
    # bot-p1 "the sea the sea the moon": all 6 tokens in the original; bot-p2: rain rain road of 4.
    assert lexical.at["bot", "repetition_all_mean"] == pytest.approx((1.0 + 3 / 4) / 2)
    written = result.write(tmp_path / "out")
    names = {p.name for p in written}
    assert {
        "dimension_scores.csv",
        "dimension_scores.tex",
        "dimension_scores.md",
        "NOTES.txt",
    } <= names
    tex = (tmp_path / "out" / "dimension_scores.tex").read_text()
    assert "\\toprule" in tex and "Quality" in tex and "overall\\_quality" not in tex
    md = (tmp_path / "out" / "form_checks.md").read_text()
    assert md.splitlines()[2].startswith("| Author | n | n unchecked | Pass rate [95% CI] |")


def test_judge_filter_and_unknown_judge(store: RunStore) -> None:
    with pytest.raises(ValueError, match="no judgments by judge 'nobody'"):
        analyze_run(store, judge="nobody")


def test_a_judge_whose_every_call_failed_is_named_with_its_first_error(
    store: RunStore, tmp_path: Path
) -> None:
    generation = store.query("SELECT generation_id FROM generations LIMIT 1")[0][0]
    for index, error in enumerate(["connection refused by http://127.0.0.1:9/v1", "HTTP 500"]):
        store.save_judgment(
            {"judgment_id": f"broken-{index}", "generation_id": generation, "judge": "broken",
             "sample_index": index, "status": "error", "error": error,
             "created_at": f"2026-01-0{index + 1}T00:00:00Z"}
        )  # fmt: skip
    with pytest.raises(ValueError) as raised:
        analyze_run(store, judge="broken")
    message = str(raised.value)
    assert "all 2 judgments by judge 'broken' failed" in message
    assert "connection refused by http://127.0.0.1:9/v1" in message


def _write_experts(path: Path, rows: list[dict[str, object]]) -> Path:
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_expert_ratings_agreement(store: RunStore, tmp_path: Path) -> None:
    judge_p1 = {**BASE, "form": 4, "overall_quality": 5, "imagery": 4}
    rows = [
        {"expert": "e1", "generation_id": "human-p1", **judge_p1},  # identical to the judge
        {"expert": "e2", "generation_id": "human-p1", **judge_p1, "form": 5, "overall_quality": 4},
        {"expert": "e1", "poem_id": "p1", "author": "bot", **BASE, "form": 3, "overall_quality": 2,
         "imagery": 0, "literary_devices": 0},
        {"expert": "e2", "poem_id": "p2", "author": "bot", **BASE, "overall_quality": 1, "imagery": ""},
    ]  # fmt: skip
    path = _write_experts(tmp_path / "experts.csv", rows)
    result = analyze_run(store, experts=path, n_boot=20)
    agreement = result.table("agreement").set_index("item")
    assert set(agreement.index) == {*DIMENSION_KEYS, "all"}
    # overall quality pairs (expert, judge): (5,5) (4,5) (2,2) (1,3) -> 2 of 4 agree.
    assert agreement.at["overall_quality", "pao"] == pytest.approx(0.5)
    assert agreement.at["overall_quality", "n_pairs"] == 4
    assert agreement.at["all", "n_pairs"] == 39  # 40 item ratings, one blank
    assert (
        agreement.at["all", "pao_ci_low"]
        <= agreement.at["all", "pao"]
        <= agreement.at["all", "pao_ci_high"]
    )
    discrimination = result.table("discrimination").set_index("rater")
    assert discrimination.at["experts", "mean"] == pytest.approx((5 + 4 + 2 + 1) / 4)
    # judge: human-p1 5, bot-p1 2 and 2 (two samples), bot-p2 3
    assert discrimination.at["j", "mean"] == pytest.approx((5 + 2 + 2 + 3) / 4)
    assert set(result.table("agreement_by_expert")["expert"]) == {"e1", "e2"}
    experts = result.table("expert_scores")
    assert _cell(experts, "human", "form", "mean") == pytest.approx(4.5)


def test_agreement_tables_count_the_poems_their_statistics_compare(
    store: RunStore, tmp_path: Path
) -> None:
    """Two experts who share one poem of the four they rated: `agreement_experts` said
    "Poems 4", though every statistic rests on the one poem both rated (the paper-sized case
    showed 69 with 1 poem paired)."""
    rows = [{"expert": "e1", "generation_id": gid, **BASE}
            for gid in ("human-p1", "human-p2", "bot-p1")]  # fmt: skip
    rows += [{"expert": "e2", "generation_id": gid, **BASE, "form": 4}
             for gid in ("bot-p1", "bot-p2")]  # fmt: skip
    result = analyze_run(store, experts=_write_experts(tmp_path / "experts.csv", rows), n_boot=20)
    panel = result.table("agreement_experts").set_index("item")
    assert set(panel["n_poems"]) == {1} and set(panel["n_poems_rated"]) == {4}
    assert panel.at["all", "n_pairs"] == 10  # one poem x 10 items x one pair of experts
    judge = result.table("agreement").set_index("item")  # the judge rated all four poems
    assert judge.at["all", "n_poems"] == 4 and judge.at["all", "n_poems_rated"] == 4
    result.write(tmp_path / "out")
    caption, _, header, *_ = (tmp_path / "out" / "agreement_experts.md").read_text().splitlines()
    assert header.startswith("| Item | Poems with 2+ ratings | Poems rated |")
    assert "poems with 2+ ratings: those rated at least twice on an item" in caption


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"expert": "e1", "generation_id": "nope", **BASE}, "experts.csv:2: generation_id 'nope'"),
        (
            {"expert": "e1", "generation_id": "bot-p1", **BASE, "theme": 0},
            "experts.csv:2: theme = '0' is outside 1-5",
        ),
        (
            {"expert": "e1", "generation_id": "bot-p1", **BASE, "imagery": 7},
            "imagery = '7' is outside 0-5",
        ),
        (
            {"expert": "e1", "generation_id": "bot-p1", **BASE, "form": "good"},
            "form = 'good' is not a number",
        ),
        ({"expert": "", "generation_id": "bot-p1", **BASE}, "empty expert id"),
        (
            {"expert": "e1", "poem_id": "p9", "author": "bot", **BASE},
            "no successful generation for poem_id='p9'",
        ),
    ],
)
def test_bad_expert_rows_name_file_and_line(
    store: RunStore, tmp_path: Path, row: dict[str, object], message: str
) -> None:
    path = _write_experts(tmp_path / "experts.csv", [row])
    with pytest.raises(ExpertRatingsError, match=message.replace("(", r"\(")):
        load_expert_ratings(path, store)


def test_an_unreadable_expert_record_is_named_without_a_column_dash(
    store: RunStore, tmp_path: Path
) -> None:
    """A record with a field too many came out as `experts.csv:3: -: expected ...` (a dataset
    validator's empty column)."""
    path = _write_experts(
        tmp_path / "experts.csv", [{"expert": "e1", "generation_id": "bot-p1", **BASE}]
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write("e2,bot-p1," + ",".join(["3"] * (len(BASE) + 1)) + "\n")
    with pytest.raises(ExpertRatingsError) as error:
        load_expert_ratings(path, store)
    assert f"{path}:3: expected" in str(error.value) and ": -:" not in str(error.value)


def test_expert_file_problems_are_listed_in_line_order(store: RunStore, tmp_path: Path) -> None:
    """A row with a field too many was listed before every other problem (`:4, :2, :5`)."""
    rows = [
        {"expert": "e1", "generation_id": "bot-p1", **BASE, "creativity": 7},
        {"expert": "e2", "generation_id": "bot-p1", **BASE},
        {"expert": "e3", "generation_id": "zzzz", **BASE},
    ]
    path = _write_experts(tmp_path / "experts.csv", rows)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines.insert(2, "e4,bot-p1," + ",".join(["3"] * (len(BASE) + 1)))  # line 3, one field more
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ExpertRatingsError) as error:
        load_expert_ratings(path, store)
    listed = [line.split(":")[1] for line in str(error.value).splitlines()[1:]]
    assert listed == ["2", "3", "5"], str(error.value)


def test_expert_csv_missing_columns_and_duplicates(store: RunStore, tmp_path: Path) -> None:
    path = _write_experts(tmp_path / "experts.csv", [{"rater": "e1", "form": 3}])
    with pytest.raises(ExpertRatingsError, match="missing column"):
        load_expert_ratings(path, store)
    row = {"expert": "e1", "generation_id": "bot-p1", **BASE}
    path = _write_experts(tmp_path / "experts.csv", [row, row])
    with pytest.raises(
        ExpertRatingsError,
        match=re.escape("experts.csv:3: expert 'e1' rated poem bot-p1 already on line 2"),
    ):
        load_expert_ratings(path, store)


def test_notes_say_when_a_stage_covers_only_part_of_the_poems(store: RunStore) -> None:
    assert not any("no form check" in n or "not judged" in n for n in load_run_data(store).notes)
    store.save_generation({"generation_id": "bot-p2-late", "prompt_id": "q2", "poem_id": "p2",
                           "author": "bot", "sample_index": 5, "status": "ok", "poem": "late"})  # fmt: skip
    notes = load_run_data(store).notes
    assert any("1 generation has no form check (bot 1)" in n for n in notes), notes
    assert any("1 generation was not judged by j (bot 1)" in n for n in notes), notes
    store.save_form_check({"generation_id": "bot-p2-late", "checker_version": "newer",
                           "passed": 0, "explanation": {"threshold": 0.7}})  # fmt: skip
    assert any("different rules" in n for n in load_run_data(store).notes)


def test_a_non_poem_the_judge_skipped_is_not_reported_as_waiting_for_the_judge(
    store: RunStore,
) -> None:
    # A refusal is stored as not judged and never sent to the judge: running `judge` again, as
    # the coverage note advised, judges nothing. The not-a-poem note counts it (once).
    store.save_generation({"generation_id": "bot-p2-refusal", "prompt_id": "q2", "poem_id": "p2",
                           "author": "bot", "sample_index": 6, "status": "ok",
                           "poem": "I'm sorry, I can't write that."})  # fmt: skip
    store.save_form_check({"generation_id": "bot-p2-refusal", "checker_version": "t",
                           "passed": 0, "form_score": 0.0})  # fmt: skip
    store.save_judgment({"judgment_id": "bot-p2-refusal-0", "generation_id": "bot-p2-refusal",
                         "judge": "j", "sample_index": 0, "status": "not_judged",
                         "error": "not a poem: a refusal"})  # fmt: skip
    notes = load_run_data(store).notes
    assert any("1 judgment not made: the answer was not a poem" in n for n in notes), notes
    # by author, of the author's generations: its judge scores are over its poems only
    (note,) = [n for n in notes if "not made" in n]
    total = store.count("generations", "author = 'bot' AND status = 'ok'")
    assert f"by author, bot 1 of {total} generations;" in note, note
    assert "judge scores are over its answers that were poems" in note
    assert not any("not judged by j" in n for n in notes), notes
    # A poem the judge has not got to yet is still named, beside the skipped non-poem.
    store.save_generation({"generation_id": "bot-p2-late", "prompt_id": "q2", "poem_id": "p2",
                           "author": "bot", "sample_index": 5, "status": "ok", "poem": "late"})  # fmt: skip
    notes = load_run_data(store).notes
    assert any("1 generation was not judged by j (bot 1)" in n for n in notes), notes


def test_long_format_matches_wide_and_keeps_comments(store: RunStore, tmp_path: Path) -> None:
    from poemetric.analysis.experts import read_expert_answers

    wide = _write_experts(tmp_path / "wide.csv", [
        {"expert": "e1", "generation_id": "human-p1", **BASE, "imagery": 0, "form": 5},
        {"expert": "e2", "generation_id": "human-p1", **BASE, "form": 4},
    ])  # fmt: skip
    long_rows = [
        {"poem": "human-p1", "rater": expert, "item": key, "score": value, "comment": ""}
        for expert, scores in (("e1", {**BASE, "imagery": "N/A", "form": 5}),
                               ("e2", {**BASE, "form": 4}))
        for key, value in scores.items()
    ]  # fmt: skip
    long_rows[-2]["comment"] = "a fine poem, really"  # e2's overall_quality
    long_rows[1]["item"] = "2"  # question number of theme
    long = _write_experts(tmp_path / "long.csv", long_rows)
    assert load_expert_ratings(long, store).equals(load_expert_ratings(wide, store))
    answers = read_expert_answers(long, store)
    comments = [a for a in answers if a.text]
    assert [(a.expert, a.question, a.text) for a in comments] == [
        ("e2", "comment_overall_quality", "a fine poem, really")
    ]
    bad = _write_experts(tmp_path / "bad.csv", [
        {"poem": "human-p1", "rater": "e1", "item": "form", "score": 3, "comment": "why"},
        {"poem": "human-p1", "rater": "e1", "item": "form", "score": 4, "comment": ""},
        {"poem": "human-p1", "rater": "e1", "item": "rhyme", "score": 4, "comment": ""},
    ])  # fmt: skip
    with pytest.raises(ExpertRatingsError) as error:
        load_expert_ratings(bad, store)
    assert (
        "bad.csv:2: only literary_devices, overall_quality, human_authorship take a comment"
        in str(error.value)
    )
    assert "bad.csv:3: rater 'e1' rated item 'form' of poem human-p1 already on line 2" in str(
        error.value
    )
    assert "bad.csv:4: item 'rhyme' is not one of" in str(error.value)


def test_analyze_reports_a_row_with_an_extra_field_instead_of_a_traceback(
    store: RunStore, tmp_path: Path
) -> None:
    # Issue 7: an unquoted comma in a comment gave a row one field too many -> AttributeError.
    from typer.testing import CliRunner

    from poemetric.cli import app

    header = ",".join(["expert", "generation_id", *DIMENSION_KEYS, "comment_overall_quality"])
    scores = ",".join(["3"] * len(DIMENSION_KEYS))
    path = tmp_path / "experts.csv"
    path.write_text(
        f"{header}\ne1,human-p1,{scores},fine\ne2,human-p1,{scores},good, but [/red] long\n",
        encoding="utf-8",
    )
    run_dir = store.run_dir
    store.close()
    result = CliRunner().invoke(app, ["analyze", "--run", str(run_dir), "--experts", str(path)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stdout == "" and result.stderr.startswith("error: ")
    assert "experts.csv:3" in result.stderr and "found 14" in result.stderr
    assert "unquoted comma" in result.stderr


def test_analyze_uses_stored_survey_answers_for_expert_and_judge_agreement(
    store: RunStore,
) -> None:
    now = "2026-01-01T00:00:00"
    with store.transaction() as conn:
        conn.execute("INSERT INTO surveys VALUES ('s', 'poemetric', 0, '{}', ?)", (now,))
        for rater in ("a", "b", "c"):
            conn.execute("INSERT INTO survey_raters VALUES ('s', ?, ?)", (rater, now))
            for gid, offset in (("human-p1", 0), ("bot-p1", 1), ("bot-p2", 2)):
                for i, key in enumerate(DIMENSION_KEYS):
                    score = 1 + (i + offset + (rater == "c")) % 5
                    conn.execute(
                        "INSERT INTO survey_answers VALUES ('s', ?, ?, ?, ?, NULL, 'web', ?)",
                        (rater, gid, key, score, now),
                    )
    result = analyze_run(store, n_boot=50)
    panel = result.table("agreement_experts").set_index("item")
    # a and b agree everywhere, c is one step off: 1 agreeing pair of 3 per rating.
    assert panel.at["all", "pao"] == pytest.approx(1 / 3)
    assert panel.at["all", "n_poems"] == 3 and panel.at["all", "n_pairs"] == 90
    assert panel.at["all", "pao_ci_low"] <= 1 / 3 <= panel.at["all", "pao_ci_high"]
    judge = result.table("agreement").set_index("item")
    assert judge.at["all", "n_pairs"] == 90  # 3 poems x 10 items x 3 experts
    assert {"gwet_ac1", "kendall", "adjacent", "qwk_ci_high"} <= set(judge.columns)
    assert any("expert ratings from the run's survey answers: 3 raters" in n for n in result.notes)


def test_a_judge_given_only_non_poems_is_not_called_failed(store: RunStore) -> None:
    generation = store.query("SELECT generation_id FROM generations LIMIT 1")[0][0]
    store.save_judgment(
        {"judgment_id": "skipped-0", "generation_id": generation, "judge": "picky",
         "sample_index": 0, "status": "not_judged", "error": "not a poem: empty answer",
         "created_at": "2026-01-01T00:00:00Z"}
    )  # fmt: skip
    with pytest.raises(ValueError, match="the 1 poem it was given was not a poem"):
        analyze_run(store, judge="picky")


def test_an_expert_score_left_blank_is_not_counted_as_na(store: RunStore, tmp_path: Path) -> None:
    # imagery of bot-p1: e1 says N/A (0); bot-p2: e2 leaves it blank (not rated), e1 says 2.
    # literary devices of bot-p2: blank by both experts.
    rows = [
        {"expert": "e1", "generation_id": "bot-p1", **BASE, "imagery": 0},
        {"expert": "e1", "generation_id": "bot-p2", **BASE, "imagery": 2, "literary_devices": ""},
        {"expert": "e2", "generation_id": "bot-p2", **BASE, "imagery": "", "literary_devices": ""},
    ]  # fmt: skip
    result = analyze_run(store, experts=_write_experts(tmp_path / "e.csv", rows), n_boot=0)
    experts = result.table("expert_scores")
    # one poem said N/A (bot-p1), one was scored 2 (bot-p2): n 1, n_na 1, N/A share 1/2
    assert _cell(experts, "bot", "imagery", "n") == 1
    assert _cell(experts, "bot", "imagery", "n_na") == 1
    assert _cell(experts, "bot", "imagery", "na_share") == pytest.approx(0.5)
    # literary devices: bot-p1 scored 3, bot-p2 rated by nobody (blank): no N/A at all
    assert _cell(experts, "bot", "literary_devices", "n") == 1
    assert _cell(experts, "bot", "literary_devices", "n_na") == 0
    assert _cell(experts, "bot", "literary_devices", "na_share") == 0


def test_the_note_on_missing_judge_tables_says_when_every_judgment_failed(
    store: RunStore,
) -> None:
    """The command it names finishes the job: it said `poemetric judge --run R`, which
    `poemetric judge` refuses without a judge ("No judge given"); it names the judge."""
    store.conn.execute("DELETE FROM judgments WHERE status = 'ok'")
    store.conn.commit()
    notes = analyze_run(store).notes
    skipped = [note for note in notes if note.startswith("judge tables skipped")]
    assert skipped == [
        "judge tables skipped: the 1 judgment failed (the `judges` table counts parse "
        "failures and call errors); the next `poemetric judge --run "
        f"{shlex.quote(str(store.run_dir))} --judge j` retries call errors and re-parses stored "
        "answers, "
        "`--refresh-failed-parses` pays for new ones"
    ]
    assert analyze_run(store).table("judges").at[0, "ok"] == 0


def test_the_judges_table_s_overall_quality_is_over_poems_not_samples(store: RunStore) -> None:
    """The `judges` table's mean and SD of overall quality (the paper's test of a judge's
    discrimination) were over every judgment sample: bot-p1's two samples counted twice, so
    the table said mean 3.20 where the score tables, over poems, said 3.50; a judge sampling
    one poem at varying scores looked discriminating. Now a poem's samples are averaged first."""
    from statistics import stdev

    from poemetric.analysis.judges import judge_report

    row = judge_report(store).set_index("judge").loc["j"]
    per_poem = [5, 4, 2, 3]  # human-p1, human-p2, bot-p1 (samples 2 and 2), bot-p2
    assert row["overall_quality_mean"] == pytest.approx(3.5)
    assert row["overall_quality_sd"] == pytest.approx(stdev(per_poem))
    scores = dimension_scores(load_run_data(store).judgments)
    poems = scores[scores["dimension"] == "overall_quality"]
    assert int(poems["n"].sum()) == len(per_poem)  # the score tables' unit: the poem


def test_the_note_on_failed_generations_names_their_models(store: RunStore) -> None:
    """The note "1 generation failed ... left out" did not say whose: it is missing from its
    model's pass rate and scores, so the note names each author with its count, as the tables
    name it (`Human`, not the key `human`)."""
    store.save_generation({"generation_id": "human-empty", "prompt_id": "q2", "poem_id": "p2",
                           "author": "human", "sample_index": 1, "status": "ok", "poem": None})  # fmt: skip
    said = [note for note in load_run_data(store).notes if "failed or" in note]
    assert said == [
        "2 generations failed or hold no poem and are left out (by author, Human 1 of 3, bot 1 "
        "of 3 generations): each is missing from its author's pass rate and scores"
    ], said
