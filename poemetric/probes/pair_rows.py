"""What is wrong with a row of a pairs file, in the file's words: `FILE:LINE: field: what is
wrong`, every bad row (the first `ROWS_SHOWN`, then a count), and what to do; and a task name
that is a near miss of one `probe build` writes (a pairs file may hold tasks of its own, so an
unknown name is a warning, not an error: `rhyme_swapp` would be reported as a task apart)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import ValidationError

from poemetric.suggest import did_you_mean
from poemetric.text.json_types import json_type
from poemetric.text.plural import counted, plural

#: The most bad rows an error lists; more are counted.
ROWS_SHOWN = 20
#: What to do about a bad pairs file.
REBUILD = "rebuild the file with `poemetric probe build` (or fix the rows)"


def row_problems(error: ValidationError, fields: Sequence[str]) -> list[str]:
    """`field: what is wrong` for each problem pydantic found in one row (`fields`: the keys a
    row may have, for the closest to an unknown one)."""
    problems = []
    for item in error.errors():
        field = ".".join(str(part) for part in item["loc"])
        kind, value = item["type"], item.get("input")
        if kind == "missing":
            what = "missing"
        elif kind == "extra_forbidden":
            what = f"unknown key {field!r}{did_you_mean(field, fields)}; keys: " + ", ".join(fields)
        elif kind == "string_too_short":
            what = "empty"
        elif kind == "string_type":
            what = f"expected text, found {json_type(value)}"
        elif kind == "dict_type":
            what = f"expected an object ({{...}}), found {json_type(value)}"
        else:
            what = str(item["msg"]).removeprefix("Value error, ")
        problems.append(f"{field}: {what}" if field else what)
    return problems


def bad_rows_message(path: str | Path, problems: list[tuple[int, str]]) -> str:
    """`FILE: N bad rows; what to do:` and a line per problem (line, `field: what is wrong`)."""
    rows = len({line for line, _ in problems})
    lines = [f"  {path}:{line}: {what}" for line, what in problems[:ROWS_SHOWN]]
    if len(problems) > ROWS_SHOWN:
        lines.append(f"  ... and {len(problems) - ROWS_SHOWN} more problems")
    head = f"{path}: {counted(rows, 'bad row')} of pairs; {REBUILD}:"
    return "\n".join([head, *lines])


def task_warnings(
    path: str | Path, tasks: Iterable[tuple[int, str]], known: Sequence[str]
) -> list[str]:
    """A warning per task name (with its first line) that is not one of `known` but looks like
    one: its pairs would be counted as a task of their own."""
    first: dict[str, int] = {}
    count: Counter[str] = Counter()
    for line, task in tasks:
        first.setdefault(task, line)
        count[task] += 1
    warnings = []
    for task, line in first.items():
        close = "" if task in known else did_you_mean(task, known)
        if close:
            pairs = plural(count[task], "its pair is", f"its {count[task]} pairs are")
            warnings.append(
                f"{path}:{line}: task {task!r} is not a task `probe build` writes{close}; "
                f"{pairs} reported as a separate task: correct the name if it is a typo"
            )
    return warnings
