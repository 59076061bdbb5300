"""Messages say `1 poem`, `0 poems`, `2 poems`: run notes, summaries and errors wrote "poem(s)",
"1 job(s) left pending", "stanza(s) 6 do not rotate", and a count with a noun singular only for
more than one could say "0 poem". `poemetric.text.plural` is the one helper they use."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.text.plural import counted, plural

PACKAGE = Path(__file__).resolve().parents[1] / "poemetric"
#: A word with "(s)" glued to it: `poem(s)`, `job(s)`.
GLUED = re.compile(r"[A-Za-z]\(s\)")


@pytest.mark.parametrize(
    ("count", "said"), [(0, "0 poems"), (1, "1 poem"), (2, "2 poems"), (1204, "1204 poems")]
)
def test_counted(count: int, said: str) -> None:
    assert counted(count, "poem") == said


def test_plural_takes_an_irregular_form_and_verbs() -> None:
    assert counted(1, "object or list", "objects or lists") == "1 object or list"
    assert counted(3, "object or list", "objects or lists") == "3 objects or lists"
    assert [plural(n, "is", "are") for n in (0, 1, 2)] == ["are", "is", "are"]


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (not shown to a user)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def test_no_message_writes_a_plural_as_word_s() -> None:
    """Every string in the package but docstrings (comments are not strings)."""
    written = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in skip
                and GLUED.search(node.value)
            ):
                written.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value!r}")
    assert not written, "\n".join(written)


def _one_poem_file(folder: Path) -> Path:
    """`mine.csv`: a dataset of one limerick."""
    data = folder / "mine.csv"
    data.write_text(
        "form,title,author,content,meter_pattern,rhyme_pattern,theme\n"
        'limerick,One,Nobody,"a\nb\nc\nd\ne",anapestic,AABBA,sea\n',
        encoding="utf-8",
    )
    return data


def test_a_one_poem_dataset_is_one_poem_in_generate(tmp_path: Path) -> None:
    """`generate` (and the demo with `--limit 1`) said "dataset mine (1 poems)"."""
    data = _one_poem_file(tmp_path)
    args = ["generate", "--run", str(tmp_path / "run"), "--dataset", str(data), "--dry-run"]
    result = CliRunner().invoke(app, [*args, "--models", "markov"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "dataset mine (1 poem), 1 model x 1 sample" in result.output, result.output


def _quoted(markdown: str) -> list[str]:
    """The fenced blocks and `code spans` of a Markdown text: where the docs quote output."""
    fences = re.findall(r"^```.*?^```", markdown, flags=re.S | re.M)
    rest = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    spans = [re.findall(r"`([^`]+)`", part) for part in re.split(r"\n\s*\n", rest)]
    return fences + [span for found in spans for span in found]


def test_the_docs_quote_no_message_with_word_s() -> None:
    """The docs quoted "96 job(s) left pending" and "(0 pair(s) share none)" after the messages
    had become "96 jobs left pending" and "(0 pairs share none)". The changelog keeps the old."""
    root = PACKAGE.parent
    quoted = []
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        if path.name == "changelog.md":
            continue
        for text in _quoted(path.read_text(encoding="utf-8")):
            quoted += [f"{path.name}: {text!r}"] if GLUED.search(text) else []
    assert not quoted, "\n".join(quoted)


def test_dataset_show_of_a_one_poem_file_says_1_of_1_poem(tmp_path: Path) -> None:
    """`dataset show` titled a one-poem file "mine: 1 of 1 poems"."""
    data = _one_poem_file(tmp_path)
    result = CliRunner().invoke(app, ["dataset", "show", str(data)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "mine: 1 of 1 poem" in result.output and "1 of 1 poems" not in result.output
