"""`build_survey`: draw a survey from a run's poems and store it (poemetric survey build)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from poemetric.reliability.rater_spellings import spelled_apart, spelled_apart_message
from poemetric.store import RunStore
from poemetric.survey import db
from poemetric.survey.design import (
    Candidate,
    DesignError,
    assign,
    attention_checks,
    overlap,
    resolve_sizes,
    stratified_sample,
)
from poemetric.survey.tasks import task

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


@dataclass(frozen=True)
class BuildSummary:
    survey_id: str
    raters: list[str]
    poems_by_author: dict[str, int]
    poems_by_form: dict[str, int]
    loads: dict[str, int]
    overlap: dict[tuple[str, str], int]
    attention_checks: int
    #: Poems per rater the verbatim instructions name (Appendix C: 10), None when they name none.
    stated_poems: int | None = None

    def count_warning(self) -> str | None:
        """A warning when raters get another number of poems than the instructions say."""
        stated, loads = self.stated_poems, sorted(set(self.loads.values()))
        if stated is None or loads == [stated]:
            return None
        given = f"{loads[0]}" if len(loads) == 1 else f"{loads[0]}-{loads[-1]}"
        return (
            f"warning: the survey's instructions (Appendix C, shown verbatim) say \"We will give "
            f'you {stated} poems in total", but each rater gets {given}; the welcome page and the '
            f'paper sheets say "For this study: N poems" with each rater\'s own number, which is '
            "the one that counts."
        )


def check_name(value: str, what: str) -> str:
    if not NAME.fullmatch(value):
        raise DesignError(
            f"{what} {value!r}: use 1-40 letters, digits, '_', '.' or '-' (starting with a "
            "letter or digit)"
        )
    return value


def rater_ids(raters: str) -> list[str]:
    """'7' -> R1..R7; 'ann,ben,cy' -> those ids."""
    raters = raters.strip()
    if raters.isdigit():
        count = int(raters)
        if count < 2:
            raise DesignError("--raters: at least 2 raters (agreement needs overlap)")
        return [f"R{i}" for i in range(1, count + 1)]
    ids = [check_name(r.strip(), "rater id") for r in raters.split(",") if r.strip()]
    repeated = sorted({r for r in ids if ids.count(r) > 1})
    if repeated:  # it said "at least 2 distinct rater ids" of 'ann,ann,ben'
        raise DesignError(f"--raters: {', '.join(repeated)} named more than once")
    if len(ids) < 2:
        raise DesignError("--raters: at least 2 distinct rater ids")
    # `Ann,ann`: every step that reads ratings refuses one rater spelled two ways, and their
    # sheets `Ann.html` and `ann.html` are one file where case is not told apart (macOS, Windows).
    if apart := spelled_apart({rater: n for n, rater in enumerate(ids, start=1)}):
        raise DesignError(
            spelled_apart_message(
                "--raters", apart, "build again; nothing built", "rater", "in --raters"
            )
        )
    return ids


#: `(store, name, authors) -> hint` for an `--authors` name no author of the run has (the command
#: line passes `poemetric.analysis.labels.author_hint`: "'X' is the display name of 'x'").
AuthorHint = Callable[[RunStore, str, Iterable[str]], str]


def candidates(
    store: RunStore, authors: list[str] | None, author_hint: AuthorHint | None = None
) -> list[Candidate]:
    rows = store.query(
        "SELECT g.generation_id, g.author, p.form FROM generations g "
        "JOIN poems p ON p.poem_id = g.poem_id "
        "WHERE g.status = 'ok' AND g.poem IS NOT NULL AND TRIM(g.poem) != ''"
    )
    found = [Candidate(r[0], r[1], r[2]) for r in rows]
    if authors:
        known = {c.author for c in found}
        unknown = sorted(set(authors) - known)
        if unknown:
            hint = author_hint or (lambda _store, _name, _authors: "")
            each = ", ".join(f"{a!r}{hint(store, a, known)}" for a in unknown)
            raise DesignError(f"--authors: no poems by {each}; authors: {', '.join(sorted(known))}")
        found = [c for c in found if c.author in authors]
    return found


def build_survey(
    store: RunStore,
    *,
    survey_id: str = "experts",
    raters: str = "3",
    poems: int | None = None,
    per_rater: int | None = None,
    per_poem: int = 2,
    authors: list[str] | None = None,
    checks: int = 0,
    seed: int = 0,
    task_name: str = "poemetric",
    author_hint: AuthorHint | None = None,
) -> BuildSummary:
    check_name(survey_id, "survey id")
    try:
        survey_task = task(task_name)
    except ValueError as exc:
        raise DesignError(f"--task: {exc}") from exc
    if checks and not survey_task.attention_checks:
        raise DesignError(f"--attention-checks: the {task_name!r} task has no attention checks")
    ids = rater_ids(raters)
    pool = candidates(store, authors, author_hint)
    sizes = resolve_sizes(len(ids), per_poem, poems, per_rater, len(pool))
    rng = random.Random(seed)
    sample = stratified_sample(pool, sizes.poems, rng)
    assigned = assign([c.generation_id for c in sample], ids, sizes.per_poem, rng)
    instructed = attention_checks(assigned, checks, rng)
    config = {
        "authors": sorted({c.author for c in sample}),
        "poems": sizes.poems,
        "per_poem": sizes.per_poem,
        "raters": ids,
        "attention_checks": checks,
        "candidates": len(pool),
        "instrument_sha256": survey_task.instrument.sha256,
    }
    meta = survey_task.prepare(store, survey_id, [c.generation_id for c in sample])
    db.create_survey(store, survey_id, task_name, seed, config, assigned, instructed, meta)
    return BuildSummary(
        survey_id,
        ids,
        dict(sorted(Counter(c.author for c in sample).items())),
        dict(sorted(Counter(c.form for c in sample).items())),
        {r: len(p) for r, p in assigned.items()},
        overlap(assigned),
        checks,
        survey_task.instrument.stated_poems,
    )
