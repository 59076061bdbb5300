"""The judge-answer parser: tolerant of form, strict on meaning (corpus and property tests)."""

from __future__ import annotations

import json
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from judge_corpus import ANSWER, SCORES, Case, accepted, compact, numbered_list, rejected
from pydantic import ValidationError

from poemetric.judge import (
    COMMENTS,
    DIMENSIONS,
    GROUPS,
    JudgeAnswer,
    JudgeParseError,
    parse_judge_response,
    parse_judgment,
)
from poemetric.prompts import JUDGE_TEMPLATE, load_template

ACCEPTED = list(accepted())
REJECTED = list(rejected())


@pytest.mark.parametrize("case", ACCEPTED, ids=[c.id for c in ACCEPTED])
def test_corpus_answers_give_exactly_their_values(case: Case) -> None:
    assert parse_judge_response(case.response).scores_by_question() == case.scores


@pytest.mark.parametrize("case", REJECTED, ids=[c.id for c in REJECTED])
def test_corpus_ambiguous_answers_are_rejected_naming_the_item(case: Case) -> None:
    with pytest.raises(JudgeParseError) as info:
        parse_judge_response(case.response)
    assert case.reason is not None and case.reason in str(info.value)


def test_columns_comments_and_notes() -> None:
    parsed = parse_judgment(compact({**SCORES, "11": " Flat. ", "confidence": 0.9}))
    columns = parsed.answer.to_columns()
    assert columns["literary_devices"] == 0 and columns["comment_overall_quality"] == "Flat."
    assert columns["comment_literary_devices"] is None  # absent, not empty
    assert parsed.comments_missing == [9, 13]
    assert "comments absent: 9, 13" in parsed.notes
    assert any("confidence" in note for note in parsed.notes)


def test_comment_text_is_kept_verbatim_and_never_read_as_a_score() -> None:
    text = "  Feels like “Frost”, {braces}, 1-5 scale: 2 or 3.  "
    answer = parse_judge_response(compact({**ANSWER, "13": text}))
    assert answer.comment_human_authorship == text.strip()
    assert answer.scores_by_question() == SCORES


def _prompt_questions() -> dict[int, str]:
    """The comment questions as prompts/judge.md prints them ("11. Please comment on ...")."""
    text = load_template(JUDGE_TEMPLATE).text
    numbers = "|".join(str(c.question) for c in COMMENTS)
    return {int(m[1]): m[2] for m in re.finditer(rf"^({numbers})\. (.+)$", text, re.MULTILINE)}


@pytest.mark.parametrize("shape", ["{q}: {c}", "{q} {c}", "{q}\n{c}", "{q}\n\n{c}", "{Q}: {c}"])
def test_a_list_that_repeats_the_comment_question_keeps_only_the_comment(shape: str) -> None:
    questions = _prompt_questions()
    assert sorted(questions) == [9, 11, 13]
    answer = {**ANSWER}
    for number, question in questions.items():
        shown = question.replace(" why", ", why").rstrip(".").upper()  # case and punctuation
        answer[str(number)] = shape.format(q=question, Q=shown, c=ANSWER[str(number)])
    parsed = parse_judgment(numbered_list(answer))
    assert parsed.answer.comments() == {k: ANSWER[k] for k in ("9", "11", "13")}
    assert parsed.answer.scores_by_question() == SCORES


