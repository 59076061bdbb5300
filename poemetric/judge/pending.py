"""Judgments waiting for a re-ask: one definition for the judge stage, which re-asks an
unparsable answer while its judge's `reask` allows another turn, and for every reader of the
stored judgments (the analysis notes and `judges` table, the report).

A stop (Ctrl-C, SIGTERM) between an unparsable answer and its re-ask leaves the judgment an
'error' row holding that answer, with `reasks` (the follow-ups sent so far) below the judge's
`reask`; the next `poemetric judge` sends the re-ask (the answer so far from the cache). Such a
row is pending, not a parse failure. A row whose re-asks are spent (or whose judge has
`reask: 0`), or whose answer was cut at the token limit before any answer (never re-asked), is
a parse failure. The judge stage records each judge's `reask` with its model
(`poemetric.store.models`); a run recorded before that takes the judge files' default.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from poemetric.hints import stage_command
from poemetric.providers.base import ModelSpec
from poemetric.runner.rows import UNPARSABLE
from poemetric.store.db import RunStore
from poemetric.store.models import JUDGE_STAGE, recorded_models

#: The `reask` of a judge whose run did not record it (the judge files' default).
DEFAULT_REASK: int = ModelSpec.model_fields["reask"].default


#: In the error of an answer cut at the token limit before any answer outside its reasoning
#: (`poemetric.judge.finish`): never re-asked, as the re-ask would be cut the same way.
CUT_BEFORE_ANSWER = "cut at the token limit before any answer"


def reask_due(error: object, reasks: int, limit: int) -> bool:
    """Whether an answer stored with `error` after `reasks` re-asks gets another one: it was
    unparsable, not cut at the token limit before any answer (`CUT_BEFORE_ANSWER`), and the
    judge's `reask` (`limit`) allows another turn."""
    text = str(error or "")
    return reasks < limit and text.startswith(UNPARSABLE) and CUT_BEFORE_ANSWER not in text


def reask_limits(store: RunStore) -> dict[str, int]:
    """Each judge's `reask` as recorded when it last ran this run's judge stage."""
    judges = recorded_models(store).get(JUDGE_STAGE, {})
    return {
        name: record["reask"]
        for name, record in judges.items()
        if isinstance(record, dict) and isinstance(record.get("reask"), int)
    }


def is_pending(
    judge: str, status: object, error: object, reasks: int, limits: dict[str, int]
) -> bool:
    """Whether a stored judgment waits for its re-ask (`limits`: `reask_limits`)."""
    return status == "error" and reask_due(error, reasks, limits.get(judge, DEFAULT_REASK))


@dataclass
class JudgmentErrors:
    """A run's 'error' judgments in stored order, split into failures (call errors, parse
    failures) and those pending a re-ask."""

    failed: list[sqlite3.Row] = field(default_factory=list)
    pending: list[sqlite3.Row] = field(default_factory=list)


def judge_clause(
    judge: str | Sequence[str] | None, column: str = "judge"
) -> tuple[str, tuple[str, ...]]:
    """` AND judge IN (?, ?)` and its parameters for the judgments of `judge` (a name, or
    several); ('', ()) for every judge (None or none)."""
    names = (judge,) if isinstance(judge, str) else tuple(judge or ())
    if not names:
        return "", ()
    return f" AND {column} IN ({', '.join('?' for _ in names)})", names


def judgment_errors(store: RunStore, judge: str | Sequence[str] | None = None) -> JudgmentErrors:
    """The 'error' judgments (of `judge`, one or several; default all), each row's judge, error
    and reasks."""
    limits = reask_limits(store)
    where, params = judge_clause(judge)
    rows = store.query(
        f"SELECT judge, error, reasks FROM judgments WHERE status = 'error'{where} "
        "ORDER BY created_at, judgment_id",
        params,
    )
    errors = JudgmentErrors()
    for row in rows:
        pending = is_pending(row["judge"], "error", row["error"], int(row["reasks"] or 0), limits)
        (errors.pending if pending else errors.failed).append(row)
    return errors


def pending_note(count: int, run: Path | None = None, judge: str | None = None) -> str:
    """What `analyze` and the report say about judgments pending a re-ask: the command that
    finishes them names the run and `judge` (`judges_of`: comma-separated, as `--judge` takes
    them), as make runs it under make (`poemetric.hints.stage_command`)."""
    these = "1 judgment is" if count == 1 else f"{count:,} judgments are"
    return (
        f"{these} pending a re-ask (judging was stopped between an unparsable answer and its "
        "re-ask): left out, and not counted as parse failures; running "
        f"`{stage_command('judge', run, judge)}` again finishes them (the answers so far from the "
        "cache, not paid again)"
    )


def judges_of(rows: list[sqlite3.Row]) -> str | None:
    """The judges of `rows`, as `judge_option` gives them (None: no row)."""
    return judge_option(str(row["judge"]) for row in rows)


def judge_option(judges: Iterable[str]) -> str | None:
    """Judge names sorted and comma-separated once each, as `--judge` takes them (None: none).
    A command that names no judge is refused by `poemetric judge`."""
    return ",".join(sorted(set(judges))) or None
