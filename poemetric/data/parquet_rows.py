"""Reading a Parquet file as raw records (`poemetric.data.io.stream_table`): its values as plain
Python (a list column's numpy array, a struct column's dict, numpy scalars, NaN as None).
pandas/pyarrow/numpy are imported only here, when a Parquet file is read (start-up time)."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from typing import Any

from poemetric.data.raw_table import RawRecord, RawTable, ValidationIssue

#: Rows of a Parquet file made records at a time (`stream_table`).
PARQUET_CHUNK = 10_000


def parquet_records(table: RawTable, data: bytes) -> Iterator[RawRecord]:
    """The records of a Parquet file's `data`, a chunk of rows at a time; a file pyarrow cannot
    read is the table's one issue (`file_error`)."""
    import pandas as pd

    try:
        frame = pd.read_parquet(io.BytesIO(data))
    except Exception as error:  # pyarrow raises several types for corrupt files
        table.issues.append(
            ValidationIssue(str(table.path), None, None, f"not a Parquet file: {error}")
        )
        table.file_error = True
        return
    del data
    table.columns = [str(column) for column in frame.columns]
    table.header_read = True
    for start in range(0, len(frame), PARQUET_CHUNK):
        chunk = frame.iloc[start : start + PARQUET_CHUNK].to_dict(orient="records")
        for number, record in enumerate(chunk, start=start + 1):
            values = {str(key): _python_value(value) for key, value in record.items()}
            yield RawRecord(number, values)


def _python_value(value: Any) -> Any:
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    # A list column arrives as a numpy array (whose `.item()` fails unless it holds one value),
    # a struct column as a dict: both as plain Python, element by element.
    if isinstance(value, np.ndarray | list | tuple):
        return [_python_value(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _python_value(item) for key, item in value.items()}
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    return value
