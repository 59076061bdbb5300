"""The judge-answer parser: lenient about form, strict about content."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from poemetric.judge import (
    DIMENSIONS,
    GROUPS,
    JudgeAnswer,
    JudgeParseError,
    parse_judge_response,
)

CLEAN = {
    "1": 4, "2": 5, "3": 3, "4": 4, "5": 2, "6": 3, "7": 4, "8": 0,
    "9": "No simile or metaphor is used.", "10": 3, "11": "Competent but flat.",
    "12": 2, "13": "The rhymes feel mechanical.",
}  # fmt: skip
EXPECTED = {
    "form": 4, "theme": 5, "vocabulary": 3, "creativity": 4, "idiosyncrasy": 2,
    "emotional_resonance": 3, "imagery": 4, "literary_devices": 0, "overall_quality": 3,
    "human_authorship": 2,
}  # fmt: skip


def _scores(answer: JudgeAnswer) -> dict[str, int]:
    return answer.scores()


def test_plain_json() -> None:
    answer = parse_judge_response(json.dumps(CLEAN))
    assert _scores(answer) == EXPECTED
    assert answer.comment_overall_quality == "Competent but flat."
    columns = answer.to_columns()
    assert set(columns) == {*EXPECTED, "comment_literary_devices", "comment_overall_quality",
                            "comment_human_authorship"}  # fmt: skip
    assert columns["literary_devices"] == 0


MESSY = {
    "json fence with prose": "Here is my evaluation of the poem.\n\n```json\n"
    + json.dumps(CLEAN, indent=2)
    + "\n```\nLet me know if you need more detail.",
    "bare fence": "```\n" + json.dumps(CLEAN) + "\n```",
    "think block with a decoy object": "<think>The form is {mostly} right; maybe "
    '{"1": 1, "2": 1}. Let me score properly.</think>\n' + json.dumps(CLEAN),
    "unterminated-open think (server stripped the opening tag)": "I should weigh the meter...\n"
    "</think>\n\n" + json.dumps(CLEAN),
    "single quotes and trailing comma": "{'1': 4, '2': 5, '3': 3, '4': 4, '5': 2, '6': 3, '7': 4, "
    "'8': 0, '9': \"No simile or metaphor is used.\", '10': 3, '11': 'Competent but flat.', "
    "'12': 2, '13': 'The rhymes feel mechanical.',}",
    "scores as strings with labels": json.dumps(
        {
            **CLEAN,
            "1": "4 - Agree",
            "2": "5 (Strongly agree)",
            "3": "3",
            "8": "0 - N/A (No literary devices are used)",
            "12": "2/5",
        }
    ),
    "Q-prefixed and dotted keys": json.dumps(
        {f"Q{k}" if int(k) % 2 else f"{k}.": v for k, v in CLEAN.items()}
    ),
    "integer keys (python literal)": "{"
    + ", ".join(f"{k}: {json.dumps(v)}" for k, v in CLEAN.items())
    + "}",
    "bare unquoted keys": "{" + ", ".join(f"Q{k}: {json.dumps(v)}" for k, v in CLEAN.items()) + "}",
    "nested under answers": json.dumps({"answers": CLEAN, "note": "done"}),
    "likert labels only": json.dumps(
        {**CLEAN, "1": "Agree", "2": "Strongly agree", "10": "Neutral"}
    ),
    "floats that are whole": json.dumps({**CLEAN, "1": 4.0}),
    "N/A word for imagery-style item": json.dumps({**CLEAN, "8": "N/A"}),
    "markdown bold scores": json.dumps({**CLEAN, "1": "**4**"}),
    "apostrophes inside prose and strings": "The poet's voice is clear. "
    + json.dumps({**CLEAN, "11": "It's the poet's best."}),
}


@pytest.mark.parametrize("text", list(MESSY.values()), ids=list(MESSY))
def test_messy_but_complete_answers_parse(text: str) -> None:
    assert _scores(parse_judge_response(text)) == EXPECTED


def test_last_complete_object_wins_over_an_earlier_draft() -> None:
    draft = {**CLEAN, "10": 5}
    text = "Draft:\n" + json.dumps(draft) + "\nOn reflection, final answer:\n" + json.dumps(CLEAN)
    assert parse_judge_response(text).overall_quality == 3


def test_comment_values_are_kept_verbatim() -> None:
    text = json.dumps({**CLEAN, "13": "  Feels like “Frost”, {braces} and all.  "})
    assert (
        parse_judge_response(text).comment_human_authorship
        == "Feels like “Frost”, {braces} and all."
    )


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"1": 6}, "item 1 (form): score 6 is outside 1-5"),
        ({"3": 0}, "item 3 (vocabulary): 0 (N/A) is not an option"),
        ({"7": -1}, "item 7 (imagery): score -1 is outside 0-5"),
        ({"10": 3.5}, "item 10 (overall_quality): 3.5 is not a whole score"),
        ({"12": "likely human"}, "item 12 (human_authorship): 'likely human' holds no score"),
        ({"2": "N/A"}, "item 2 (theme): 'N/A' (N/A) is not an option"),
        ({"4": None}, "item 4 (creativity): None is not a score"),
        ({"5": True}, "item 5 (idiosyncrasy): True is not a score"),
        ({"6": "4 - Disagree"}, "contradicts itself"),
        ({"14": 3}, "unexpected item numbers [14]"),
    ],
)
def test_bad_scores_name_the_item(change: dict[str, object], fragment: str) -> None:
    with pytest.raises(JudgeParseError) as info:
        parse_judge_response(json.dumps({**CLEAN, **change}))
    assert fragment in str(info.value)


def test_missing_items_are_all_listed() -> None:
    partial = {k: v for k, v in CLEAN.items() if k not in {"6", "11"}}
    with pytest.raises(JudgeParseError) as info:
        parse_judge_response(json.dumps(partial))
    assert "item 6 (emotional_resonance) is missing" in str(info.value)
    assert "item 11 (comment_overall_quality) is missing" in str(info.value)
    assert len(info.value.problems) == 2


def test_missing_comments_allowed_when_not_required() -> None:
    scores_only = {k: v for k, v in CLEAN.items() if k not in {"9", "11", "13"}}
    answer = parse_judge_response(json.dumps(scores_only), require_comments=False)
    assert answer.comment_literary_devices == ""


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("I cannot evaluate this poem.", "no JSON object"),
        ('{"1": 4, "2": 5, "3": ', "unclosed JSON object"),
        ('{"score": 4, "comment": "nice"}', "no JSON object with numbered answers"),
        (json.dumps({**CLEAN, "Q1": 2}), "item 1 is given twice"),
    ],
)
def test_unusable_responses(text: str, fragment: str) -> None:
    with pytest.raises(JudgeParseError, match=fragment):
        parse_judge_response(text)


def test_model_is_strict_on_direct_construction() -> None:
    with pytest.raises(ValidationError):
        JudgeAnswer.model_validate({**EXPECTED, "form": "4"})
    with pytest.raises(ValidationError):
        JudgeAnswer.model_validate({**EXPECTED, "theme": 0})


def test_dimension_metadata_matches_the_questionnaire() -> None:
    assert [d.question for d in DIMENSIONS] == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12]
    assert {d.key for d in DIMENSIONS if d.allows_na} == {"imagery", "literary_devices"}
    assert GROUPS["basic"] == ("form", "theme")
    assert GROUPS["appraisal"] == ("overall_quality", "human_authorship")
    assert len(GROUPS["advanced"]) == 6
