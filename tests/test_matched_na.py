"""Figs. 6-8 draw the judge beside the experts over the same poems: a poem that one side called
N/A (imagery, literary devices) and the other scored is in neither mean on that item."""

from __future__ import annotations

import pandas as pd

from poemetric.analysis.matched import experts_on_judged_poems, judged_as_rated
from poemetric.analysis.scores import dimension_scores
from poemetric.questionnaire import DIMENSION_KEYS

POEMS = {"g1": "p1", "g2": "p2"}


def _rows(scores: dict[str, dict[str, int]], **labels: object) -> pd.DataFrame:
    """One row per poem of model-a: every item 3 but those given."""
    base = {"author": "model-a", "poem_form": "sonnet", **dict.fromkeys(DIMENSION_KEYS, 3)}
    return pd.DataFrame(
        [
            {**labels, **base, "generation_id": generation, "poem_id": POEMS[generation], **given}
            for generation, given in scores.items()
        ]
    )


def _means(table: pd.DataFrame) -> dict[str, tuple[int, float]]:
    """Imagery and devices: (poems, mean)."""
    rows = table.set_index("dimension")
    return {
        key: (int(rows["n"][key]), float(rows["mean"][key]))
        for key in ("imagery", "literary_devices")
    }


def test_a_poem_either_side_called_na_is_in_neither_mean() -> None:
    # The judge: no imagery in g1 (N/A); the expert: no literary devices in g1 (N/A).
    judgments = _rows(
        {"g1": {"imagery": 0, "literary_devices": 3}, "g2": {"imagery": 4, "literary_devices": 5}},
        judge="judge-x", sample_index=0,
    )  # fmt: skip
    experts = _rows(
        {"g1": {"imagery": 2, "literary_devices": 0}, "g2": {"imagery": 4, "literary_devices": 5}},
        expert="E1",
    )  # fmt: skip
    judge_side = dimension_scores(judged_as_rated(judgments, experts))
    expert_side = experts_on_judged_poems(experts, judgments)
    # Both over g2 alone. Before, the experts' imagery mean was (2 + 4) / 2 = 3 over 2 poems
    # beside the judge's 4 over 1, and the judge's devices (3 + 5) / 2 = 4 beside the experts' 5.
    assert _means(judge_side) == {"imagery": (1, 4.0), "literary_devices": (1, 5.0)}
    assert _means(expert_side) == {"imagery": (1, 4.0), "literary_devices": (1, 5.0)}
    # An N/A is an answer: the poem is not "left out for want of a judgment".
    assert expert_side["n_left_out"].eq(0).all()
    # Each side still counts its own N/A on the poems the other scored.
    judge_na = judge_side.set_index("dimension")["n_na"]
    expert_na = expert_side.set_index("dimension")["n_na"]
    assert (judge_na["imagery"], expert_na["literary_devices"]) == (1, 1)
