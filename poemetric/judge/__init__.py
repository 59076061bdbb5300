"""LLM-as-a-judge: the POEMetric questionnaire, its answer and the parser for what judges return.

`poemetric.judge.stage` (calling the judge over a run) lives beside these modules.
"""

from poemetric.judge.answer import (
    COMMENTS,
    DIMENSION_KEYS,
    DIMENSIONS,
    DIMENSIONS_BY_KEY,
    GROUPS,
    CommentItem,
    Dimension,
    JudgeAnswer,
    JudgeParseError,
)
from poemetric.judge.parse import ParsedJudgment, parse_judge_response, parse_judgment

__all__ = [
    "COMMENTS",
    "DIMENSIONS",
    "DIMENSIONS_BY_KEY",
    "DIMENSION_KEYS",
    "GROUPS",
    "CommentItem",
    "Dimension",
    "JudgeAnswer",
    "JudgeParseError",
    "ParsedJudgment",
    "parse_judge_response",
    "parse_judgment",
]
