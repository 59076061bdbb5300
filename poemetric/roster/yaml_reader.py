"""Reading the roster's YAML files: with line numbers, and without silent duplicate keys
(`poemetric.data.yaml_fields`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from poemetric.roster.base import RosterFileError


def _read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    from poemetric.data.text_files import TextFileError, read_utf8_file
    from poemetric.data.yaml_fields import parse_yaml

    try:
        text = read_utf8_file(path)  # a byte-order mark dropped; Windows-1252 named with its line
    except TextFileError as error:
        on_line = f" on line {error.line}" if error.line is not None else ""
        reason = error.reason.split(" (", 1)[0] if error.line is not None else error.reason
        # What to do, as the whole message says it ("save it with the encoding UTF-8").
        advice = error.reason.rsplit("; ", 1)[1] if "; " in error.reason else ""
        what_to_do = f"; {advice}" if advice and advice not in reason else ""
        raise RosterFileError(str(error), f"{reason}{on_line}{what_to_do}") from None
    try:
        return parse_yaml(path, text)
    except TextFileError as error:  # `FILE:LINE: invalid YAML: problem`
        problem = error.reason.removeprefix("invalid YAML: ")
        line = f" on line {error.line}" if error.line is not None else ""
        raise RosterFileError(str(error), f"invalid YAML{line}: {problem}") from None
