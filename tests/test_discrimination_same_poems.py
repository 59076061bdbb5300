"""Table 2 (`discrimination`) compares each judge's SD of overall quality with the experts' over
the same poems: the experts' row covered every poem they rated even for a judge that scored only
some of them. And when no judge scored a poem the experts rated, the notes say that the table
(with the other judge-vs-expert tables) is missing, instead of leaving it out unsaid."""

from __future__ import annotations

import statistics
from pathlib import Path

import pandas as pd
import pytest
from test_analysis_scores import BASE, _fill, _write_experts

from poemetric.analysis import analyze_run
from poemetric.analysis.validation import discrimination, discrimination_notes
from poemetric.store import RunStore


def _experts() -> pd.DataFrame:
    scores = {("e1", "g1"): 5, ("e2", "g1"): 4, ("e1", "g2"): 1, ("e2", "g2"): 2,
              ("e1", "g3"): 3, ("e2", "g3"): 3}  # fmt: skip
    return pd.DataFrame(
        [
            {"expert": e, "generation_id": g, "overall_quality": float(s)}
            for (e, g), s in scores.items()
        ]
    )


def _judgments() -> pd.DataFrame:
    rows = [
        ("all", "g1", 5),
        ("all", "g2", 2),
        ("all", "g3", 4),
        ("half", "g1", 4),
        ("half", "g2", 5),
        ("half", "g9", 1),
    ]  # g9: no expert rated it
    return pd.DataFrame(
        [
            {"judge": j, "generation_id": g, "sample_index": 0, "overall_quality": float(s)}
            for j, g, s in rows
        ]
    )


def test_each_judge_is_set_beside_the_experts_over_the_same_poems() -> None:
    table = discrimination(_experts(), _judgments()).set_index("rater")
    assert table.at["experts", "poems"] == 3 and table.at["experts", "n"] == 6
    assert table.at["experts", "sd"] == pytest.approx(statistics.stdev([5, 4, 1, 2, 3, 3]))
    # `half` scored g1 and g2 of the three: the experts over those two poems beside it.
    assert table.at["half", "poems"] == 2 and table.at["half", "n"] == 2
    assert table.at["half", "sd"] == pytest.approx(statistics.stdev([4, 5]))
    assert table.at["half", "expert_n"] == 4
    assert table.at["half", "expert_mean"] == pytest.approx(3.0)
    assert table.at["half", "expert_sd"] == pytest.approx(statistics.stdev([5, 4, 1, 2]))
    # A judge that scored every poem has the experts' own numbers beside it.
    assert table.at["all", "poems"] == 3
    assert table.at["all", "expert_sd"] == pytest.approx(table.at["experts", "sd"])
    # Named as the table's rows name the judge (`presentable`'s rater_name), not by its key.
    (note,) = discrimination_notes(table.reset_index(), lambda name: name.title() + " judge")
    assert "(Table 2): Half judge scored 2 of the 3 poems the experts rated" in note, note
    assert f"beside the experts' {statistics.stdev([5, 4, 1, 2]):.2f}" in note, note


def test_a_judge_without_a_score_on_an_expert_poem_is_not_counted_as_covering_it() -> None:
    judgments = _judgments()
    judgments.loc[judgments["generation_id"] == "g2", "overall_quality"] = float("nan")
    table = discrimination(_experts(), judgments).set_index("rater")
    assert table.at["half", "poems"] == 1
    assert table.at["half", "expert_mean"] == pytest.approx(4.5)


def test_analyze_run_notes_a_judge_that_scored_part_of_the_expert_poems(
    tmp_path: Path,
) -> None:
    with RunStore(tmp_path / "run") as store:
        _fill(store)  # judge j scored human-p1, human-p2, bot-p1 and bot-p2
        store.save_generation({"generation_id": "bot-p2-more", "prompt_id": "q2", "poem_id": "p2",
                               "author": "bot", "sample_index": 3, "status": "ok",
                               "poem": "more rain\non the road"})  # fmt: skip
        rows = [{"expert": e, "generation_id": g, **BASE, "overall_quality": s}
                for e, g, s in [("e1", "human-p1", 5), ("e2", "human-p1", 4),
                                ("e1", "bot-p2-more", 1), ("e2", "bot-p2-more", 2)]]  # fmt: skip
        result = analyze_run(store, experts=_write_experts(tmp_path / "e.csv", rows), n_boot=0)
    table = result.table("discrimination").set_index("rater")
    assert table.at["j", "poems"] == 1 and table.at["experts", "poems"] == 2
    assert table.at["j", "expert_mean"] == pytest.approx(4.5)
    assert any("j scored 1 of the 2 poems the experts rated" in n for n in result.notes)
    assert "expert n, mean and SD" in result.caption("discrimination")


def test_no_judge_on_an_expert_poem_says_the_tables_are_missing(tmp_path: Path) -> None:
    with RunStore(tmp_path / "run") as store:
        _fill(store)
        store.save_generation({"generation_id": "bot-p2-more", "prompt_id": "q2", "poem_id": "p2",
                               "author": "bot", "sample_index": 3, "status": "ok",
                               "poem": "more rain\non the road"})  # fmt: skip
        rows = [{"expert": e, "generation_id": "bot-p2-more", **BASE} for e in ("e1", "e2")]
        result = analyze_run(store, experts=_write_experts(tmp_path / "e.csv", rows), n_boot=0)
    assert "discrimination" not in result.tables
    (note,) = [n for n in result.notes if n.startswith("judge agreement skipped")]
    assert "discrimination (Table 2)" in note and "agreement_by_expert" in note, note
