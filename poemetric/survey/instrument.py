"""The expert survey of the paper's Appendix C (prompts/survey.md), parsed into its parts so the
web app and the printed sheets show its text verbatim: title, instructions, the questions'
preface, and each question with its answer options or bulleted list."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from poemetric.prompts import SURVEY_TEMPLATE, bundled_template

_QUESTION = re.compile(r"^(\d+)\.\s+(.*)$")
_OPTION = re.compile(r"^(\d+)\s+-\s+(.*)$")
_BULLET = re.compile(r"^-\s+(.*)$")
#: Appendix C's own count of poems per rater ("We will give you 10 poems in total"), kept
#: verbatim on the page whatever `survey build --per-rater` gives.
_STATED = re.compile(r"give you (\d+) poems in total")


class InstrumentError(ValueError):
    """prompts/survey.md does not have the structure of the Appendix C survey."""


@dataclass(frozen=True)
class InstrumentQuestion:
    number: int
    text: str  # verbatim, "(Required)" included
    options: tuple[tuple[int, str], ...] = ()  # (value, label), e.g. (1, "Strongly disagree")
    bullets: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.text.rstrip().endswith("(Required)")


@dataclass(frozen=True)
class Instrument:
    title: str
    instructions: tuple[str, ...]
    questions_preface: str
    questions: tuple[InstrumentQuestion, ...] = field(default=())
    sha256: str = ""

    @property
    def stated_poems(self) -> int | None:
        """How many poems the instructions say each rater gets (None: they give no number)."""
        found = next((m for p in self.instructions if (m := _STATED.search(p))), None)
        return int(found[1]) if found else None


@cache
def appendix_c_survey() -> Instrument:
    """The survey as shipped in prompts/survey.md (cached)."""
    template = bundled_template(SURVEY_TEMPLATE)
    return parse_instrument(template.text, template.sha256)


def parse_instrument(text: str, sha256: str = "") -> Instrument:
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text.strip()) if b.strip()]
    try:
        title = blocks[0]
        poem_heading = next(i for i, b in enumerate(blocks) if re.fullmatch(r"Poem \d+", b))
        questions_heading = blocks.index("Questions")
    except (IndexError, StopIteration, ValueError) as exc:
        raise InstrumentError("survey text lacks its title, 'Poem 1' or 'Questions'") from exc
    instructions = tuple(blocks[1:poem_heading])
    preface = blocks[questions_heading + 1]
    questions: list[InstrumentQuestion] = []
    for block in blocks[questions_heading + 2 :]:
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        head = _QUESTION.match(lines[0])
        if head is None:
            raise InstrumentError(f"survey question expected, found {lines[0]!r}")
        options = tuple(
            (int(m[1]), m[2]) for line in lines[1:] if (m := _OPTION.match(line)) is not None
        )
        bullets = tuple(m[1] for line in lines[1:] if (m := _BULLET.match(line)) is not None)
        questions.append(InstrumentQuestion(int(head[1]), head[2], options, bullets))
    return Instrument(title, instructions, preface, tuple(questions), sha256)
