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
from typing import Any

from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.judge.pending import judge_clause
from poemetric.questionnaire import COMMENTS, DIMENSION_KEYS, DIMENSIONS
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render

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


def browser_payload(run: ReportRun) -> dict[str, Any]:
    """Everything the browser shows, in compact arrays (see report.js for the reading side)."""
    store = run.store
    generations = run.data.generations
    authors = author_order(generations["author"].unique())
    author_index = {a: i for i, a in enumerate(authors)}
    prompts = [
        dict(r)
        for r in store.query(
            "SELECT p.prompt_id, p.poem_id, p.text, po.title, po.author AS poet, po.form, "
            "po.content FROM prompts p JOIN poems po ON po.poem_id = p.poem_id "
            "ORDER BY po.position, p.prompt_id"
        )
    ]
    prompt_index = {p["prompt_id"]: i for i, p in enumerate(prompts)}
    checks = {r["generation_id"]: _check(r) for r in store.query(
        "SELECT generation_id, passed, form_score, meter_score, rhyme_score, explanation, error "
        "FROM form_checks")}  # fmt: skip
    judges = sorted(run.data.judges)
    judge_index = {j: i for i, j in enumerate(judges)}
    comment_keys = [c.key for c in COMMENTS]
    judgments: dict[str, list[dict[str, Any]]] = {}
    judge_filter, chosen = judge_clause(run.data.chosen_judges)  # --judge: its judges only
    for r in store.query(
        f"SELECT generation_id, judge, sample_index, {', '.join(DIMENSION_KEYS)}, "
        f"{', '.join(comment_keys)} FROM judgments WHERE status = 'ok'{judge_filter} "
        "ORDER BY judge, sample_index",
        chosen,
    ):
        judgments.setdefault(r["generation_id"], []).append({
            "j": judge_index.get(r["judge"], 0), "n": r["sample_index"],
            "v": [r[k] for k in DIMENSION_KEYS], "c": [r[k] or "" for k in comment_keys],
        })  # fmt: skip
    poems: list[dict[str, Any]] = []
    columns = ["generation_id", "prompt_id", "author", "sample_index", "poem"]
    for generation_id, prompt_id, author, sample, text in generations[columns].itertuples(
        index=False, name=None
    ):
        if prompt_id not in prompt_index:
            continue
        poems.append({
            "p": prompt_index[prompt_id], "a": author_index[author], "s": int(sample),
            "t": str(text), "c": checks.get(generation_id), "j": judgments.get(generation_id, []),
        })  # fmt: skip
    for r in store.query(
        "SELECT prompt_id, author, sample_index, error FROM generations WHERE status != 'ok' "
        "OR poem IS NULL"
    ):
        if r["prompt_id"] in prompt_index and r["author"] in author_index:
            poems.append({"p": prompt_index[r["prompt_id"]], "a": author_index[r["author"]],
                          "s": r["sample_index"], "t": "", "x": r["error"] or "no poem"})  # fmt: skip
    poems.sort(key=lambda p: (p["p"], p["a"], p["s"]))
    with_human = {p["p"] for p in poems if authors[p["a"]] == HUMAN_AUTHOR}
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
        "prompts": [
            {
                "id": p["poem_id"],
                "title": p["title"] or "",
                "poet": p["poet"] or "",
                "form": p["form"],
                "text": p["text"],
                # shown only where the prompt has no human poem, which holds the same text
                **({} if i in with_human else {"original": p["content"]}),
            }
            for i, p in enumerate(prompts)
        ],
        "poems": poems,
    }


def check_state(poem: dict[str, Any]) -> int:
    """The poem's form-check state as report.js filters on it: 0 not checked (or no poem),
    1 passed, 2 failed."""
    check = poem.get("c")
    if not check or check["ok"] is None:
        return 0
    return 1 if check["ok"] else 2


def split_payload(payload: dict[str, Any]) -> tuple[dict[str, Any], list[list[dict[str, Any]]]]:
    """The page's JSON without the poems, each prompt with `k` (author and check state of each
    of its poems, in turn: what the filters need), and the poems of each prompt (without `p`)."""
    chunks: list[list[dict[str, Any]]] = [[] for _ in payload["prompts"]]
    for poem in payload["poems"]:
        chunks[poem["p"]].append({k: v for k, v in poem.items() if k != "p"})
    prompts = [
        {**prompt, "k": [n for poem in chunk for n in (poem["a"], check_state(poem))]}
        for prompt, chunk in zip(payload["prompts"], chunks, strict=True)
    ]
    return {**{k: v for k, v in payload.items() if k != "poems"}, "prompts": prompts}, chunks


@section(80)
def browser(run: ReportRun) -> Section | None:
    if run.data.generations.empty:
        return None
    data, chunks = split_payload(browser_payload(run))
    forms = sorted({p["form"] for p in data["prompts"]})
    counts: dict[int, int] = {}  # poems per prompt
    failed: dict[int, int] = {}  # failed generations per prompt (cards without a poem)
    for index, chunk in enumerate(chunks):
        for poem in chunk:
            tally = failed if "x" in poem else counts
            tally[index] = tally.get(index, 0) + 1
    html = render("browser.html.j2", authors=data["authors"], forms=forms,
                  prompts=data["prompts"], counts=counts, failed=failed)  # fmt: skip
    return Section("browser", "Poem browser", html, data=data, parts=chunks)
