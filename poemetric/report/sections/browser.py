"""The poem browser: pick a prompt, read every author's poem beside the human original with its
form-check explanation and each judge's scores and comments. Each prompt's poems are one of the
section's parts (`Section.parts`), which report.js reads only when the prompt is shown (and it
draws only that prompt's poems): a JSON element of a one-file page, or a file of the folder
beside the page (poemetric/report/parts.py). The page's main JSON holds the prompts and, per
prompt, each poem's author and form-check state for the filters. Each poem text is in the
report once (a prompt with a human poem does not repeat it as its original). Filters: author,
form, pass/fail; keys: j/k or arrows, / to search."""

from __future__ import annotations

import json
import math
from collections import Counter
from typing import Any, NamedTuple

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.judge.pending import is_pending, judge_clause, reask_limits
from poemetric.questionnaire import COMMENTS, DIMENSION_KEYS, DIMENSIONS
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import json_for_html, render

#: Column heads of the scores table on a poem card (the full question is the tooltip); four
#: letters at most, or a 300 px card cuts them. Human authorship is `Auth`: `Hum` read as the
#: human poets, as its `Human` did.
ABBREVIATIONS = {"form": "Form", "theme": "Thm", "vocabulary": "Voc", "creativity": "Crea",
                 "idiosyncrasy": "Idio", "emotional_resonance": "Emo", "imagery": "Img",
                 "literary_devices": "Dev", "overall_quality": "Qual", "human_authorship": "Auth"}  # fmt: skip


def _score(value: object) -> float | None:
    """A form-check score as the card prints it (two decimals), rounded here as the checker's
    summary above it rounds (Python's): report.js's toFixed(2) rounds half up, so a meter of
    0.625 read 0.63 under a summary saying 0.62, and a score first rounded to three decimals
    (0.6951 -> 0.695) was rounded again, down (0.69 beside the summary's 0.70)."""
    if value is None:
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if math.isnan(number) else round(number, 2)


def _check(row: Any) -> dict[str, Any]:
    explanation: dict[str, Any] = {}
    if row["explanation"]:
        try:
            explanation = json.loads(row["explanation"])
        except json.JSONDecodeError:
            explanation = {}
    issues = [
        [list(issue.get("lines") or []), str(issue.get("detail") or "")]
        for issue in explanation.get("issues") or []
        if isinstance(issue, dict)
    ]
    return {
        "ok": None if row["passed"] is None else int(row["passed"]),
        "f": _score(row["form_score"]),
        "m": _score(row["meter_score"]),
        "r": _score(row["rhyme_score"]),
        "s": str(explanation.get("summary") or ""),
        "i": issues,
        "e": row["error"] or "",
    }


#: A prompt's generations, poems or not (`generation_id IN` this, with the prompt's id).
_OF_PROMPT = "SELECT generation_id FROM generations WHERE prompt_id = ?"


def _prompts(run: ReportRun) -> list[dict[str, Any]]:
    """The run's prompts in page order, each with its human poem's title, poet, form and text."""
    return [
        dict(r)
        for r in run.store.query(
            "SELECT p.prompt_id, p.poem_id, p.text, po.title, po.author AS poet, po.form, "
            "po.content FROM prompts p JOIN poems po ON po.poem_id = p.poem_id "
            "ORDER BY po.position, p.prompt_id"
        )
    ]


