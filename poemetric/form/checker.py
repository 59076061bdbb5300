"""Public entry of rule-based form checking: `check_poem` -> `FormCheck`.

A poem passes when every applicable score (metre, rhyme, form) reaches the threshold (0.7 by
default, as in POEMetric Appendix B). Scores are None when the request and the form ask nothing of
that kind (e.g. rhyme for an unrhymed sestina). Bad input never raises: the `FormCheck` then has
`error` set and no scores.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from itertools import chain
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from poemetric.text.plural import counted

if TYPE_CHECKING:
    from threadpoolctl import threadpool_limits

from poemetric.form import user_lexicon
from poemetric.form.adapters import (
    line_words,
    middle_english_reading,
    prepare_lines,
    read_meter,
)
from poemetric.form.applicable import applicable_scores
from poemetric.form.cut_notes import (
    char_cut_note,
    line_cut_note,
    unsaid_cuts,
    whole_count,
    with_cut,
)
from poemetric.form.forms import EXTRA_FORMS, FORMS, RULES, FormOutcome, FormRequest
from poemetric.form.middle_english import is_middle_english
from poemetric.form.parsing import (
    MAX_LINES,
    ParsedPoem,
    PatternError,
    latin_share,
    parse_poem,
    parse_rhyme_pattern,
)
from poemetric.form.partial_rhymes import PREFIX as PARTIAL_PREFIX
from poemetric.form.partial_rhymes import partial_rhyme_finding
from poemetric.form_defaults import DEFAULT_THRESHOLD
from poemetric.form_names import normalize_form

#: Bump when a change can alter any verdict; the pipeline stage re-checks rows of older versions.
#: A check records it with its user lexicon's digest, if any (`user_lexicon.recorded_version`).
CHECKER_VERSION = "form-2.14"
#: Inputs longer than this many characters are cut before parsing (time and memory bound).
MAX_CHARS = 200_000


class Issue(BaseModel):
    """One failed or weak constraint."""

    constraint: str = Field(
        description="rhyme, meter, lines, stanzas, refrain, radif, end words..."
    )
    lines: list[int] = Field(default_factory=list, description="1-based line numbers involved")
    detail: str


class FormCheck(BaseModel):
    """The verdict on one poem, JSON-ready."""

    form: str
    meter: str | None = None
    rhyme: str | None = None
    passed: bool = False
    #: None when neither the form nor the request asks for the score, or the request cannot be
    #: read; 0.0 for a text that is not a poem (`error_kind` "text") where a poem would have one.
    meter_score: float | None = None
    rhyme_score: float | None = None
    form_score: float | None = None
    threshold: float = DEFAULT_THRESHOLD
    summary: str = ""
    explanation: list[Issue] = Field(default_factory=list)
    facts: dict[str, str] = Field(default_factory=dict)
    lines: int = 0
    stanzas: int = 0
    error: str | None = None
    #: What the error is about: "request" (unknown form, unreadable metre or rhyme pattern: the
    #: checker cannot assess anything) or "text" (empty, a single line, not in Latin script: the
    #: text is not a poem of the requested form, which is a failure of whoever wrote it).
    error_kind: Literal["request", "text"] | None = None
    checker_version: str = CHECKER_VERSION


@contextmanager
def batch_checks() -> Iterator[None]:
    """Check many poems faster: the garbage collector skips the objects that exist already
    (tables, caches: `gc.freeze`) and runs less often, and BLAS uses one thread, for the
    duration of the block.

    The checker makes no reference cycles of its own, and its caches only grow; tracing them
    again and again was a third of the time of a long batch. Used by `check_file` and the
    pipeline stage; settings are restored on exit.
    """
    blas = single_blas_thread()
    threshold = relax_collector()
    try:
        yield
    finally:
        blas.restore_original_limits()
        gc.set_threshold(*threshold)
        gc.unfreeze()


def single_blas_thread() -> threadpool_limits:
    """Limit a BLAS pool that is already running to one thread until
    `restore_original_limits()`: the metre search's products are small, and more threads only
    spin (a library caller's process, numpy loaded first, 1,630 poems on 2 cores: 2.33-2.45 s
    of CPU against 2.73-2.99 s). For a numpy not yet loaded,
    `poemetric.form.blas.ask_one_blas_thread` does better."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def relax_collector() -> tuple[int, int, int]:
    """`batch_checks`' collector settings, without restoring them (a worker process keeps them
    for its life); returns the thresholds they replaced."""
    threshold = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(max(threshold[0], 50_000), max(threshold[1], 20), max(threshold[2], 100))
    return threshold


