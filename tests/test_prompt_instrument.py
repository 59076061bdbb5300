"""The paper's instruments (App. C), as stored in prompts/judge.md and prompts/survey.md, and
everything that restates them: the judge prompt as sent, the questionnaire's statements in
`poemetric.questionnaire`, the structured-output schema and the survey pages.

The instrument text is checked against our stored templates (pinned by hash: they were compared
word for word with the paper), never against a copy of the paper."""

from __future__ import annotations

import html
import json
import re

from poemetric.judge import DIMENSIONS, parse_judgment
from poemetric.judge.structured import judge_answer_schema
from poemetric.prompts import load_template, render_judge_prompt, render_survey
from poemetric.questionnaire import COMMENTS
from poemetric.survey.instrument import appendix_c_survey
from poemetric.survey.render import render
from poemetric.survey.tasks import Page, task

#: SHA-256 of the instruments as verified against App. C. Changing either changes the template
#: hash stored with every judgment (docs/changelog.md): only for a correction checked against
#: the paper, with a changelog bullet.
JUDGE_SHA256 = "6706323b58e0892f691726d3597f73dd01e6b1d6af784c9ffa3e93ce0c2e3e84"
SURVEY_SHA256 = "95972d504e58147c1a0910c319c0d2c0a4d2a67be3bfce9e73fb29789c3cf930"

LIKERT = (
    (1, "Strongly disagree"),
    (2, "Disagree"),
    (3, "Neutral"),
    (4, "Agree"),
    (5, "Strongly agree"),
)
SCORED = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12)


def _judge_items() -> list[tuple[int, str, list[str], list[tuple[int, str]]]]:
    """(number, statement, bullets, options) of each item under the judge prompt's Questions."""
    text = load_template("judge.md").text
    questions = text.split("## Questions\n", 1)[1].split("\n## Output Format", 1)[0]
    items = []
    for block in questions.strip().split("\n\n"):
        head, *rest = block.splitlines()
        number, statement = re.fullmatch(r"(\d+)\. (.+)", head).groups()  # type: ignore[union-attr]
        bullets = [line[2:] for line in rest if line.startswith("- ")]
        options = [
            (int(v), label)
            for v, label in (line.split(" - ", 1) for line in rest if re.match(r"\d+ - ", line))
        ]
        assert len(bullets) + len(options) == len(rest), block
        items.append((int(number), statement, bullets, options))
    return items


def test_the_instruments_are_the_verified_text() -> None:
    assert load_template("judge.md").sha256 == JUDGE_SHA256
    assert load_template("survey.md").sha256 == SURVEY_SHA256


def test_judge_prompt_has_13_items_in_paper_order_with_their_scales() -> None:
    items = _judge_items()
    assert [number for number, *_ in items] == list(range(1, 14))
    for number, statement, bullets, options in items:
        if number in SCORED:
            na = [(0, "N/A (No imagery is used)")] if number == 7 else []
            na = [(0, "N/A (No literary devices are used)")] if number == 8 else na
            assert options == [*na, *LIKERT], number
        else:
            about = number - 1
            assert options == [] and statement.endswith(f"question {about} above."), number
        assert bullets == (
            ["Simile", "Metaphor", "Personification", "Allusion"] if number == 8 else []
        )
    text = load_template("judge.md").text
    assert text.index("# Role Description") < text.index("# Task Definition")
    assert text.index("# Task Procedures") < text.index("# Context") < text.index("## Questions")
    assert text.rstrip().endswith('"9": "<insert your comments here>", ...}')


def test_survey_asks_the_judge_prompt_items_with_required_marks() -> None:
    survey = appendix_c_survey()
    judge = _judge_items()
    assert [q.number for q in survey.questions] == [number for number, *_ in judge]
    for question, (number, statement, bullets, options) in zip(
        survey.questions, judge, strict=True
    ):
        assert question.required == (number in SCORED)
        assert question.text == statement + (" (Required)" if number in SCORED else "")
        assert list(question.bullets) == bullets and list(question.options) == options


def test_questionnaire_statements_are_the_prompt_items() -> None:
    """Item 8 was "At least one of the literary devices (simile, metaphor, ...)": not the
    instrument's words, sent as such to structured-output judges."""
    items = {number: (statement, bullets) for number, statement, bullets, _ in _judge_items()}
    for dimension in DIMENSIONS:
        statement, bullets = items[dimension.question]
        assert dimension.long_label == statement
        assert dimension.statement == "\n".join([statement, *(f"- {b}" for b in bullets)])
        assert dimension.allows_na == (dimension.question in (7, 8))
    assert [c.about for c in COMMENTS] == [8, 10, 12]
    schema = judge_answer_schema()["properties"]
    for dimension in DIMENSIONS:
        assert schema[str(dimension.question)]["description"] == dimension.statement


def test_an_answer_keyed_by_the_prompts_own_statements_is_read() -> None:
    """A judge that keys its JSON by the statements it was shown ("8. At least one of the
    literary devices listed below ...") lost item 8: the answer was rejected as incomplete."""
    answer = {
        f"{number}. {statement}": "Because." if number not in SCORED else 4 - (number == 8)
        for number, statement, _, _ in _judge_items()
    }
    parsed = parse_judgment(json.dumps(answer)).answer
    assert parsed.literary_devices == 3 and parsed.form == 4
    assert parsed.comment_human_authorship == "Because."


def test_the_judge_receives_the_instrument_with_only_prompt_and_poem_substituted() -> None:
    template = load_template("judge.md").text
    prompt, poem = "Write a sonnet.\nTheme: Rain.", "Line one {the_poem}\nLine two"
    text = render_judge_prompt(f"  {prompt}\n", f"\n{poem}\n\n").text
    head, rest = template.split("{generation_prompt}")
    middle, tail = rest.split("{the_poem}")
    assert text == head + prompt + middle + poem + tail


def test_survey_pages_and_sheets_show_the_survey_word_for_word() -> None:
    survey = task("poemetric")
    page = Page(1, "g1", "PROMPT TEXT", "POEM TEXT")
    expected = render_survey("PROMPT TEXT", "POEM TEXT").split()
    questions = expected[expected.index("Questions") :]

    def words(markup: str) -> list[str]:
        markup = re.sub(r"<style.*?</style>", "", markup, flags=re.S).replace("<li>", "\n- ")
        return html.unescape(re.sub(r"<[^>]+>", " ", markup)).split()

    def contains(haystack: list[str], needle: list[str]) -> bool:
        return any(haystack[i : i + len(needle)] == needle for i in range(len(haystack)))

    web = render(
        survey.template,
        instrument=survey.instrument,
        page=page,
        questions=survey.questions(page),
        errors={},
        scores={},
        texts={},
        max_text=10_000,
    )
    assert words(web) == expected[expected.index("Poem") + 2 :]  # from "The prompt" on
    sheet = words(
        render(
            "sheet.html",
            instrument=survey.instrument,
            survey_id="S",
            rater="R1",
            pages=[(page, survey.questions(page))],
            codes={page.generation_id: "p0123456789abcde"},
        )
    )
    instructions = expected[expected.index("Please") : expected.index("Poem")]
    assert contains(sheet, instructions) and contains(sheet, questions)
    assert contains(sheet, ["The", "prompt", "PROMPT", "TEXT", "The", "poem", "POEM", "TEXT"])