class _PoemCards:
    """Each prompt's poems as the browser's part holds them (`of`), read a prompt at a time:
    a study-sized run's poems, checks and judgments (with their comments) as Python objects
    took some 250 MB at once (docs/benchmarks.md, "The poem browser a prompt at a time")."""

    def __init__(self, run: ReportRun, authors: list[str], judges: list[str]) -> None:
        self.run = run
        self.author_index = {a: i for i, a in enumerate(authors)}
        self.judge_index = {j: i for i, j in enumerate(judges)}
        generations = run.data.generations
        self.rows: dict[str, list[int]] = {}  # each prompt's rows of the generations frame
        for position, prompt_id in enumerate(generations["prompt_id"].tolist()):
            self.rows.setdefault(prompt_id, []).append(position)
        self.judge_filter, self.chosen = judge_clause(run.data.chosen_judges, "j.judge")
        self.reask_limits = reask_limits(run.store)

    def _checks(self, prompt_id: str) -> dict[str, dict[str, Any]]:
        return {r["generation_id"]: _check(r) for r in self.run.store.query(
            "SELECT generation_id, passed, form_score, meter_score, rhyme_score, explanation, "
            f"error FROM form_checks WHERE generation_id IN ({_OF_PROMPT})", (prompt_id,))}  # fmt: skip

    def _judgments(self, prompt_id: str) -> dict[str, list[dict[str, Any]]]:
        comment_keys = [c.key for c in COMMENTS]
        columns = ", ".join(f"j.{k}" for k in (*DIMENSION_KEYS, *comment_keys))
        judgments: dict[str, list[dict[str, Any]]] = {}
        for r in self.run.store.query(
            # CROSS JOIN: the prompt's generations first, then their judgments by the unique
            # index; with --judge's `judge IN` SQLite took the judge's index, and read every
            # judgment of the judge for each prompt
            f"SELECT j.generation_id, j.judge, j.sample_index, j.status, j.error, j.reasks, "
            f"{columns} "
            "FROM generations g CROSS JOIN judgments j ON j.generation_id = g.generation_id "
            "WHERE g.prompt_id = ? "
            f"{self.judge_filter} ORDER BY j.judge, j.sample_index",
            (prompt_id, *self.chosen),
        ):
            judgment: dict[str, Any] = {"j": self.judge_index.get(r["judge"], 0),
                                        "n": r["sample_index"]}  # fmt: skip
            if r["status"] == "ok":
                judgment["v"] = [r[k] for k in DIMENSION_KEYS]
                judgment["c"] = [r[k] or "" for k in comment_keys]
            elif is_pending(r["judge"], r["status"], r["error"], int(r["reasks"] or 0),
                            self.reask_limits):  # fmt: skip
                judgment["x"] = "pending"  # not failed: the next `judge` sends its re-ask
            else:  # a card without it read as if the judge had never seen the poem
                judgment["x"] = r["status"]
                judgment["e"] = r["error"] or ""
            judgments.setdefault(r["generation_id"], []).append(judgment)
        return judgments

    def of(self, prompt_id: str) -> list[dict[str, Any]]:
        """The prompt's poems by author and sample, each `a` (author), `s` (sample), `t`
        (text), `c` (its form check or None) and `j` (judgments: each `j` judge, `n` sample,
        `v` scores and `c` comments, or for one not made `x` its status, `not_judged`,
        `error` (and `e` its error) or `pending` (an unparsable answer awaiting its re-ask)); after them in that order a failed generation's card: `t`
        empty, `x` its error."""
        checks, judgments = self._checks(prompt_id), self._judgments(prompt_id)
        poems: list[dict[str, Any]] = []
        columns = ["generation_id", "author", "sample_index", "poem"]
        frame = self.run.data.generations.iloc[self.rows.get(prompt_id, [])][columns]
        for generation_id, author, sample, text in frame.itertuples(index=False, name=None):
            poems.append({
                "a": self.author_index[author], "s": int(sample), "t": str(text),
                "c": checks.get(generation_id), "j": judgments.get(generation_id, []),
            })  # fmt: skip
        for r in self.run.store.query(
            "SELECT author, sample_index, error FROM generations WHERE prompt_id = ? AND "
            "(status != 'ok' OR poem IS NULL)",
            (prompt_id,),
        ):
            poems.append({"a": self.author_index[r["author"]], "s": r["sample_index"],
                          "t": "", "x": r["error"] or "no poem"})  # fmt: skip
        poems.sort(key=lambda p: (p["a"], p["s"]))
        return poems


def _judges(run: ReportRun) -> list[str]:
    """The judges of the cards (`--judge`'s only): those with a judgment of any state, a judge
    whose every judgment failed too (its cards say so)."""
    clause, chosen = judge_clause(run.data.chosen_judges)
    return [r["judge"] for r in run.store.query(
        f"SELECT DISTINCT judge FROM judgments WHERE 1{clause} ORDER BY judge", chosen)]  # fmt: skip


