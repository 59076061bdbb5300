"""Per-judge tables: how each judge behaved (parse failures, refusals, re-asks, not-judged
non-poems, the SD of overall quality the paper used to reject judges, cost) and how often it
recognised the human poems (`judge recognise`), with human-authorship scores split by it."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable

import pandas as pd

from poemetric.analysis.data import HUMAN_AUTHOR
from poemetric.hints import program
from poemetric.judge.pending import is_pending, reask_limits
from poemetric.screening import looks_like_refusal
from poemetric.store import RunStore
from poemetric.text.plural import counted, plural


def turn_refusals(turns: str | None, final_refusal: bool) -> tuple[bool, bool]:
    """(refused on the first turn, refused on any turn) of one judgment: its earlier turns
    (`turns`, kept when it was re-asked) and its stored answer, refused when `final_refusal`.
    A refusal that was re-asked and then answered is only in `turns`: the stored row says 0."""
    listed = json.loads(turns) if turns else []
    earlier = [_turn_refused(turn) for turn in listed]
    if not earlier:
        return final_refusal, final_refusal
    return earlier[0], any(earlier) or final_refusal


def _turn_refused(turn: dict[str, object]) -> bool:
    """An earlier turn's refusal as the judge stage recorded it (outside the judge's reasoning:
    "<think>...</think>I'm sorry, I can't" is one); a turn stored before the stage recorded it
    is read from its text."""
    recorded = turn.get("refusal")
    if isinstance(recorded, int):
        return bool(recorded)
    return looks_like_refusal(str(turn.get("response_text") or ""))


def judge_report(store: RunStore) -> pd.DataFrame:
    """One row per judge. Rates are shares of the answers received (ok + unparsable + re-asked
    judgments whose re-ask call failed: their first answer was received). Refusals are counted
    three ways: on the first turn (before any re-ask), on any turn, and final (still
    refused after the re-asks, stored as a parse failure). Overall quality's mean and SD are
    over poems, a poem's samples averaged first (`analysis.scores`' unit of analysis). Judgments pending a re-ask (a stopped
    `poemetric judge`) count only in `judgments`, their cost, and `pending_reasks`, a column
    present when a judge has any."""
    rows = pd.read_sql_query(
        "SELECT judge, generation_id, status, error, refusal, reasks, turns, overall_quality, "
        "cost_usd "
        # in one order whatever order the rows were stored in: the means and SDs are float sums
        "FROM judgments ORDER BY judge, generation_id, sample_index",
        store.conn,
    )
    if rows.empty:
        return pd.DataFrame()
    limits = reask_limits(store)
    rows["pending"] = [
        is_pending(str(judge), status, error, int(reasks), limits)
        for judge, status, error, reasks in zip(
            rows["judge"], rows["status"], rows["error"], rows["reasks"].fillna(0), strict=True
        )
    ]
    refused = [
        turn_refusals(turns if isinstance(turns, str) else None, bool(final))
        for turns, final in zip(rows["turns"], rows["refusal"].fillna(0), strict=True)
    ]
    rows["first_turn_refusal"] = [first for first, _ in refused]
    rows["any_turn_refusal"] = [any_turn for _, any_turn in refused]
    table = []
    for judge, everything in rows.groupby("judge", sort=True):
        group = everything[~everything["pending"]]
        ok = group[group["status"] == "ok"]
        errors = group[group["status"] == "error"]
        unparsable = errors["error"].fillna("").str.startswith("unparsable")
        reasked = group["reasks"].fillna(0) > 0
        # A call error after a re-ask (the re-ask's call failed) had its first answer received.
        failed_reasks = int((reasked[errors.index] & ~unparsable).sum())
        answered = len(ok) + int(unparsable.sum()) + failed_reasks
        # Over poems, as every score table is: a poem's repeated samples averaged first (the
        # spread of a judge's samples of one poem is no discrimination between poems).
        quality = (
            pd.to_numeric(ok["overall_quality"], errors="coerce")
            .groupby(ok["generation_id"], sort=False)
            .mean()
            .dropna()
        )
        first_turn = int(group["first_turn_refusal"].sum())
        final = int(group["refusal"].fillna(0).sum())
        table.append(
            {
                "judge": judge,
                "judgments": len(everything),
                "ok": len(ok),
                "parse_failures": int(unparsable.sum()),
                "call_errors": int((~unparsable).sum()),
                "pending_reasks": int(everything["pending"].sum()),
                "not_judged": int((group["status"] == "not_judged").sum()),
                "first_turn_refusals": first_turn,
                "refusals_any_turn": int(group["any_turn_refusal"].sum()),
                "final_refusals": final,
                "reasked": int(reasked.sum()),
                "reasked_ok": int((reasked & (group["status"] == "ok")).sum()),
                "parse_failure_rate": unparsable.sum() / answered if answered else float("nan"),
                "first_turn_refusal_rate": first_turn / answered if answered else float("nan"),
                "final_refusal_rate": final / answered if answered else float("nan"),
                "reask_rate": reasked.sum() / answered if answered else float("nan"),
                "overall_quality_mean": quality.mean(),
                "overall_quality_sd": quality.std(ddof=1) if len(quality) > 1 else float("nan"),
                "cost_usd": float(everything["cost_usd"].fillna(0).sum()),
            }
        )
    frame = pd.DataFrame(table)
    return frame if frame["pending_reasks"].any() else frame.drop(columns="pending_reasks")


def recognition_table(store: RunStore) -> pd.DataFrame:
    """Recognised share of the human poems per judge, and the judge's human-authorship score
    of the human poems it recognised vs those it did not."""
    recognitions = pd.read_sql_query(
        "SELECT judge, poem_id, recognised FROM recognitions WHERE status = 'ok'", store.conn
    )
    if recognitions.empty:
        return pd.DataFrame()
    authorship = pd.read_sql_query(
        "SELECT j.judge, g.poem_id, AVG(j.human_authorship) AS human_authorship "
        "FROM judgments j JOIN generations g ON g.generation_id = j.generation_id "
        "WHERE j.status = 'ok' AND g.author = ? GROUP BY j.judge, g.poem_id",
        store.conn,
        params=(HUMAN_AUTHOR,),
    )
    merged = recognitions.merge(authorship, on=["judge", "poem_id"], how="left")
    table = []
    for judge, group in merged.groupby("judge", sort=True):
        known = group[group["recognised"] == 1]["human_authorship"].dropna()
        unknown = group[group["recognised"] == 0]["human_authorship"].dropna()
        table.append(
            {
                "judge": judge,
                "poems": len(group),
                "recognised": int(group["recognised"].sum()),
                "recognised_share": float(group["recognised"].mean()),
                "human_authorship_recognised": known.mean(),
                "n_recognised_judged": len(known),
                "human_authorship_not_recognised": unknown.mean(),
                "n_not_recognised_judged": len(unknown),
            }
        )
    return pd.DataFrame(table)


def recognition_notes(store: RunStore, label: Callable[[str], str] = str) -> list[str]:
    """One note per judge whose `judge recognise` answers failed (the call, or reading the
    answer): the `recognition` table is made of the answers read, and said nothing of the others
    (a judge none of whose answers could be read had no row and no note at all). The judge is
    named by `label`, as the tables name it; the command keeps its key."""
    rows = store.query(
        "SELECT judge, COUNT(*) AS failed, (SELECT r.error FROM recognitions r WHERE r.judge = "
        "f.judge AND r.status = 'error' ORDER BY r.poem_id, r.sample_index LIMIT 1) AS first "
        "FROM recognitions f WHERE f.status = 'error' GROUP BY f.judge ORDER BY f.judge"
    )
    command = f"{program()} judge recognise --run {shlex.quote(str(store.run_dir))}"
    return [
        f"{counted(row['failed'], 'recognise answer')} of judge {label(row['judge'])!r} failed "
        "and "
        f"{plural(row['failed'], 'is', 'are')} left out of the recognition table (the first: "
        f"{row['first']}); `{command} --judge {row['judge']}` reads the stored answers again, "
        "--refresh-failed-parses asks again"
        for row in rows
    ]
