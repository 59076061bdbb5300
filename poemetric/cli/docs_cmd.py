"""`poemetric docs`: the documentation pages that help texts and messages name (`docs/NAME.md`).

They name pages of the source repository's docs/, which a pip install did not have: the wheel
now carries them (`poemetric/_resources/docs`) and this command prints one, or lists them with
the folder they are in, wherever POEMetric is installed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import typer

from poemetric.cli.app import app
from poemetric.cli.options import error_exit, unknown_choice
from poemetric.paths import docs_dir

EPILOG = """Examples:

  poemetric docs

  poemetric docs running

  poemetric docs docs/agreement.md | less

  poemetric docs report --path"""


def doc_pages() -> dict[str, Path]:
    """NAME -> page, for each `docs/NAME.md` that came with POEMetric, sorted by name."""
    return {path.stem: path for path in sorted(docs_dir().glob("*.md"))}


def page_name(given: str) -> str:
    """The page a user names: `running`, `running.md` or `docs/running.md` (as messages write
    it) all name `running`."""
    name = given.strip().replace("\\", "/").rsplit("/", 1)[-1]
    return name[: -len(".md")] if name.lower().endswith(".md") else name


def _title(page: Path) -> str:
    """The page's first heading (`# Running POEMetric`), or "" without one."""
    with page.open(encoding="utf-8") as text:
        for line in text:
            if match := re.match(r"#\s+(.+)", line):
                return match.group(1).strip()
    return ""


def _write(text: str) -> None:
    """`text` on stdout, flushed: a reader that stops early (`| head`) ends the command quietly
    here, as every command (`poemetric.cli.closed_output`)."""
    sys.stdout.write(text)
    sys.stdout.flush()


@app.command("docs", epilog=EPILOG)
def docs(
    name: str | None = typer.Argument(
        None,
        metavar="NAME",
        help="A page: running, running.md or docs/running.md (as help texts and messages name "
        "it). Without it: the list of pages.",
        show_default=False,
    ),
    path: bool = typer.Option(
        False, "--path", help="Print the page's path (without NAME: the folder's), not its text."
    ),
) -> None:
    """The documentation pages (docs/NAME.md) that help texts, messages and the report name,
    as Markdown text: one page, or the list of them. They come with POEMetric, so a pip install
    has them too."""
    pages = doc_pages()
    if not pages:
        raise error_exit(f"no documentation pages in {docs_dir()}")
    if name is None:
        if path:
            _write(f"{docs_dir()}\n")
            return
        width = max(len(f"docs/{n}.md") for n in pages)
        lines = [f"{f'docs/{n}.md':<{width}}  {_title(page)}".rstrip() for n, page in pages.items()]
        _write("\n".join([*lines, f"(in {docs_dir()}; poemetric docs NAME prints one)", ""]))
        return
    page = pages.get(page_name(name))
    if page is None:
        raise unknown_choice("NAME", page_name(name), list(pages), "page")
    _write(f"{page}\n" if path else page.read_text(encoding="utf-8"))
