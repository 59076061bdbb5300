"""Output files written by commands: an earlier file is replaced only by a finished one."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TextIO

from poemetric.paths import replaced_when_done


class OutputError(OSError):
    """The output file cannot be written (a directory, an unwritable folder)."""


@contextmanager
def replaced_on_success(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text handle on a temporary file beside `path`, moved onto `path` when the block
    ends without an exception (`poemetric.paths.replaced_when_done`). An input that turns out to
    be unusable (a mistyped file name) or an interrupt leaves an earlier `path` as it was, and
    the output may be the input file. An existing SQLite database (a run store) is refused."""
    if path.is_dir():
        raise OutputError(f"{path}: is a directory; give a file name for the output")
    if refusal := sqlite_refusal(path, str(path)):
        raise OutputError(refusal)
    stack = ExitStack()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = stack.enter_context(replaced_when_done(path))
    except OSError as error:
        raise OutputError(f"{path}: cannot write ({error.strerror or error})") from None
    with stack, temp.open("w", encoding="utf-8") as stream:
        yield stream


def sqlite_refusal(path: Path, named: str) -> str | None:
    """Why an output file at `path` (`named` so, with its option) must not be written: it is an
    existing SQLite database, such as a run store, that the output would replace; else None."""
    if not is_sqlite_file(path):
        return None
    return (
        f"{named} is a SQLite database (a run store?): the output would replace it; give another "
        "file name"
    )


def is_sqlite_file(path: Path) -> bool:
    """Whether `path` is an existing SQLite database file (such as a run's poemetric.sqlite).
    Only a regular file is read: reading a FIFO or a terminal (`/dev/stdout`) waits forever."""
    if not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            return handle.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False