@pytest.mark.parametrize(
    ("line", "comment"),
    [
        (  # the wording of the structured schema, with the prompt's "Please comment on"
            "11. Please comment on why you gave your answer to question 10 above.: Because the "
            "imagery is fresh.",
            "Because the imagery is fresh.",
        ),
        (
            "11. Why you gave your answer to question 10: Above all, it is flat.",
            "Above all, it is flat.",
        ),
        (
            "**11. Comment:** Please comment on why you gave the answer that you did for question "
            "10 above. Flat.",
            "Flat.",
        ),
        (  # the question in quotation marks, the answer right after the closing one
            '11. "Please comment on why you gave the answer that you did for question 10 above." '
            "The imagery is fresh.",
            "The imagery is fresh.",
        ),
        ("11. “Why you gave your answer to question 10” Flat rhymes.", "Flat rhymes."),
        # the judge's own words are kept: no repeat, another item's question, or no break after it
        ("11. Why you gave it a 3? Flat rhymes.", "Why you gave it a 3? Flat rhymes."),
        (
            '11. "Why you gave it a 3" is fair; flat rhymes.',
            '"Why you gave it a 3" is fair; flat rhymes.',
        ),
        (
            "11. Please comment on why you gave the answer that you did for question 12 above: ok",
            "Please comment on why you gave the answer that you did for question 12 above: ok",
        ),
        (
            "11. Why you gave your answer to question 10 above all is its flatness.",
            "Why you gave your answer to question 10 above all is its flatness.",
        ),
    ],
)
def test_the_repeated_question_is_stripped_only_when_it_is_the_instruments(
    line: str, comment: str
) -> None:
    answer = {k: v for k, v in ANSWER.items() if k != "11"}
    text = numbered_list(answer).replace("\n12. ", f"\n{line}\n12. ")
    assert parse_judgment(text).answer.comment_overall_quality == comment


@pytest.mark.parametrize("shape", ["{q} {c}", "{q}: {c}", "{q}\n{c}", "{Q}: {c}"])
def test_a_json_comment_that_repeats_its_question_keeps_only_the_comment(shape: str) -> None:
    answer = {**ANSWER}
    for number, question in _prompt_questions().items():
        shown = question.replace(" why", ", why").rstrip(".").upper()  # case and punctuation
        answer[str(number)] = shape.format(q=question, Q=shown, c=ANSWER[str(number)])
    parsed = parse_judgment(compact(answer))
    assert parsed.answer.comments() == {k: ANSWER[k] for k in ("9", "11", "13")}
    assert parsed.answer.scores_by_question() == SCORES


@pytest.mark.parametrize(
    ("value", "comment"),
    [
        (
            "Why you gave your answer to question 10: Above all, it is flat.",
            "Above all, it is flat.",
        ),
        ({"comment": "Please comment on why you gave your answer to question 10. Flat."}, "Flat."),
        (
            "“Please comment on why you gave the answer that you did for question 10 above.” Flat.",
            "Flat.",
        ),
        # the judge's own words are kept: another item's question, or no break after the repeat
        (
            "Please comment on why you gave the answer that you did for question 12 above: ok",
            "Please comment on why you gave the answer that you did for question 12 above: ok",
        ),
        (
            "Why you gave your answer to question 10 above all is its flatness.",
            "Why you gave your answer to question 10 above all is its flatness.",
        ),
    ],
)
def test_a_json_comment_loses_only_the_instruments_question(value: object, comment: str) -> None:
    parsed = parse_judgment(compact({**ANSWER, "11": value}))
    assert parsed.answer.comment_overall_quality == comment


@pytest.mark.parametrize(
    "value",
    ["", "   ", "Please comment on why you gave the answer that you did for question 10 above."],
)
def test_an_empty_json_comment_is_absent(value: str) -> None:
    parsed = parse_judgment(compact({**ANSWER, "11": value}))
    assert parsed.answer.to_columns()["comment_overall_quality"] is None
    assert parsed.comments_missing == [11]
    assert parsed.notes == ("comments absent: 11",)


def test_an_empty_json_comment_given_beside_a_full_one_is_not_a_disagreement() -> None:
    text = compact(ANSWER).replace('"11": ', '"11": "", "11": ')
    assert parse_judgment(text).answer.comment_overall_quality == ANSWER["11"]


def test_messages_name_every_failed_item() -> None:
    broken = {**ANSWER, "1": 6, "3": 0, "10": "3-4"}
    del broken["6"]
    with pytest.raises(JudgeParseError) as info:
        parse_judge_response(compact(broken))
    problems = info.value.problems
    assert len(problems) == 4
    assert any("item 1 (form): score 6 is outside 1-5" in p for p in problems)
    assert any("item 3 (vocabulary): 0 (N/A) is not an option" in p for p in problems)
    assert any("item 10 (overall_quality)" in p and "more than one number" in p for p in problems)
    assert any("item 6 (emotional_resonance) is missing" in p for p in problems)