def _error(
    form: str,
    meter: str | None,
    rhyme: str | None,
    threshold: float,
    message: str,
    kind: Literal["request", "text"] = "request",
    *,
    meter_unscored: bool = False,
) -> FormCheck:
    """A check that found no poem to score. A text that is not a poem (`kind` "text": empty, one
    line, non-Latin script) is a failed check, as `form check` counts it and the report's badge
    shows it: its summary said "not checked: ..." beside `passed` false; only a request the
    checker cannot read is not checked (scores None).

    A text that is not a poem scores 0 on metre, rhyme and form, so that score means count it as
    the failure the pass rate counts (docs/form-check.md, "not a poem"): `form check` wrote null
    scores for it while `form run` stored 0.0, and the analysis averages the stored ones. A
    score the form and request do not ask for stays None, as for a poem (a ghazal has no metre
    score unless one is requested)."""
    score = 0.0 if kind == "text" else None
    scans, rhymes = applicable_scores(
        form, meter=meter is not None, rhyme=rhyme is not None, meter_unscored=meter_unscored
    )
    return FormCheck(
        form=form,
        meter=meter,
        rhyme=rhyme,
        threshold=threshold,
        passed=False,
        meter_score=score if scans else None,
        rhyme_score=score if rhymes else None,
        form_score=score,
        summary=f"FAIL {form}: {message}" if kind == "text" else f"not checked: {message}",
        error=message,
        error_kind=kind,
        checker_version=user_lexicon.recorded_version(),
    )


def known_forms_note(form_key: str) -> str:
    """The forms the checker knows, and the closest to an unknown one (a typo: *sonet*)."""
    import difflib

    close = difflib.get_close_matches(form_key, list(RULES), n=1, cutoff=0.6)
    # A form named with its kind ("Shakespearean sonnet", "sonnet (Petrarchan)") was told "it
    # cannot check this one"; the scheme goes in the rhyme pattern instead.
    named = [form for form in RULES if re.search(rf"\b{re.escape(form)}s?\b", form_key)]
    if close:
        hint = f"; did you mean {close[0]!r}?"
    elif named:
        longest = max(named, key=len)  # "double sestina", not "sestina"
        scheme = (
            ": a scheme such as Shakespearean goes in the rhyme pattern, 'ABAB CDCD EFEF GG'"
            if longest == "sonnet"
            else ""
        )
        hint = f"; did you mean {longest!r}? (give the form alone{scheme})"
    else:
        hint = "; it cannot check this one"
    return f"the checker knows {', '.join(FORMS)} (and {', '.join(EXTRA_FORMS)}){hint}"


#: `FormCheck.facts["reading"]` of a poem in Middle English spelling.
MIDDLE_ENGLISH_NOTE = (
    "Middle English spelling: rhymes also heard by its spelling rules (partial credit); "
    "metre scanned with modern pronunciations"
)


def check_poem(
    text: str,
    form: str,
    meter: str | None = None,
    rhyme: str | None = None,
    *,
    threshold: float = DEFAULT_THRESHOLD,
) -> FormCheck:
    """Check `text` against a form and, optionally, a metre and a rhyme pattern."""
    meter = meter.strip() if isinstance(meter, str) and meter.strip() else None
    rhyme = rhyme.strip() if isinstance(rhyme, str) and rhyme.strip() else None
    form_key = normalize_form(form or "")
    if form_key not in RULES:
        return _error(
            form,
            meter,
            rhyme,
            threshold,
            f"unknown form {form!r}: {known_forms_note(form_key)}",
        )
    # A metre read in part, or not at all, is noted; an unreadable one leaves metre unscored
    # (rhyme and form are checked): it left the whole poem unchecked before form-2.10.
    meter_spec, reading = read_meter(meter)
    unscored = reading.unscored
    try:
        letters = parse_rhyme_pattern(rhyme)[0] if rhyme else None
    except PatternError as exc:
        return _error(form_key, meter, rhyme, threshold, str(exc))
    if not isinstance(text, str) or not text.strip():
        return _error(
            form_key, meter, rhyme, threshold, "empty poem text", "text", meter_unscored=unscored
        )
    notes: list[str] = []
    if len(text) > MAX_CHARS:
        notes.append(char_cut_note(text, MAX_CHARS))  # said in any message on the text
        text = text[:MAX_CHARS]
    if latin_share(text[:5000]) < 0.5:
        return _error(
            form_key,
            meter,
            rhyme,
            threshold,
            with_cut("the text is not in Latin script (English expected)", notes),
            "text",
            meter_unscored=unscored,
        )
    poem = parse_poem(text, max_lines=MAX_LINES)
    if len(poem.lines) < 2:
        lines = counted(len(poem.lines), "verse line")
        return _error(
            form_key,
            meter,
            rhyme,
            threshold,
            with_cut(f"only {lines}; a poem in a fixed form needs more", notes),
            "text",
            meter_unscored=unscored,
        )
    prepare_lines(poem.lines)
    request = FormRequest(form=form_key, meter=meter_spec, rhyme=letters, meter_unscored=unscored)
    if is_middle_english(chain.from_iterable(map(line_words, poem.lines))):
        with middle_english_reading():
            outcome = _explained(poem, request)
        outcome.facts["reading"] = MIDDLE_ENGLISH_NOTE
    else:
        outcome = _explained(poem, request)
    if reading.note:
        outcome.facts["meter request"] = reading.note
    return _verdict(poem, request, outcome, meter, rhyme, threshold, notes)


