"""Output files written by commands: an earlier file is replaced only by a finished one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


class OutputError(OSError):
    """The output file cannot be written (a directory, an unwritable folder)."""


@contextmanager
def replaced_on_success(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text handle on a temporary file beside `path`, moved onto `path` when the block
    ends without an exception. An input that turns out to be unusable (a mistyped file name) or
    an interrupt leaves an earlier `path` as it was, and the output may be the input file."""
    if path.is_dir():
        raise OutputError(f"{path}: is a directory; give a file name for the output")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp_name = tempfile.mkstemp(
            dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise OutputError(f"{path}: cannot write ({error.strerror or error})") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            yield stream
        temp.chmod(0o644)  # mkstemp creates 0600
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
