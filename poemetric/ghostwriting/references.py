"""Reference corpora for uniqueness: the run's dataset poems and any texts a user names.

A user corpus is

* a folder: every ``*.txt`` file under it is one text (id: its path inside the folder);
* a ``.txt`` file: one text;
* a table (``.csv``, ``.tsv``, ``.jsonl``, ``.parquet``): one text per record in a ``text`` or
  ``content`` column, with optional ``id``, ``title`` and ``author`` columns (a POEMetric dataset
  file works as it is).

A bad record is reported as ``file:line: reason`` and nothing is loaded from a corpus with errors.
An empty (or blank) ``.txt`` file in a folder is left out and named in `ReferenceCorpora.empty`
(one stray file aborted the whole command); a folder whose files are all empty, or an empty
``.txt`` file named on its own, is an error.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from poemetric.ghostwriting.uniqueness import ReferenceText
from poemetric.store import RunStore
from poemetric.text.plural import counted

TEXT_COLUMNS = ("text", "content")


class ReferenceCorpusError(ValueError):
    """A reference corpus could not be read; the message lists every problem."""


@dataclass
class ReferenceCorpora:
    """The texts of the named corpora, and the empty .txt files of their folders, left out."""

    texts: list[ReferenceText] = field(default_factory=list)
    empty: list[Path] = field(default_factory=list)
    #: How a file was read (`FILE: read as Windows-1252 ...`): warnings to print.
    notes: list[str] = field(default_factory=list)


def dataset_references(store: RunStore) -> list[ReferenceText]:
    """The human poems of the run's dataset snapshot (all of them, whatever `--limit` chose)."""
    rows = store.query("SELECT poem_id, title, author, content FROM poems ORDER BY position")
    return [_reference(r["poem_id"], r["content"], r["author"], r["title"]) for r in rows]


def poem_references(poems: pd.DataFrame) -> list[ReferenceText]:
    """`dataset_references` of a frame of the poems table (poem_id, title, author, content),
    such as the `RunData.dataset_poems` a figure has: the ghostwriting figure and tables
    measure uniqueness against the same corpus."""
    known = poems.astype(object).where(poems.notna(), None)  # a NULL title is no "nan"
    return [
        _reference(poem_id, content, author, title)
        for poem_id, content, author, title in zip(
            known["poem_id"], known["content"], known["author"], known["title"], strict=True
        )
    ]


def _reference(poem_id: object, content: object, author: object, title: object) -> ReferenceText:
    return ReferenceText(str(poem_id), str(content), _label(author, title))


def _label(author: object, title: object) -> str:
    parts = [str(p).strip() for p in (author, title) if p is not None and str(p).strip()]
    return ": ".join(parts) or "untitled"


def load_reference_corpus(
    path: str | Path,
    empty: list[Path] | None = None,
    notes: list[str] | None = None,
    *,
    prefix: str | None = None,
) -> list[ReferenceText]:
    """Texts of a user corpus (see the module docstring); ids are prefixed with `prefix`,
    by default the file or folder name. The empty files of a folder are left out and added to
    `empty`; `notes` gets how a file was read (`FILE: ...`: Windows-1252, semicolon-separated)."""
    source = Path(path)
    name = source.name if prefix is None else prefix
    if source.is_dir():
        files = sorted(source.rglob("*.txt"))
        if not files:
            raise ReferenceCorpusError(f"{source}: no .txt files in this folder")
        texts: list[ReferenceText] = []
        blank: list[Path] = []
        read_so: list[str] = []  # the files read as Windows-1252
        for file in files:
            text = _read_text(file, read_so)
            if text.strip():
                texts.append(ReferenceText(f"{name}/{file.relative_to(source)}", text, file.stem))
            else:
                blank.append(file)
        if not texts:
            raise ReferenceCorpusError(
                f"{source}: every .txt file in this folder is empty ({len(files)})"
            )
        if empty is not None:
            empty += blank
        if notes is not None:  # a folder of Notepad files: three warnings, not hundreds
            notes += read_so[:3]
            if len(read_so) > 3:
                notes.append(
                    f"{source}: {len(read_so) - 3} more .txt files read as Windows-1252 (not UTF-8)"
                )
        return texts
    if not source.is_file():
        raise ReferenceCorpusError(f"{source}: no such file or folder")
    if source.suffix.lower() == ".txt":
        text = _read_text(source, notes)
        if not text.strip():
            raise ReferenceCorpusError(f"{source}:1: the file is empty")
        return [ReferenceText(name, text, source.stem)]
    return _table_texts(source, notes, name)


