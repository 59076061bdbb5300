"""LLM-as-a-judge: the POEMetric questionnaire answer and its parser.

`poemetric.judge.stage` (calling the judge over a run) lives beside this module.
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
    parse_judge_response,
)

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
    "parse_judge_response",
]
