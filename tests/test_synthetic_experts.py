"""The synthetic expert panel of a run with several judges: each expert rates a poem once.
Before, every judge's judgment of a poem was a row to pick, so an expert could rate a poem
twice, a file `--experts` rejects ("expert 'E1' rated poem ... already on line ...")."""

from __future__ import annotations

from pathlib import Path

from poemetric.analysis.experts import load_expert_ratings
from poemetric.analysis.synthetic import build_synthetic_run, write_synthetic_experts


def test_experts_of_a_run_with_several_judges_rate_each_poem_once(tmp_path: Path) -> None:
    with build_synthetic_run(
        tmp_path / "run", poems_per_form=2, judges=("judge-x", "judge-y", "judge-z")
    ) as store:
        poems = store.count("generations", "author IN ('human', 'model-a')")
        path = write_synthetic_experts(
            store, tmp_path / "experts.csv", authors=("human", "model-a"), experts=4,
            poems_per_expert=poems,
        )  # fmt: skip
        ratings = load_expert_ratings(path, store)
    assert len(ratings) == 4 * poems  # every poem, once per expert
    assert not ratings.duplicated(["expert", "generation_id"]).any()