def _read_text(path: Path, notes: list[str] | None) -> str:
    """A .txt file's text: UTF-8, or Windows-1252 (Notepad's "ANSI") with a note in `notes`."""
    from poemetric.data.text_files import TextFileError, read_text_file

    try:
        read = read_text_file(path)
    except TextFileError as error:
        raise ReferenceCorpusError(str(error)) from None
    if read.warning is not None and notes is not None:
        notes.append(read.warning)
    return read.text


def _table_texts(path: Path, notes: list[str] | None, name: str) -> list[ReferenceText]:
    from poemetric.data.io import DatasetError, read_table

    try:
        table = read_table(path)
    except DatasetError as error:
        raise ReferenceCorpusError(str(error)) from error
    if notes is not None:
        notes += table.notes  # each names the file: `FILE:LINE: ...` or `FILE: ...`
    # (line, message): the reader's problems (bad JSON, ...) and the records' in file order.
    problems = [(issue.line or 0, issue.plain()) for issue in table.issues]
    column = next((c for c in TEXT_COLUMNS if c in table.columns), None)
    if table.header_read and column is None and not problems:
        raise ReferenceCorpusError(
            f"{path}: no text column; name it one of {', '.join(TEXT_COLUMNS)} "
            f"(columns: {', '.join(table.columns)})"
        )
    texts: list[ReferenceText] = []
    seen: set[str] = set()
    where = "row" if table.unit == "row" else "line"
    for record in table.records:
        values = record.values
        column = next((c for c in TEXT_COLUMNS if values.get(c) not in (None, "")), None)
        text = None if column is None else values[column]
        record_id = str(values.get("id") or values.get("poem_id") or record.line)
        if column is not None and not isinstance(text, str):
            reason = f"{column} is not a string (found {_shown(text)})"
        elif not isinstance(text, str) or not text.strip():
            reason = f"empty text (columns {', '.join(TEXT_COLUMNS)})"
        elif record_id in seen:
            reason = f"id {record_id!r} appears twice"
        else:
            seen.add(record_id)
            label = _label(values.get("author"), values.get("title"))
            texts.append(ReferenceText(f"{name}:{record_id}", text, label))
            continue
        location = f"{path}:{record.line}" if where == "line" else f"{path}:row {record.line}"
        problems.append((record.line, f"{location}: {reason}"))
    if problems:
        problems.sort(key=lambda problem: problem[0])  # stable: a line's own order is kept
        shown = [message for _, message in problems[:20]]
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise ReferenceCorpusError("\n".join(shown) + more)
    if not texts:
        raise ReferenceCorpusError(f"{path}: no texts")
    return texts


def _shown(value: object) -> str:
    """A non-text value as the user wrote it (JSON for a JSONL record), cut to 40 characters."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        shown = repr(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def reference_corpora(paths: Sequence[str | Path]) -> list[tuple[Path, str]]:
    """The corpora to read, each with the prefix of its texts' ids: a corpus named twice (the
    same file or folder, however written) once, and each by its name (`poems`, `sample.jsonl`)
    unless another corpus has that name too: then by the path as given (`x/poems`, `y/poems`).
    Ids must name one text each: two folders both called `poems` gave two texts the id
    `poems/a.txt`, and a corpus named twice gave every text of it two copies of one id; a poem's
    own file or a human poem's original is left out of its comparisons by id, so one of the
    copies stayed in, and the poem scored 1.0 as a near-copy of itself."""
    corpora: dict[Path, Path] = {}
    for path in map(Path, paths):
        corpora.setdefault(path.resolve(), path)
    names = Counter(path.name for path in corpora.values())
    return [(path, path.name if names[path.name] == 1 else str(path)) for path in corpora.values()]


def load_reference_corpora(paths: Sequence[str | Path]) -> ReferenceCorpora:
    """Every text of every named corpus, in order (`reference_corpora`: one id per text), and
    the empty files left out."""
    loaded = ReferenceCorpora()
    corpora = reference_corpora(paths)
    if len(corpora) < len(paths):
        loaded.notes.append(
            f"{counted(len(paths) - len(corpora), 'reference corpus', 'reference corpora')} "
            "named more than once, read once"
        )
    for path, prefix in corpora:
        loaded.texts += load_reference_corpus(path, loaded.empty, loaded.notes, prefix=prefix)
    return loaded