def _header(run: ReportRun, authors: list[str], judges: list[str]) -> dict[str, Any]:
    """The page's JSON of the browser but its prompts: authors, judges, questions."""
    return {
        "authors": [
            {"id": a, "label": run.labels.author(a), "human": a == HUMAN_AUTHOR} for a in authors
        ],
        "judges": [{"id": j, "label": run.labels.judge(j)} for j in judges],
        "dimensions": [
            {
                "key": d.key,
                "label": d.label,
                "abbr": ABBREVIATIONS[d.key],
                "q": d.question,
                "long": d.statement,
            }
            for d in DIMENSIONS
        ],
        "comments": [
            # "Why human authorship (Q13)", as the report's tables and charts name the item
            {"q": c.question, "about": next(d for d in DIMENSIONS if d.question == c.about).label}
            for c in COMMENTS
        ],
    }


def check_state(poem: dict[str, Any]) -> int:
    """The poem's form-check state as report.js filters on it: 0 not checked (or no poem),
    1 passed, 2 failed."""
    check = poem.get("c")
    if not check or check["ok"] is None:
        return 0
    return 1 if check["ok"] else 2


class BrowserData(NamedTuple):
    """`data`: the page's JSON of the browser, each prompt with `k` (author and check state of
    each of its poems, in turn: what the filters need); `parts`: each prompt's poems, encoded
    (`json_for_html`, UTF-8); `counts` and `failed`: poems and failed generations (cards
    without a poem) by prompt, for prompts with any."""

    data: dict[str, Any]
    parts: list[bytes]
    counts: dict[int, int]
    failed: dict[int, int]


def browser_data(run: ReportRun) -> BrowserData:
    """Everything the browser shows (see report.js for the reading side), each prompt's poems
    encoded as soon as they are read: only one prompt's poems are Python objects at a time."""
    # every generator, those with no poem too (a model whose every call failed shows its
    # errors, rather than leave the browser and its author filter)
    authors = author_order(r["author"] for r in run.store.query(
        "SELECT DISTINCT author FROM generations"))  # fmt: skip
    judges = _judges(run)
    cards = _PoemCards(run, authors, judges)
    human = cards.author_index.get(HUMAN_AUTHOR)
    prompts: list[dict[str, Any]] = []
    parts: list[bytes] = []
    counts: dict[int, int] = {}
    failed: dict[int, int] = {}
    rows = _prompts(run)
    # A poem with several prompts (a store merged before `merge` refused a second template):
    # its prompts' `#prompt=` links name each prompt (`link`), not the poem, whose link opened
    # its first prompt whichever was chosen; report.js still opens that one for a poem's id.
    shared = {poem for poem, n in Counter(p["poem_id"] for p in rows).items() if n > 1}
    for index, p in enumerate(rows):
        poems = cards.of(p["prompt_id"])
        for poem in poems:
            tally = failed if "x" in poem else counts
            tally[index] = tally.get(index, 0) + 1
        prompts.append({
            "id": p["poem_id"], "title": p["title"] or "", "poet": p["poet"] or "",
            "form": p["form"], "text": p["text"],
            **({"link": p["prompt_id"]} if p["poem_id"] in shared else {}),
            # shown only where the prompt has no human poem, which holds the same text
            **({} if any(poem["a"] == human for poem in poems) else {"original": p["content"]}),
            "k": [n for poem in poems for n in (poem["a"], check_state(poem))],
        })  # fmt: skip
        parts.append(json_for_html(poems).encode("utf-8"))
    return BrowserData({**_header(run, authors, judges), "prompts": prompts}, parts, counts, failed)


@section(80)
def browser(run: ReportRun) -> Section | None:
    if not run.store.count("generations"):  # failed generations are shown too
        return None
    data, parts, counts, failed = browser_data(run)
    forms = sorted({p["form"] for p in data["prompts"]})
    html = render("browser.html.j2", authors=data["authors"], forms=forms,
                  prompts=data["prompts"], counts=counts, failed=failed)  # fmt: skip
    return Section("browser", "Poem browser", html, data=data, parts=parts)
