"""LLM-as-a-judge: the parser for what judges return, and the POEMetric questionnaire and its
answer (defined in the shared `poemetric.questionnaire`, re-exported here).

`poemetric.judge.stage` (calling the judge over a run) lives beside these modules.
"""

from poemetric.judge.parse import ParsedJudgment, parse_judge_response, parse_judgment
from poemetric.questionnaire import (
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
