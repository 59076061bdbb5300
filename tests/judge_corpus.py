"""An adversarial corpus of judge answers: every form a judge may use, and every way an answer
may be ambiguous. Each case is (id, response, expected): expected is the score of every item by
question number when the answer must be read, or a fragment of the rejection reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

#: A valid answer (question -> value), the scores the parser must return for it.
SCORES = {"1": 4, "2": 5, "3": 3, "4": 4, "5": 2, "6": 3, "7": 4, "8": 0, "10": 3, "12": 2}
COMMENTS = {"9": "No device is used.", "11": "Competent but flat.", "13": "Mechanical rhymes."}
ANSWER = {**SCORES, **COMMENTS}
ANSWER = {str(k): ANSWER[str(k)] for k in range(1, 14)}
NAMES = {"1": "Form", "2": "Theme", "3": "Vocabulary", "4": "Creativity", "5": "Idiosyncrasy",
         "6": "Emotional resonance", "7": "Imagery", "8": "Literary devices",
         "10": "Overall quality", "12": "Human authorship"}  # fmt: skip
LABELS = {0: "N/A", 1: "Strongly disagree", 2: "Disagree", 3: "Neutral", 4: "Agree",
          5: "Strongly agree"}  # fmt: skip


@dataclass(frozen=True)
class Case:
    id: str
    response: str
    #: Scores by question number for an answer to read; None for one to reject.
    scores: dict[str, int] | None = None
    #: For a rejection: a fragment the reason must contain (the item it names).
    reason: str | None = None


def compact(answer: dict[str, object] | None = None) -> str:
    return json.dumps(answer if answer is not None else ANSWER, ensure_ascii=False)


def with_(**changes: object) -> dict[str, object]:
    return {**ANSWER, **{k.removeprefix("q"): v for k, v in changes.items()}}


def numbered_list(answer: dict[str, object] | None = None, style: str = "{n}. {v}") -> str:
    answer = answer if answer is not None else ANSWER
    return "\n".join(
        style.format(n=n, v=v, name=NAMES.get(n, "Comment")) for n, v in answer.items()
    )


def accepted() -> Iterator[Case]:
    """Answers whose scores must be read exactly (SCORES unless said otherwise)."""
    body = compact()
    yield Case("plain", body, SCORES)
    yield Case("indented", json.dumps(ANSWER, indent=2), SCORES)
    yield Case(
        "fenced json with prose", f"Here is my evaluation.\n\n```json\n{body}\n```\nThanks!", SCORES
    )
    yield Case("bare fence", f"```\n{body}\n```", SCORES)
    yield Case("prose around", f"My scores follow: {body} I hope this helps.", SCORES)
    yield Case("think with decoy", '<think>Maybe {"1": 1, "10": 5}? No.</think>\n' + body, SCORES)
    yield Case(
        "closing tag only (R1)", 'The meter wobbles... {"10": 1}\n</think>\n\n' + body, SCORES
    )
    yield Case("thinking tag and fence", f"<thinking>hmm</thinking>\n```json\n{body}\n```", SCORES)
    python = "{" + ", ".join(f"'{k}': {v!r}" for k, v in ANSWER.items()) + ",}"
    yield Case("python literal, trailing comma", python, SCORES)
    yield Case(
        "integer keys",
        "{" + ", ".join(f"{k}: {json.dumps(v)}" for k, v in ANSWER.items()) + "}",
        SCORES,
    )
    yield Case(
        "bare Q keys",
        "{" + ", ".join(f"Q{k}: {json.dumps(v)}" for k, v in ANSWER.items()) + "}",
        SCORES,
    )
    yield Case("Q keys", compact({f"Q{k}": v for k, v in ANSWER.items()}), SCORES)
    yield Case("question keys", compact({f"question {k}": v for k, v in ANSWER.items()}), SCORES)
    yield Case("dotted keys", compact({f"{k}.": v for k, v in ANSWER.items()}), SCORES)
    yield Case(
        "number and name keys",
        compact({f"{k} ({NAMES.get(k, 'comment')})": v for k, v in ANSWER.items()}),
        SCORES,
    )
    yield Case("name keys", compact({NAMES[k]: v for k, v in SCORES.items()}), SCORES)
    yield Case(
        "snake-case keys",
        compact({NAMES[k].lower().replace(" ", "_"): v for k, v in SCORES.items()}),
        SCORES,
    )
    yield Case("nested", compact({"answers": ANSWER, "note": "done"}), SCORES)
    yield Case("split containers", compact({"scores": SCORES, "comments": COMMENTS}), SCORES)
    yield Case(
        "labels",
        compact(
            with_(
                q1="4 - Agree",
                q2="5 (Strongly agree)",
                q3="Neutral (3)",
                q4="Agree",
                q10="3 - Neutral",
            )
        ),
        SCORES,
    )
    yield Case("label case and dot", compact(with_(q2="Strongly Agree.", q5="disagree")), SCORES)
    yield Case("out of five", compact(with_(q1="4/5", q2="5 / 5", q3="3 out of 5")), SCORES)
    yield Case("whole floats", compact(with_(q1=4.0, q2="5.0", q3="3.00")), SCORES)
    yield Case("N/A forms", compact(with_(q8="0 - N/A (No literary devices are used)")), SCORES)
    yield Case("N/A word", compact(with_(q8="N/A")), SCORES)
    yield Case("bold", compact(with_(q1="**4**", q2="*5*")), SCORES)
    yield Case("fullwidth digits", compact(with_(q1="４", q2="５")), SCORES)
    yield Case("arabic-indic digits", compact(with_(q1="٤")), SCORES)
    yield Case("score prefix", compact(with_(q1="Score: 4")), SCORES)
    yield Case("no comments", compact(SCORES), SCORES)
    yield Case("some comments", compact({**SCORES, "11": "flat"}), SCORES)
    yield Case(
        "extra keys", compact({**ANSWER, "confidence": 0.9, "summary": "fine", "14": 5}), SCORES
    )
    yield Case(
        "score objects",
        compact(
            {k: ({"score": v, "reason": "x"} if k in SCORES else v) for k, v in ANSWER.items()}
        ),
        SCORES,
    )
    yield Case("same key twice, same value", body[:-1] + ', "1": 4}', SCORES)
    yield Case("Q1 and 1 agree", compact({**ANSWER, "Q1": "4 - Agree"}), SCORES)
    yield Case(
        "two equal answers",
        f"{body}\n\nTo repeat:\n```json\n{json.dumps(ANSWER, indent=1)}\n```",
        SCORES,
    )
    yield Case("format echo, then answer", '{"1": "<score>", "2": "<score>"}\n' + body, SCORES)
    yield Case("answer then unclosed think", body + "\n<think>checking again", SCORES)
    yield Case("numbered list", numbered_list(), SCORES)
    yield Case("numbered list with names", numbered_list(style="{n}. {name}: {v}"), SCORES)
    yield Case("markdown bold list", numbered_list(style="- **{n}. {name}:** {v}"), SCORES)
    labelled = {k: (f"{v} ({LABELS[v]})" if k in SCORES and v else v) for k, v in ANSWER.items()}
    yield Case(
        "markdown list with labels", numbered_list(labelled, style="* **{n}** - {v}"), SCORES
    )
    yield Case(
        "headings, value below",
        "\n\n".join(f"### {n}. {NAMES.get(n, 'Comment')}\n{v}" for n, v in ANSWER.items()),
        SCORES,
    )
    yield Case("Q list", numbered_list(style="Q{n}: {v}"), SCORES)
    yield Case("CRLF list", numbered_list().replace("\n", "\r\n"), SCORES)
    yield Case("labelled lines", "\n".join(f"{NAMES[k]}: {v}" for k, v in SCORES.items()), SCORES)
    yield Case("list then agreeing JSON", numbered_list() + "\n\n" + body, SCORES)
    yield Case(
        "prose numbered points, then JSON",
        "1. The form is a sonnet.\n2. The theme is loss.\n\n" + body,
        SCORES,
    )
    legend = "\n".join(f"{n} - {LABELS[n]}" for n in range(1, 6))
    yield Case("scale legend echoed, then JSON", f"The scale:\n{legend}\n\n{body}", SCORES)
    question = "1. The poem follows the given prompt in terms of form, including meter and rhyme."
    yield Case("questionnaire echoed, then JSON", f"{question}\n{legend}\n\n{body}", SCORES)
    table = "| # | Item | Score |\n|---|---|---|\n" + "\n".join(
        f"| {k} | {NAMES.get(k, 'Comment')} | {v} |" for k, v in ANSWER.items()
    )
    yield Case("markdown table", table, SCORES)
    named_rows = "\n".join(
        f"| **{NAMES[k]}** | {v if v else 'N/A - none used'} |" for k, v in SCORES.items()
    )
    yield Case("markdown table by name", f"| Dimension | Score |\n|---|---|\n{named_rows}", SCORES)
    yield Case("N/A with a reason", compact(with_(q8="N/A - no device is used")), SCORES)
    yield Case(
        "q1_score keys",
        compact(
            {(f"q{k}_score" if k in SCORES else f"q{k}_comment"): v for k, v in ANSWER.items()}
        ),
        SCORES,
    )
    yield Case(
        "names with the scale", compact({f"{NAMES[k]} (1-5)": v for k, v in SCORES.items()}), SCORES
    )
    other = {**SCORES, "10": 5, "12": 5}
    yield Case("other values", compact(other), other)
    all_na = {**SCORES, "7": 0, "8": 0}
    yield Case("both N/A", compact({**all_na, "7": "N/A (No imagery is used)"}), all_na)


def rejected() -> Iterator[Case]:
    """Answers that must be rejected, with the item (or the reason) the rejection names."""
    body = compact()
    yield Case("duplicate JSON keys", body[:-1] + ', "10": 5}', reason="item 10")
    yield Case("Q1 and 1 disagree", compact({**ANSWER, "Q1": 2}), reason="item 1")
    yield Case(
        "name and number disagree", compact({**ANSWER, "Overall quality": 4}), reason="item 10"
    )
    yield Case("decimal string", compact(with_(q10="4.5")), reason="item 10")
    yield Case("decimal number", compact(with_(q10=3.5)), reason="item 10")
    yield Case("range", compact(with_(q10="3-4")), reason="item 10")
    yield Case("en-dash range", compact(with_(q10="3–4")), reason="item 10")
    yield Case("alternatives", compact(with_(q10="2 or 3")), reason="item 10")
    yield Case("scale hedge", compact(with_(q10="1-5 scale: 4")), reason="item 10")
    yield Case("between", compact(with_(q10="between 3 and 4")), reason="item 10")
    yield Case("two numbers", compact(with_(q10="4, 5")), reason="item 10")
    yield Case("out of ten", compact(with_(q10="4/10")), reason="item 10")
    yield Case("fraction", compact(with_(q10="3/4")), reason="item 10")
    yield Case("foreign label", compact(with_(q10="4 (Good)")), reason="item 10")
    yield Case("contradicting label", compact(with_(q10="4 - Disagree")), reason="item 10")
    yield Case("unknown label only", compact(with_(q10="Somewhat agree")), reason="item 10")
    yield Case("two labels", compact(with_(q10="Agree/Strongly agree")), reason="item 10")
    yield Case("approximate", compact(with_(q10="about 4")), reason="item 10")
    yield Case("plus", compact(with_(q10="4+")), reason="item 10")
    yield Case("question mark", compact(with_(q10="4?")), reason="item 10")
    yield Case("word number", compact(with_(q10="four")), reason="item 10")
    yield Case("empty score", compact(with_(q10="")), reason="item 10")
    yield Case("boolean", compact(with_(q10=True)), reason="item 10")
    yield Case("null", compact(with_(q10=None)), reason="item 10")
    yield Case("list value", compact(with_(q10=[3])), reason="item 10")
    yield Case("N/A on a scored item", compact(with_(q1="N/A")), reason="item 1")
    yield Case("zero on a scored item", compact(with_(q10=0)), reason="item 10")
    yield Case("above the scale", compact(with_(q10=6)), reason="item 10")
    yield Case("negative", compact(with_(q7=-1)), reason="item 7")
    yield Case("zero out of five", compact(with_(q7="0/5")), reason="item 7")
    yield Case(
        "missing item", compact({k: v for k, v in ANSWER.items() if k != "6"}), reason="item 6"
    )
    yield Case(
        "label names another item",
        compact({**{k: v for k, v in ANSWER.items() if k != "1"}, "1 (Theme)": 4}),
        reason="item 1",
    )
    yield Case(
        "only inside unterminated think",
        "<think>\nDraft: " + body + "\nWait, let me reconsider",
        reason="unterminated",
    )
    yield Case("only inside a think block", "<think>" + body + "</think>", reason="reasoning")
    draft = compact(with_(q10=5))
    yield Case(
        "draft then final disagree", f"Draft: {draft}\nFinal answer: {body}", reason="item 10"
    )
    yield Case(
        "list and JSON disagree", numbered_list(with_(q12=4)) + "\n\n" + body, reason="item 12"
    )
    yield Case("partial object disagrees", 'I lean to {"10": 5}.\n' + body, reason="item 10")
    yield Case("list item twice", numbered_list() + "\n10. 5", reason="item 10")
    table = "| Item | Score |\n|---|---|\n| Overall quality | 5 |"
    yield Case("table row disagrees with JSON", f"{table}\n\n{body}", reason="item 10")
    yield Case(
        "N/A with a number in the reason", compact(with_(q8="N/A - 2 similes")), reason="item 8"
    )
    # In parentheses as after a dash: these were read as N/A (0), left out of every mean.
    for value in ("N/A (2 similes)", "N/A (3)", "N/A (would be 4)", "0 - N/A (2 similes)"):
        yield Case(
            f"N/A with a number in parentheses: {value}",
            compact(with_(q8=value)),
            reason="item 8",
        )
    yield Case(
        "N/A beside a labelled score",
        compact(with_(q7="Not applicable (4 - Agree)")),
        reason="item 7",
    )
    yield Case("truncated", body[: len(body) // 2], reason="unclosed")
    yield Case("refusal", "I'm sorry, but I can't evaluate this poem.", reason="declined")
    yield Case(
        "prose only",
        "The poem is strong in imagery and weak in meter; I'd call it good.",
        reason="no answer",
    )
    yield Case("NaN", body.replace('"10": 3', '"10": NaN'), reason="item 10")


def corpus() -> list[Case]:
    return [*accepted(), *rejected()]
