"""The docs' commands and links against the code: every `poemetric ...` command quoted in the README,
docs/ (not the changelog, which quotes old spellings on purpose) and the dataset, prompt and
recipe READMEs names a real command and only options that command has, and every link to a
section (`file.md#anchor`) finds its heading. A renamed flag or section otherwise leaves a
copied command failing or a link dead. The sonnet scheme counts docs/form-check.md states are
the code's. So is the checker version a user lexicon's checks record, and every
`POEMETRIC_*` variable the code reads is in docs/running.md's table."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer
import typer.main
from typer.testing import CliRunner

from poemetric.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [
    ROOT / "README.md",
    *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "changelog.md"),
    ROOT / "prompts" / "README.md",
    ROOT / "analysis" / "README.md",
    *sorted((ROOT / "datasets").glob("*/README.md")),
]
OPTION = re.compile(r"--?[a-zA-Z][a-zA-Z0-9-]*")


def _snippets(text: str) -> list[str]:
    """Lines of fenced code blocks (continuations joined) and inline code spans."""
    blocks = re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    lines = [line for block in blocks for line in block.replace("\\\n", " ").splitlines()]
    rest = re.sub(r"```.*?```", "", text, flags=re.S)
    return lines + [span.replace("\n", " ") for span in re.findall(r"`([^`]+)`", rest)]


def _resolve(root: Any, words: list[str]) -> tuple[Any, list[str], list[str]]:
    """The command `words` name under `root` (the app's click command), its path and the rest."""
    command: Any = root
    path: list[str] = []
    while hasattr(command, "commands") and len(path) < len(words):
        sub = command.get_command(typer.Context(command), words[len(path)])
        if sub is None:
            break
        command = sub
        path.append(words[len(path)])
    return command, path, words[len(path) :]


def _options(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        names |= set(getattr(param, "opts", [])) | set(getattr(param, "secondary_opts", []))
    return names


def test_every_quoted_command_names_a_real_command_and_its_own_options() -> None:
    problems: list[str] = []
    seen: set[tuple[str, ...]] = set()
    root = typer.main.get_command(app)  # built once: about 0.03 s of CPU per build, 290 quotes
    for doc in DOCS:
        for snippet in _snippets(doc.read_text(encoding="utf-8")):
            for match in re.finditer(r"(?:^|[\s;&|(])poemetric((?:\s+[^\s;&|)]+)*)", snippet):
                text = match.group(1).split("#")[0].replace("…", "").replace("...", "")
                try:
                    words = shlex.split(text)
                except ValueError:
                    words = text.split()
                if not words or words[0] in ("--version", "--help"):
                    continue
                command, path, rest = _resolve(root, words)
                where = f"{doc.relative_to(ROOT)}: `poemetric{match.group(1)}`"
                if not path or (hasattr(command, "commands") and rest and rest[0].isalpha()):
                    problems.append(f"{where}: no such command")
                    continue
                seen.add(tuple(path))
                known = _options(command)
                for word in rest:
                    option = word.split("=", 1)[0]
                    if OPTION.fullmatch(option) and option not in known:
                        problems.append(f"{where}: {' '.join(path)} has no option {option}")
    assert not problems, "\n".join(problems)
    assert len(seen) >= 30  # the docs quote most commands; an empty scan would pass silently
    for names in sorted(seen):
        assert CliRunner().invoke(app, [*names, "--help"]).exit_code == 0, names


def _anchors(doc: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6}\s+(.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug if slug not in anchors else f"{slug}-1")
    return anchors


def test_every_link_to_a_section_finds_its_heading() -> None:
    problems = []
    for doc in [*DOCS, ROOT / "docs" / "changelog.md"]:
        for target in re.findall(
            r"\]\(([^)\s#]*\.md)?#([\w-]+)\)", doc.read_text(encoding="utf-8")
        ):
            linked = (doc.parent / target[0]) if target[0] else doc
            if not linked.is_file() or target[1] not in _anchors(linked):
                problems.append(f"{doc.relative_to(ROOT)}: {target[0]}#{target[1]}")
    assert not problems, "\n".join(problems)


def test_the_sonnet_scheme_counts_in_the_form_check_doc_are_the_codes() -> None:
    """docs/form-check.md said "12 Petrarchan variants" while the code tried 20 (28 schemes)."""
    from poemetric.form.forms import SONNET_SCHEMES

    text = " ".join((ROOT / "docs" / "form-check.md").read_text(encoding="utf-8").split())
    families = {
        family: sum(name.startswith(family) for name in SONNET_SCHEMES)
        for family in ("Petrarchan", "quatrain octave")
    }
    claims = {
        "Petrarchan": re.findall(r"(\d+) Petrarchan variants", text),
        "canonical schemes": re.findall(r"best of (\d+) canonical schemes", text),
        "schemes, each named": re.findall(r"(\d+) schemes, each named", text),
        "quatrain octave": re.findall(r"(\d+) quatrain-octave schemes", text),
    }
    expected = {
        "canonical schemes": len(SONNET_SCHEMES),
        "schemes, each named": len(SONNET_SCHEMES),
        **families,
    }
    for what, found in claims.items():
        assert found and {int(n) for n in found} == {expected[what]}, (what, found)


def test_the_checker_version_a_user_lexicon_records_is_the_current_one_in_the_docs() -> None:
    """docs/form-check.md said a check made with a user lexicon records
    `form-2.13+lexicon-<digest>` after the checker became form-2.14."""
    from poemetric.form.checker import CHECKER_VERSION

    for doc in DOCS:
        quoted = set(re.findall(r"(form-[\d.]+)\+lexicon-", doc.read_text(encoding="utf-8")))
        assert quoted <= {CHECKER_VERSION}, (doc.relative_to(ROOT), quoted)


def _environment_variables_read() -> set[str]:
    """Every `POEMETRIC_*` name that poemetric's code reads from the environment: a string
    literal that is the whole name (`environ.get("POEMETRIC_HOME")`, `ENV_VAR = "..."`,
    `envvar="..."`), not a Python name of the package (`POEMETRIC_COLUMNS`, a schema constant
    that a lazy-import table names), and the `api_key_env` of the bundled model files."""
    import ast

    package = ROOT / "poemetric"
    literals: set[str] = set()
    python_names: set[str] = set()
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if re.fullmatch(r"POEMETRIC_[A-Z0-9_]+", node.value):
                    literals.add(node.value)
            elif isinstance(node, ast.Name) and node.id.startswith("POEMETRIC_"):
                python_names.add(node.id)
    for folder in ("generators", "judges"):
        for path in (ROOT / folder).glob("*.yaml"):
            literals |= set(re.findall(r"\$\{(POEMETRIC_[A-Z0-9_]+)", path.read_text("utf-8")))
    return literals - python_names


def test_every_environment_variable_poemetric_reads_is_in_the_running_doc_table() -> None:
    """docs/running.md's "Environment variables" lists what poemetric reads "besides" the API
    keys; `POEMETRIC_LEXICON` (form check, form scan, form run, demo, merge) was missing."""
    text = (ROOT / "docs" / "running.md").read_text(encoding="utf-8")
    section = text.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    read = _environment_variables_read()
    assert {"POEMETRIC_HOME", "POEMETRIC_STOP_GRACE", "POEMETRIC_JUDGE"} <= read
    missing = sorted(name for name in read if f"`{name}`" not in section)
    assert not missing, missing


def test_the_judge_answer_corpus_counts_in_the_benchmarks_doc_are_the_corpus() -> None:
    """docs/benchmarks.md said 101 answers (57 to read, 44 to reject) after the corpus grew to
    106 (49 to reject)."""
    from judge_corpus import corpus

    cases = corpus()
    text = " ".join((ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").split())
    claim = re.search(
        r"`tests/judge_corpus.py` holds (\d+) hand-written answers \((\d+) to read, (\d+) to reject",
        text,
    )
    assert claim is not None
    to_read = sum(case.scores is not None for case in cases)
    assert tuple(map(int, claim.groups())) == (len(cases), to_read, len(cases) - to_read)