def test_model_is_strict_on_direct_construction() -> None:
    scores = {d.key: 3 for d in DIMENSIONS}
    with pytest.raises(ValidationError):
        JudgeAnswer.model_validate({**scores, "form": "4"})
    with pytest.raises(ValidationError):
        JudgeAnswer.model_validate({**scores, "theme": 0})


def test_dimension_metadata_matches_the_questionnaire() -> None:
    assert [d.question for d in DIMENSIONS] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12]
    assert {d.key for d in DIMENSIONS if d.allows_na} == {"imagery", "literary_devices"}
    assert GROUPS["basic"] == ("form", "theme")
    assert GROUPS["appraisal"] == ("overall_quality", "human_authorship")


# -- properties ---------------------------------------------------------------------------------
SCORE_ITEMS = [str(d.question) for d in DIMENSIONS]
NA_ITEMS = {str(d.question) for d in DIMENSIONS if d.allows_na}
NAMES = {str(d.question): d.short_label for d in DIMENSIONS}
LABELS = {1: "Strongly disagree", 2: "Disagree", 3: "Neutral", 4: "Agree", 5: "Strongly agree"}
PROPERTY = settings(
    max_examples=int(os.environ.get("POEMETRIC_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

scores_strategy = st.fixed_dictionaries(
    {q: st.integers(0 if q in NA_ITEMS else 1, 5) for q in SCORE_ITEMS}
)
comment_strategy = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,;'éü", min_size=1, max_size=40
).filter(lambda t: t.strip() and not t.strip().lower().startswith(("q", "item")))
comments_strategy = st.dictionaries(st.sampled_from(["9", "11", "13"]), comment_strategy)


def value_forms(score: int) -> list[object]:
    if score == 0:
        return [0, "0", "N/A", "0 - N/A (No imagery is used)", 0.0]
    label = LABELS[score]
    return [score, float(score), str(score), f"{score}.0", f"**{score}**", f"{score}/5",
            f"{score} - {label}", f"{score} ({label})", f"{label} ({score})", label,
            f"{label.upper()}.", chr(0xFF10 + score)]  # fmt: skip


def key_forms(question: str) -> list[str]:
    forms = [question, f"Q{question}", f"{question}.", f"question {question}"]
    if question in NAMES:
        forms += [f"{question} ({NAMES[question]})", NAMES[question]]
    return forms


@st.composite
def rendered_answers(draw: st.DrawFn) -> tuple[str, dict[str, int], dict[str, str]]:
    scores = draw(scores_strategy)
    comments = {k: v.strip() for k, v in draw(comments_strategy).items()}
    values: dict[str, object] = {
        q: draw(st.sampled_from(value_forms(s))) for q, s in scores.items()
    }
    values.update(comments)
    order = draw(st.permutations(sorted(values, key=int)))
    shell = draw(st.sampled_from(["json", "indented", "fence", "prose", "python", "think",
                                  "closing-tag", "nested", "extras", "list", "markdown-list"]))  # fmt: skip
    if shell in ("list", "markdown-list"):
        lines = []
        for q in sorted(values, key=int):
            value = values[q] if not isinstance(values[q], float) else int(values[q])  # type: ignore[call-overload]
            lines.append(
                f"{q}. {value}"
                if shell == "list"
                else f"- **{q}. {NAMES.get(q, 'Comment')}:** {value}"
            )
        return "\n".join(lines), scores, comments
    obj = {draw(st.sampled_from(key_forms(q))): values[q] for q in order}
    if len(obj) < len(values):  # two items drew the same key spelling (impossible by design)
        raise AssertionError("key forms collide")
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
    if shell == "indented":
        text = json.dumps(obj, indent=2, ensure_ascii=False)
    elif shell == "fence":
        text = f"```json\n{text}\n```"
    elif shell == "prose":
        text = f"Here is my evaluation of the poem.\n{text}\nI hope this helps."
    elif shell == "python":
        text = repr(obj)
    elif shell == "think":
        decoy = json.dumps({q: 1 if s != 1 else 2 for q, s in scores.items()})
        text = f"<think>A first idea: {decoy}</think>\n{text}"
    elif shell == "closing-tag":
        text = f"The poem is a sonnet, I think {{'10': 5}}.\n</think>\n{text}"
    elif shell == "nested":
        text = json.dumps({"evaluation": obj, "model": "judge"}, ensure_ascii=False)
    elif shell == "extras":
        text = json.dumps({**obj, "confidence": 0.8, "summary": "fine"}, ensure_ascii=False)
    return text, scores, comments


@PROPERTY
@given(rendered_answers())
def test_valid_answers_in_any_shell_give_exactly_their_values(
    case: tuple[str, dict[str, int], dict[str, str]],
) -> None:
    text, scores, comments = case
    parsed = parse_judgment(text)
    assert parsed.answer.scores_by_question() == scores
    assert parsed.answer.comments() == comments


HEDGES = ["{a}-{b}", "{a} or {b}", "{a}.5", "1-5 scale: {a}", "{a}/{b}0", "between {a} and {b}",
          "{a} (Good)", "{a}–{b}", "{a}, maybe {b}", "~{a}", "{a} or so"]  # fmt: skip


@st.composite
def mutated_answers(draw: st.DrawFn) -> tuple[str, str]:
    """A valid answer with one change of meaning; returns (text, fragment the reason names)."""
    scores = draw(scores_strategy)
    answer: dict[str, object] = {**scores, **draw(comments_strategy)}
    question = draw(st.sampled_from(SCORE_ITEMS))
    other = draw(st.sampled_from([s for s in range(1, 6) if s != scores[question]]))
    kind = draw(st.sampled_from(["hedge", "duplicate-key", "respelled-key", "missing",
                                 "second-answer", "unterminated-think"]))  # fmt: skip
    if kind == "hedge":
        # a hedge between two whole numbers on the 1-5 scale (an N/A item hedges from 1)
        low = max(1, scores[question])
        a, b = sorted({low, draw(st.sampled_from([s for s in range(1, 6) if s != low]))})
        answer[question] = draw(st.sampled_from(HEDGES)).format(a=a, b=b)
        return json.dumps(answer), f"item {question}"
    if kind == "duplicate-key":
        text = json.dumps(answer)
        return text[:-1] + f', "{question}": {other}}}', f"item {question}"
    if kind == "respelled-key":
        spelling = draw(st.sampled_from(key_forms(question)[1:]))
        return json.dumps({**answer, spelling: other}), f"item {question}"
    if kind == "missing":
        del answer[question]
        return json.dumps(answer), f"item {question}"
    if kind == "second-answer":
        first, second = json.dumps(answer), json.dumps({**answer, question: other})
        texts = [first, second] if draw(st.booleans()) else [second, first]
        return "\n\nOn reflection:\n".join(texts), f"item {question}"
    return "<think>\nLet me draft: " + json.dumps(answer) + "\nHmm, item", "unterminated"


@PROPERTY
@given(mutated_answers())
def test_a_change_of_meaning_is_rejected_naming_the_item(case: tuple[str, str]) -> None:
    text, fragment = case
    with pytest.raises(JudgeParseError) as info:
        parse_judgment(text)
    assert fragment in str(info.value)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-10, 20)
    | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=6)
    ),
    max_leaves=20,
)


@PROPERTY
@given(st.one_of(st.text(max_size=300), json_values.map(json.dumps)))
def test_arbitrary_text_is_read_or_rejected_never_crashes(text: str) -> None:
    try:
        parsed = parse_judgment(text)
    except JudgeParseError:
        return
    assert set(parsed.answer.scores_by_question()) == set(SCORE_ITEMS)
