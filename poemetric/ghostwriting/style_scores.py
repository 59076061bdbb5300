"""Style-matching accuracy per judge and evaluated author, from the `style_matches` table.

Accuracy is the share of trials in which the judge picked the candidate by the reference's poet
(paper eq. 2, with the judge in the annotator's place), with a Wilson 95% interval; chance is
0.25. The human row is the paper's *authentic* baseline: how hard the task is when the reference
really is by the poet. Unparsable answers are not counted (their number is reported). A second
table shows how often each letter was chosen against how often it was correct, which exposes a
judge's position bias (the trials put the correct answer at each letter equally often).
"""

from __future__ import annotations

import pandas as pd

from poemetric.stats import wilson_interval
from poemetric.store import RunStore
from poemetric.text.ordering import author_order

#: The answer letters of a trial (as in `poemetric.style.trials`; analysis does not import stages).
CHOICES = ("A", "B", "C", "D")
CHANCE = 1 / len(CHOICES)


def load_style_matches(store: RunStore) -> pd.DataFrame:
    return pd.read_sql_query(
        "SELECT m.judge, m.generation_id, m.trial_index, m.sample_index, m.status, m.choice, "
        "m.correct_choice, m.correct, g.author FROM style_matches m "
        "JOIN generations g USING (generation_id)",
        store.conn,
    )


def style_accuracy(matches: pd.DataFrame) -> pd.DataFrame:
    rows: list[dict[str, object]] = []
    for judge in sorted(matches["judge"].unique()):
        by_judge = matches[matches["judge"] == judge]
        for author in author_order(by_judge["author"].unique()):
            mine = by_judge[by_judge["author"] == author]
            answered = mine[mine["status"] == "ok"]
            correct = int(answered["correct"].sum())
            low, high = wilson_interval(correct, len(answered))
            rows.append(
                {
                    "judge": judge,
                    "author": author,
                    "poems": answered["generation_id"].nunique(),
                    "trials": len(answered),
                    "correct": correct,
                    "accuracy": correct / len(answered) if len(answered) else float("nan"),
                    "ci_low": low,
                    "ci_high": high,
                    "chance": CHANCE,
                    "unparsed": int((mine["status"] != "ok").sum()),
                }
            )
    return pd.DataFrame(rows)


def style_positions(matches: pd.DataFrame) -> pd.DataFrame:
    """Per judge and letter: share of answers choosing it vs share of trials where it was right."""
    answered = matches[matches["status"] == "ok"]
    rows: list[dict[str, object]] = []
    for judge in sorted(answered["judge"].unique()):
        mine = answered[answered["judge"] == judge]
        for letter in CHOICES:
            rows.append(
                {
                    "judge": judge,
                    "choice": letter,
                    "chosen_share": float((mine["choice"] == letter).mean()),
                    "correct_share": float((mine["correct_choice"] == letter).mean()),
                    "trials": len(mine),
                }
            )
    return pd.DataFrame(rows)
