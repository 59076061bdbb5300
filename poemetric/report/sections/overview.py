"""Overview: what the run holds and what the analysis left out."""

from __future__ import annotations

from poemetric.analysis.author_kinds import model_word
from poemetric.analysis.data import HUMAN_AUTHOR, author_order
from poemetric.judge.pending import judge_clause, judgment_errors
from poemetric.report.model import ReportRun, Section
from poemetric.report.registry import section
from poemetric.report.render import render


@section(10)
def overview(run: ReportRun) -> Section:
    store = run.store
    dataset = store.get_meta("dataset", {}) or {}
    generations = run.data.generations
    authors = (
        [a for a in generations["author"].unique() if a != HUMAN_AUTHOR] if len(generations) else []
    )
    # generators whose every generation failed: in no table, chart or note by name
    no_poem = author_order(
        r["author"] for r in store.query("SELECT DISTINCT author FROM generations")
        if r["author"] != HUMAN_AUTHOR and r["author"] not in set(authors)
    )  # fmt: skip
    # the judgments of the judges shown (`--judge`), as the tables, charts and notes count them
    chosen = run.data.chosen_judges
    of_chosen, judges = judge_clause(chosen)
    errors = judgment_errors(store, chosen)
    word = model_word(generations, authors)  # "model" where the Markov baseline is among them
    kind = f"{word[0].upper()}{word[1:]} authors"
    failed_authors = ", ".join(run.labels.author_list(no_poem))
    counts = {
        "Prompts": store.count("prompts"),
        kind: len(authors),
        **({f"{kind} with no poem (every generation failed)": failed_authors} if no_poem else {}),
        f"Poems ({word}, successful)": int((generations["author"] != HUMAN_AUTHOR).sum()),
        "Generations failed": store.count("generations", "status != 'ok'"),
        "Form checks": store.count("form_checks"),
        # every judge of the judgments counted below, one whose every call failed too (the
        # Judges section lists it): not only those with a successful judgment
        "Judges": store.query(
            "SELECT COUNT(DISTINCT judge) FROM judgments WHERE 1" + of_chosen, judges
        )[0][0],
        "Judgments (successful)": store.count("judgments", "status = 'ok'" + of_chosen, judges),
        "Judgments failed": len(errors.failed),
        **({"Judgments pending a re-ask": len(errors.pending)} if errors.pending else {}),
        "Not judged (not a poem)": store.count(
            "judgments", "status = 'not_judged'" + of_chosen, judges
        ),
    }
    notes = list(dict.fromkeys([*run.notes, *run.analysis.notes]))
    html = render("overview.html.j2", dataset=dataset, counts=counts, notes=notes,
                  experts=run.experts_path.name if run.experts_path else None)  # fmt: skip
    return Section("overview", "Overview", html)
