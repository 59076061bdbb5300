"""How one value of a table prints: counts as integers, a missing value as an en dash, and
which columns are numbers and which identify a row (shared by the LaTeX and Markdown tables)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Columns holding counts: printed as integers.
COUNT_COLUMNS = {"n", "count", "rank", "poems", "mattr_short", "chance_pool", "n_poems", "n_pairs",
                 "expert_n"}  # fmt: skip
#: Columns that identify a row (repeated when a wide table is split; said once when constant).
IDENTITY_COLUMNS = {"judge", "author", "rater", "expert", "poem_form", "dimension", "group",
                    "part", "item", "word", "image"}  # fmt: skip


def _is_count(column: str) -> bool:
    return column in COUNT_COLUMNS or column.startswith("n_")


#: A value that does not exist (the human poets' repetition of their own original, a statistic
#: undefined for the ratings): an en dash, as the terminal summary shows it.
MISSING = "–"


def fixed(value: float, digits: int) -> str:
    """`value` with `digits` decimals; one that rounds to zero has no sign: a table read
    "-0.00 [-0.01, 0.01]" for a mean of -0.001 (and LaTeX set it as a minus zero)."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _cell(value: object, digits: int, count: bool = False) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    if isinstance(value, float):
        if count and value.is_integer():
            return f"{int(value)}"
        if value.is_integer() and abs(value) >= 1000:
            return f"{int(value)}"
        return fixed(value, digits)
    return str(value)


def _numeric(frame: pd.DataFrame, column: str) -> bool:
    import pandas as pd  # here: `markdown` prints plain rows without pandas

    return pd.api.types.is_numeric_dtype(frame[column]) or column.endswith("__ci")


def _keys(frame: pd.DataFrame) -> list[str]:
    return [c for c in frame.columns if c in IDENTITY_COLUMNS or not _numeric(frame, c)]
