"""How a judge's unreadable answer ended, in words: cut at the token limit (`max_tokens`), or
stopped by the provider (a safety or content filter) rather than by the model.

Each provider says so in its finish reason: OpenAI, `openai-compatible`, vLLM and transformers
`length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`. An unreadable answer cut that way is
named as such in its error, with the tokens it spent, so that the summary and the report say
what to change. One cut before any answer outside its reasoning (a reasoning model that spent
the whole limit thinking, an unterminated `<think>` block) is not re-asked (`CUT_BEFORE_ANSWER`,
read by `poemetric.judge.pending.reask_due`): the re-ask goes out with the same limit and a
longer conversation, and is cut the same way. One cut in its visible answer (a JSON object left
open) is re-asked, the judge told why. Any other finish reason than the model's own stop
(OpenAI `content_filter`, Gemini `SAFETY` or `RECITATION`, Anthropic `refusal`) is named too:
"the response is empty" alone hid that the provider withheld the answer.
"""

from __future__ import annotations

from collections.abc import Sequence

from poemetric.judge.parse import answer_outside_reasoning
from poemetric.judge.pending import CUT_BEFORE_ANSWER
from poemetric.providers.base import Completion, GenerationSettings, ModelSpec
from poemetric.providers.finish_reasons import OWN_STOPS as OWN_STOPS
from poemetric.providers.finish_reasons import stopped_at_token_limit
from poemetric.runner.report import StageReport
from poemetric.store.db import RunStore
from poemetric.text.plural import counted, plural


def cut_at_token_limit(completion: Completion) -> bool:
    """Whether the provider stopped the answer at the token limit."""
    return stopped_at_token_limit(completion.finish_reason)


#: How the parse note of an answer read although cut at the token limit starts: a list's last
#: comment stopped mid-sentence was stored as if whole. `poemetric judge reparse` keeps the note,
#: which the stored text alone cannot tell.
CUT_ANSWER_NOTE = "read although cut at the token limit"


def _spent_and_limit(completion: Completion, settings: GenerationSettings) -> str:
    """'finish reason 'length' after 90 output tokens; max_tokens 90'."""
    usage = completion.usage
    spent = (
        f"finish reason {completion.finish_reason!r} after {usage.output_tokens:,} output tokens"
    )
    if usage.reasoning_tokens:
        spent += f", {usage.reasoning_tokens:,} of them reasoning"
    limit = (
        f"max_tokens {settings.max_tokens:,}"
        if settings.max_tokens is not None
        else "max_tokens not set: the adapter's or the provider's default"
    )
    return f"{spent}; {limit}"


def cut_answer_note(completion: Completion, settings: GenerationSettings) -> str | None:
    """The parse note of `completion`, read, when it was cut at the token limit (None when it
    was not): the scores are all there (the parser wants every one), but a comment may be cut
    short (a free-text answer's last; any, where constrained decoding closed one early to fit)."""
    if not cut_at_token_limit(completion):
        return None
    spent_and_limit = _spent_and_limit(completion, settings)
    return f"{CUT_ANSWER_NOTE} ({spent_and_limit}): a comment may be cut short"


def cut_reason(
    completion: Completion, settings: GenerationSettings, *, reasked: bool = True
) -> str | None:
    """What to add to the parse error of `completion`, sent with `settings`, when it was cut at
    the token limit (None when it was not); `reasked`: for a stage that re-asks an unreadable
    answer (the judge's), saying why this one is not."""
    if not cut_at_token_limit(completion):
        return None
    spent_and_limit = _spent_and_limit(completion, settings)
    if answer_outside_reasoning(completion.text):
        return f"the answer was cut at the token limit ({spent_and_limit})"
    not_reasked = (
        "not re-asked, a re-ask at the same limit would be cut the same way; " if reasked else ""
    )
    return (
        f"{CUT_BEFORE_ANSWER} ({spent_and_limit}): {not_reasked}raise settings.max_tokens in the "
        "judge file"
    )


def finish_note(
    completion: Completion, settings: GenerationSettings, *, reasked: bool = True
) -> str | None:
    """What to add to the parse error of `completion`: its `cut_reason`, or the finish reason
    when the provider, not the model, ended it (None for an answer the model ended itself)."""
    cut = cut_reason(completion, settings, reasked=reasked)
    if cut is not None:
        return cut
    finish = completion.finish_reason
    if finish is None or finish.lower() in OWN_STOPS:
        return None
    return f"the provider ended the answer with finish reason {finish!r}, not the model's own stop"


def note_cut_answers(store: RunStore, panel: Sequence[ModelSpec], report: StageReport) -> None:
    """A line under each judge's summary for its answers cut before any answer."""
    if report.dry_run:
        return
    judges = {judge.name: judge for judge in panel}
    for model in report.models:
        judge = judges.get(model.model)
        note = cut_answers_note(store, judge) if judge is not None else None
        if note is not None and note not in model.notes:  # an isolated judge's child said it
            model.notes.append(note)


def cut_answers_note(store: RunStore, judge: ModelSpec) -> str | None:
    """The line under the stage summary about the judge's answers in the run that were cut at
    the token limit before any answer (None when there is none): the summary named only the
    first error of each judge."""
    ((cut,),) = store.query(
        "SELECT COUNT(*) FROM judgments WHERE judge = ? AND status = 'error' AND instr(error, ?)",
        (judge.name, CUT_BEFORE_ANSWER),
    )
    if not cut:
        return None
    limit = judge.settings.max_tokens
    shown = f"max_tokens {limit:,}" if limit is not None else "max_tokens not set"
    return (
        f"{counted(cut, 'answer')} in the run {plural(cut, 'was', 'were')} cut at the token "
        f"limit before any answer ({shown}) and {plural(cut, 'is', 'are')} not re-asked: "
        "raise settings.max_tokens in its judge file, and the next `poemetric judge` asks again."
    )