def _explained(poem: ParsedPoem, request: FormRequest) -> FormOutcome:
    """The form rule's outcome, with the weakest partial rhymes named after its own findings
    (`poemetric.form.partial_rhymes`: explanation only, the rule's findings and cap unchanged)."""
    outcome = RULES[request.form](poem, request)
    partial = partial_rhyme_finding(poem, request, outcome)
    if partial is not None:
        outcome.findings.append(partial)
    return outcome


def _verdict(
    poem: object,
    request: FormRequest,
    outcome: FormOutcome,
    meter: str | None,
    rhyme: str | None,
    threshold: float,
    notes: list[str],
) -> FormCheck:
    from poemetric.form.parsing import ParsedPoem

    assert isinstance(poem, ParsedPoem)
    scores = {
        "meter": _round(outcome.meter_score),
        "rhyme": _round(outcome.rhyme_score),
        "form": _round(outcome.form_score),
    }
    applicable = {k: v for k, v in scores.items() if v is not None}
    failing = [k for k, v in applicable.items() if v < threshold]
    passed = bool(applicable) and not failing
    cuts = list(notes)
    if poem.truncated_from is not None:  # the line count, and the summary, say so
        checked, total = len(poem.lines), poem.truncated_from
        cuts.append(line_cut_note(checked, total))
        outcome.findings = [
            replace(f, detail=whole_count(f.detail, checked, total))
            if f.constraint == "lines"
            else f
            for f in outcome.findings
        ]
    explanation = [
        Issue.model_construct(constraint=f.constraint, lines=list(f.lines), detail=f.detail)
        for f in outcome.findings
    ]
    for note in (*poem.notes, *notes):
        explanation.append(Issue.model_construct(constraint="input", lines=[], detail=note))
    shown = ", ".join(f"{k} {v:.2f}" for k, v in applicable.items())
    if passed:
        summary = f"PASS {request.form}: {shown}"
    else:
        reasons = "; ".join(_first_reason(outcome, k) for k in failing)
        summary = f"FAIL {request.form}: {shown} (threshold {threshold:.2f}) - {reasons}"
    if request.meter_unscored:
        summary += f"; metre {meter!r} not scored (no metre the checker scans)"
    summary = with_cut(summary, unsaid_cuts(summary, cuts, poem.truncated_from, len(poem.lines)))
    facts = dict(outcome.facts)
    return FormCheck.model_construct(
        form=request.form,
        meter=meter,
        rhyme=rhyme,
        passed=passed,
        meter_score=scores["meter"],
        rhyme_score=scores["rhyme"],
        form_score=scores["form"],
        threshold=threshold,
        summary=summary,
        explanation=explanation,
        facts=facts,
        lines=len(poem.lines),
        stanzas=len(poem.stanzas),
        error=None,
        checker_version=user_lexicon.recorded_version(),
    )


_CONSTRAINT_KIND = {"rhyme": {"rhyme"}, "meter": {"meter"}}


def _first_reason(outcome: FormOutcome, kind: str) -> str:
    """The summary's reason for a failing score: its first finding, else what the checker found
    (`facts`). A score made of partial credits (each rhyme pair at 0.5-0.75: near, eye or
    repeated-word rhymes) has no failure finding, since only pairs and lines under half credit
    are listed: the summary said "rhyme score below threshold" and no more; it now gives the
    rhymes counted and the weakest partial rhyme (`poemetric.form.partial_rhymes`)."""
    wanted = _CONSTRAINT_KIND.get(kind)
    partial = next((f for f in outcome.findings if f.detail.startswith(PARTIAL_PREFIX)), None)
    for finding in (*outcome.leads.values(), *outcome.findings):  # a lead: the worst, first
        if finding is partial:
            continue  # the pairs that earned part credit: quoted after the count below
        if (wanted and finding.constraint in wanted) or (
            not wanted and finding.constraint not in {"rhyme", "meter"}
        ):
            return f"{kind}: {finding.detail}"
    fact = outcome.facts.get(kind)
    if fact and kind == "rhyme" and partial is not None:
        weakest = partial.detail.partition(": ")[2].split("; ")[0]
        return f"{kind}: {fact}; weakest partial rhyme: {weakest}"
    if fact:
        unit = "pair" if kind == "rhyme" else "line"
        return f"{kind}: {fact} (no {unit} is under half credit, so none is listed)"
    return f"{kind} score below threshold"


def _round(value: float | None) -> float | None:
    return None if value is None else round(max(0.0, min(1.0, value)), 4)
