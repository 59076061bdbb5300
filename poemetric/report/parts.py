"""A report's parts (`Section.parts`: data the page reads only when it needs it, such as each
prompt's poems) and where they are written.

* One file (`Layout.FILE`): each part is a `<script type="application/json">` element of the
  page, parsed the first time it is needed. The page is self-contained, and as large as its data.
* A folder (`Layout.FOLDER`): the page (`index.html`) holds everything but the parts, which are
  in `.js` files in a folder beside it (`index_files/`), consecutive parts of a section together,
  about `PART_BYTES` a file. A file is loaded by a `<script>` tag the first time a part in it is
  needed: script tags load from `file://` in Chromium, Firefox and Safari (fetch and XHR do
  not), so the page still opens from disk, with no server and no network. A file is one call,
  `POEMETRIC_PART("BUILD", "SECTION", FIRST, [part, ...]);`, in ASCII (any other character
  escaped, so no encoding can be mistaken), and BUILD (a hash of every part) ties the files to
  their page: a file of another build is not read.
* `Layout.AUTO`: one file while the parts are at most `SINGLE_FILE_LIMIT` bytes, else a folder.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from poemetric.paths import replaced_when_done
from poemetric.report.model import Section
from poemetric.report.render import json_for_html

#: `auto` writes one file up to this many bytes of parts (a page of about 10 MB opens in well
#: under a second, and can be mailed), a folder above it (docs/report.md, "Speed").
SINGLE_FILE_LIMIT = 10_000_000
#: A folder report's part files hold about this many bytes each (one part may be larger).
PART_BYTES = 500_000
#: How every part file starts: a folder holding anything else is not the report's.
PART_CALL = "POEMETRIC_PART("
_SECTION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


class Layout(StrEnum):
    """How `build_report` writes the page: `file`, `folder`, or `auto` (by the data's size)."""

    AUTO = "auto"
    FILE = "file"
    FOLDER = "folder"


class ReportOutputError(ValueError):
    """The report cannot be written where asked (its parts folder holds other files)."""


def parts_folder(page: Path) -> Path:
    """The folder of a folder report's part files: `index_files/` beside `index.html`."""
    return page.with_name(f"{page.stem}_files")


def encode_parts(sections: Sequence[Section]) -> dict[str, list[bytes]]:
    """The JSON of each part (UTF-8), by section id (sections without parts left out); a part
    given as bytes is taken as its JSON already (`Section.parts`)."""
    encoded: dict[str, list[bytes]] = {}
    for section in sections:
        if not section.parts:
            continue
        if not _SECTION_ID.fullmatch(section.id):
            raise ValueError(f"section id {section.id!r}: a section with parts needs an id of "
                             "letters, digits, - and _ (it names its files)")  # fmt: skip
        encoded[section.id] = [
            part if isinstance(part, bytes) else json_for_html(part).encode("utf-8")
            for part in section.parts
        ]
    return encoded


def parts_size(encoded: dict[str, list[bytes]]) -> int:
    return sum(len(text) for parts in encoded.values() for text in parts)


def chosen_layout(layout: Layout | str, size: int) -> Layout:
    """`layout`, with `auto` settled by `size` (bytes of parts)."""
    layout = Layout(layout)
    if layout is not Layout.AUTO:
        return layout
    return Layout.FILE if size <= SINGLE_FILE_LIMIT else Layout.FOLDER


def inline_parts(encoded: dict[str, list[bytes]]) -> list[tuple[str, str]]:
    """(element id, JSON) of every part, for a one-file page: `SECTION-part-N`."""
    return [
        (f"{section_id}-part-{n}", text.decode("utf-8"))
        for section_id, parts in encoded.items()
        for n, text in enumerate(parts)
    ]


def _ascii(text: str) -> str:
    """JSON text with every non-ASCII character as a `\\u` escape (two for one beyond U+FFFF):
    a part file reads the same whatever encoding a browser or a web server takes it for."""

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        if code <= 0xFFFF:
            return f"\\u{code:04x}"
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

    return _NON_ASCII.sub(escape, text)


def part_files(
    encoded: dict[str, list[bytes]], folder_name: str, part_bytes: int = PART_BYTES
) -> tuple[dict[str, Any], Iterator[tuple[str, str]]]:
    """The page's index of the part files (`POEMETRIC.parts`: the folder, the build, and per
    section the first part of each file `SECTION-K.js`) and each file's name and text, made
    as they are read (a study-sized run's files are some 80 MB of text together)."""
    digest = hashlib.sha256()
    groups: dict[str, list[list[int]]] = {}
    for section_id, parts in encoded.items():
        digest.update(section_id.encode("utf-8") + b"\0")
        groups[section_id] = []
        size = 0
        for n, text in enumerate(parts):
            digest.update(text)
            digest.update(b"\0")
            length = len(text.decode("utf-8"))  # characters: the files' sizes as they were
            if not groups[section_id] or size + length > part_bytes:
                groups[section_id].append([])
                size = 0
            groups[section_id][-1].append(n)
            size += length
    build = digest.hexdigest()[:16]

    def files() -> Iterator[tuple[str, str]]:
        for section_id, section_groups in groups.items():
            parts = encoded[section_id]
            for k, group in enumerate(section_groups):
                body = ",\n".join(_ascii(parts[n].decode("utf-8")) for n in group)
                yield (
                    f"{section_id}-{k}.js",
                    f'{PART_CALL}"{build}","{section_id}",{group[0]},[\n{body}\n]);\n',
                )

    starts = {section_id: [group[0] for group in g] for section_id, g in groups.items()}
    return {"dir": folder_name, "build": build, "sections": starts}, files()


#: Files a file browser writes into a folder it showed (macOS Finder, Windows Explorer).
_BROWSER_FILES = frozenset({"thumbs.db", "desktop.ini"})


def _is_ours(folder: Path) -> bool:
    """Whether `folder` holds nothing but part files (or nothing), and what a file browser
    leaves in a folder it showed (`.DS_Store`, `Thumbs.db`)."""
    for entry in folder.iterdir():
        if entry.name.startswith(".") or entry.name.lower() in _BROWSER_FILES:
            continue
        if not entry.is_file() or entry.suffix != ".js":
            return False
        with entry.open("rb") as handle:
            if handle.read(len(PART_CALL)) != PART_CALL.encode("ascii"):
                return False
    return True


def check_parts_folder(page: Path) -> None:
    """Refuse a page whose parts folder exists and is not a report's (another program's files
    would be replaced, or left beside the page for it to be taken for)."""
    folder = parts_folder(page)
    if folder.exists() and not (folder.is_dir() and _is_ours(folder)):
        raise ReportOutputError(
            f"{folder} is there and is not this report's folder of poems (it holds other files); "
            "give --out another name, or move it"
        )


def write_report(
    page_path: Path, page: str, files: Iterable[tuple[str, str]] | None = None
) -> None:
    """Write the page and, for a folder report (`files`: each part file's name and text, written
    one at a time), its parts folder; a one-file report removes the parts folder of an earlier
    folder report. Interrupted (Ctrl-C), the earlier report stays whole: the new folder is
    written aside and swapped in with the page."""
    folder = parts_folder(page_path)
    if files is None:
        with replaced_when_done(page_path) as temp:
            temp.write_text(page, encoding="utf-8")
        if folder.is_dir() and _is_ours(folder):
            shutil.rmtree(folder)
        return
    staged = Path(tempfile.mkdtemp(dir=page_path.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    old = staged.with_name(f"{staged.name}.old")
    try:
        for name, text in files:
            (staged / name).write_text(text, encoding="utf-8")
        staged.chmod(0o755)  # mkdtemp makes 0700
        swapped = False
        try:
            with replaced_when_done(page_path) as temp:
                temp.write_text(page, encoding="utf-8")
                if folder.exists():
                    os.replace(folder, old)
                os.replace(staged, folder)
                swapped = True
        except BaseException:
            # The page was not replaced: the earlier folder goes back beside it.
            if swapped:
                shutil.rmtree(folder, ignore_errors=True)
            if old.exists() and not folder.exists():
                os.replace(old, folder)
            raise
    finally:
        shutil.rmtree(staged, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
