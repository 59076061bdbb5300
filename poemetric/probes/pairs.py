"""The minimal-pair record and its JSONL file."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

#: Every task `probe build` knows, in the order the papers introduce them.
TASKS: tuple[str, ...] = (
    "rhyme_word_swap",
    "rhyme_line_swap",
    "synonym",
    "delete_1_rhyming",
    "delete_2_rhyming",
    "delete_3_rhyming",
    "delete_1_nonrhyming",
    "delete_2_nonrhyming",
    "delete_3_nonrhyming",
    "last_line",
)
#: The task names `probe build` writes: `last_line` pairs are named by their search.
TASK_NAMES: tuple[str, ...] = (
    *TASKS,
    "last_line_dbs",
    "last_line_sample",
    "last_line_chat",
)
#: Tasks built without a language model (the default of `probe build`).
OFFLINE_TASKS: tuple[str, ...] = tuple(t for t in TASKS if t != "last_line")


class PairFileError(ValueError):
    """A pairs or scores file cannot be read; the message names the file and line."""


class Pair(BaseModel):
    """One minimal pair: `original` should be preferred over `corrupted`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    poem_id: str = Field(min_length=1)
    task: str = Field(min_length=1)
    original: str = Field(min_length=1)
    corrupted: str = Field(min_length=1)
    details: dict[str, Any] = Field(default_factory=dict)

    @property
    def digest(self) -> str:
        """A digest of the two texts: the scores file keeps it (`pair_digest`), so `probe
        report` tells pairs of one id built from other texts (another poem version, another
        `--rhyme-from`) apart."""
        from poemetric.store.db import stable_id

        return stable_id(self.original, self.corrupted)

    @model_validator(mode="after")
    def _not_trivial(self) -> Pair:
        if self.original == self.corrupted:
            raise ValueError("original and corrupted texts are identical")
        return self


def write_jsonl(records: Iterable[BaseModel], path: str | Path) -> int:
    """Write models as JSON lines (UTF-8, one per line); return how many. Written under a
    temporary name and moved into place: a stop while writing leaves the earlier file whole."""
    from poemetric.paths import replaced_when_done

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with replaced_when_done(path) as temp, temp.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record.model_dump(mode="json"), ensure_ascii=False) + "\n")
            count += 1
    return count


#: What a pairs / scores file is, said when a file given as one is not JSONL.
PAIRS_FILE = "a pairs file is the JSONL file that `poemetric probe build` writes"
SCORES_FILE = "a scores file is the JSONL file that `poemetric probe run` writes"


def _looks_like_a_table(path: Path, line: str) -> str | None:
    """ "CSV" or "TSV" when a file that is not JSON reads as a table (its name, or a first line
    of comma- or tab-separated fields), else None."""
    suffix = path.suffix.lower().lstrip(".")
    if suffix in {"csv", "tsv"}:
        return suffix.upper()
    if line.lstrip().startswith(("{", "[")):
        return None
    if "\t" in line:
        return "TSV"
    return "CSV" if "," in line else None


def iter_jsonl(
    path: str | Path, what: str = "", problems: list[tuple[int, str]] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; a bad line raises `PairFileError`, or,
    given `problems`, is added to it as (line, what is wrong) and skipped, but for a first line
    that is not JSON (the file is not JSONL: a table, a text), which raises all the same. `what`
    (`PAIRS_FILE`, `SCORES_FILE`) is added when the file is not JSON at all."""
    from poemetric.data.text_files import TextFileError, read_utf8_file
    from poemetric.text.json_types import json_type

    path = Path(path)
    try:
        # A byte-order mark was "not valid JSON: Unexpected UTF-8 BOM ... looks like a CSV
        # file", and a Windows-1252 file a UnicodeDecodeError traceback.
        text = read_utf8_file(path)
    except TextFileError as error:
        raise PairFileError(str(error)) from None
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            if problems is not None and number > 1:
                problems.append((number, f"not valid JSON: {error.msg}"))
                continue
            message = f"{path}:{number}: not valid JSON: {error.msg}"
            table = _looks_like_a_table(path, line) if number == 1 else None
            if table is not None:
                message += f"; this looks like a {table} file (a table), not JSONL"
            if what and (table is not None or number == 1):
                message += f"; {what}"
            raise PairFileError(message) from error
        if not isinstance(value, dict):
            wrong = f"expected a JSON object ({{...}}), found {json_type(value)}"
            if problems is None:
                raise PairFileError(f"{path}:{number}: {wrong}")
            problems.append((number, wrong))
            continue
        yield number, value


def record_kind(value: dict[str, Any]) -> str | None:
    """ "pairs" for a record of a pairs file (`probe build`), "scores" for one of a scores file
    (`probe run`), None for anything else."""
    if "scorer" in value and "pair_id" in value:
        return "scores"
    if "original" in value and "corrupted" in value:
        return "pairs"
    return None


def file_kind(path: Path) -> str | None:
    """`record_kind` of an existing file's first record; None when it has none or is not JSONL."""
    try:
        return next((record_kind(value) for _, value in iter_jsonl(path)), None)
    except PairFileError:
        return None


def read_pairs(path: str | Path, warnings: list[str] | None = None) -> list[Pair]:
    """Every pair of a JSONL file; ids must be unique. Every bad row (not JSON, not an object,
    not a pair) is listed in one `PairFileError` (`FILE:LINE: field: what is wrong`), but for a
    first line that is not JSON (the file is not JSONL), which `iter_jsonl` refuses alone; a task
    that looks like a misspelt one of `TASK_NAMES` is a warning added to `warnings` (a file may
    hold tasks of its own)."""
    from poemetric.probes.pair_rows import bad_rows_message, row_problems, task_warnings

    pairs: list[Pair] = []
    tasks: list[tuple[int, str]] = []
    problems: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for number, value in iter_jsonl(path, PAIRS_FILE, problems):
        try:
            pair = Pair.model_validate(value)
        except ValidationError as error:
            if record_kind(value) == "scores":
                raise PairFileError(
                    f"{path}:{number}: a scores file (what `probe run` writes), not a pairs "
                    "file: give the pairs file that `probe build` wrote; `probe report` reads "
                    "scores files"
                ) from error
            fields = list(Pair.model_fields)
            problems += [(number, what) for what in row_problems(error, fields)]
            continue
        if pair.id in seen:
            problems.append(
                (number, f"id: duplicate pair id {pair.id!r} (first on line {seen[pair.id]})")
            )
            continue
        seen[pair.id] = number
        tasks.append((number, pair.task))
        pairs.append(pair)
    if problems:
        raise PairFileError(bad_rows_message(path, problems))
    if warnings is not None:
        warnings += task_warnings(path, tasks, TASK_NAMES)
    return pairs
