"""Square brackets in what the commands print stay as they are.

Rich reads `[word]` in a printed string, a table cell or a title as a style tag and drops it (and
stops with a MarkupError at a `[/word]` that closes nothing): `demo --run runs/[exp1]` printed its
paths as `runs//...`, `form scan` showed a poem line `[chorus]` as an empty cell and every
`[rhyme]` / `[meter]` label of its explanation as nothing, `merge` printed each conflict's key
`[prompt_id=...]` as nothing. Each test gives a command such a value through the real CLI.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from test_merge import POEMS, _generation, _make_store
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.store import RunStore

REPO_ROOT = Path(__file__).resolve().parent.parent
WIDE = {"COLUMNS": "400"}


def _flat(text: str) -> str:
    """`text` without white space and table borders: a line, a cell or a title wraps at the
    console's width, which a console made at import keeps (80 when another test imported the
    command's module first), whatever COLUMNS says later."""
    return "".join(text.replace("│", "").replace("┃", "").split())


def _run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args), env=WIDE)
    assert result.exit_code == code, result.output
    return result.output


POEM = """\
[chorus]
There once was a poet named Lear [sic]
Who wrote nonsense verses all year
[Refrain] He [/i]nvented a rhyme
Each line at a time
And the meaning was never quite clear
"""


def test_form_scan_shows_poem_lines_and_the_constraint_labels_in_brackets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from poemetric.cli import form_cmd

    # A table cell is cut ("...") at the console's width: give the console room.
    monkeypatch.setattr(form_cmd, "console", Console(width=400))
    poem = tmp_path / "poem.txt"
    poem.write_text(POEM, encoding="utf-8")
    # As given: extraction would take the "[chorus]" label off, and with it the lines finding.
    output = _run("form", "scan", str(poem), "--form", "limerick", "--no-extract")
    for line in POEM.splitlines():
        assert _flat(line) in _flat(output), line
    # The explanation's lines start with the constraint's name in brackets.
    labels = re.findall(r"^  \[(\w+)\]", output, re.MULTILINE)
    assert "lines" in labels and "rhyme" in labels, output


def test_form_check_names_input_and_output_in_bracketed_folders(tmp_path: Path) -> None:
    folder = tmp_path / "[exp1]"
    folder.mkdir()
    poems = folder / "poems.csv"
    poems.write_text('content,form\n"Roses are red\nViolets are blue",limerick\n')
    output = _run("form", "check", str(poems), "--output", str(folder / "[v2].jsonl"))
    assert _flat(f"Form check of {poems} -> {folder / '[v2].jsonl'}") in _flat(output)


@pytest.fixture(scope="module")
def bracket_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo run in a folder `[exp1]`, and what the demo printed."""
    run = tmp_path_factory.mktemp("markup") / "[exp1]" / "demo"
    output = _run("demo", "--run", str(run), "--limit", "1", "--no-progress")
    return run, output


def test_demo_prints_its_run_folders_paths_whole(bracket_run: tuple[Path, str]) -> None:
    run, output = bracket_run
    flat = _flat(output)
    assert _flat(f"run store   {run / 'poemetric.sqlite'}") in flat
    assert _flat(f"report      {run / 'report' / 'index.html'}") in flat
    # The hint's commands, copied as printed, name the run (quoted: `[exp1]` is a shell glob).
    quoted = shlex.quote(str(run))
    assert quoted.startswith("'")
    assert _flat(f"export      poemetric export --run {quoted} --format csv") in flat
    assert _flat(f"poemetric judge --run {quoted} --judge gemini-2.5-pro") in flat
    assert _flat(f"poemetric judge --run {quoted} --judge local-openai") in flat
    assert "//" not in output.replace("http://", "")


def test_run_commands_print_a_bracketed_run_folder(bracket_run: tuple[Path, str]) -> None:
    run, _ = bracket_run
    assert _flat(f"Form checks in {run}") in _flat(_run("form", "run", "--run", str(run)))
    assert _flat(f"files to {run / 'analysis'}") in _flat(_run("analyze", "--run", str(run)))
    exported = _run("export", "prompts", "--run", str(run))
    assert _flat(f"→ {run / 'export' / 'prompts.csv'}") in _flat(exported)
    report = _run("report", "--run", str(run))
    assert _flat(f"wrote {run / 'report' / 'index.html'}") in _flat(report)


def test_merge_prints_each_conflicts_key(tmp_path: Path) -> None:
    dest = _make_store(tmp_path / "dest", POEMS, ["gpt-4o"])  # a poem for every prompt
    other = tmp_path / "[part1]"
    _make_store(other, [], [])
    with RunStore(other) as store:
        store.save_generation(_generation("p1", "gpt-4o", poem="a different poem"))
    output = _run("merge", str(other), "--into", str(dest))
    assert _flat(f"into {dest}") in _flat(output)
    key = "[prompt_id='prompt-p1', author='gpt-4o', sample_index=0]"
    assert _flat(f"generations {key} from {other}: differs in") in _flat(output)


@pytest.fixture
def bracket_roster(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A generators folder `[extra]` with a Markov model whose id and display name hold brackets."""
    folder = tmp_path / "[extra]"
    folder.mkdir()
    (folder / "markov-v2.yaml").write_text(
        "name: markov-v2\nprovider: markov\nmodel: markov-ngram[v2]\n"
        "display_name: Markov [v2]\ngroups: [bracketed]\n"
    )
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    yield folder


def test_models_lists_a_model_id_and_a_folder_with_brackets(bracket_roster: Path) -> None:
    output = _run("models", "--group", "bracketed")
    assert "markov-ngram[v2]" in _flat(output)
    assert _flat(str(bracket_roster)) in _flat(output)


def test_analyze_shows_a_display_name_with_brackets(bracket_roster: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    _run("generate", "--run", str(run), "--models", "markov-v2", "--limit", "1", "--no-progress")
    assert "Markov[v2]" in _flat(_run("analyze", "--run", str(run), "--bootstrap", "0"))


def test_dataset_show_prints_titles_and_authors_with_brackets(tmp_path: Path) -> None:
    data = tmp_path / "[mine].csv"
    data.write_text(
        "form,title,author,content,meter_pattern,rhyme_pattern,theme\n"
        'limerick,[Untitled],[anon],"There was a young lady of Niger\nWho smiled as she rode",'
        "anapestic trimeter,AABBA,[sic]\n"
    )
    output = _run("dataset", "show", str(data))
    assert "[Untitled]" in _flat(output) and "[anon]" in _flat(output)
    assert "[mine]" in _flat(output)


def test_ghostwriting_score_names_a_bracketed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from poemetric.cli import ghostwriting_cmd

    monkeypatch.setattr(ghostwriting_cmd, "console", Console(soft_wrap=True, width=400))
    poem = tmp_path / "[draft].txt"
    poem.write_text("The cat sat on the mat\nAnd wore a hat\n")
    output = _run("ghostwriting", "score", str(poem), "--rhymes")
    assert _flat(output).count(_flat(str(poem))) == 2, output


def test_prompts_render_names_a_bracketed_template_in_the_panels_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    from poemetric.cli import prompts_cmd

    # A panel's title is cut at the console's width, not wrapped: give the console room.
    monkeypatch.setattr(prompts_cmd, "console", Console(width=400))
    template = tmp_path / "[v2].jinja"
    template.write_text((REPO_ROOT / "prompts" / "generation.jinja").read_text())
    output = _run("prompts", "render", "--limit", "1", "--template", str(template))
    assert " · [v2].jinja · sha256 " in output


# --help: every `[` of a help text, docstring or epilog is in the rendered help.


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, group
    if hasattr(group, "commands"):
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):  # loads lazily registered commands
            yield from _commands(group.get_command(ctx, name), (*path, name))


def _lost_brackets(target: typer.Typer, command: Any, path: tuple[str, ...]) -> list[str]:
    """The bracketed words of `command`'s help texts missing from its rendered `--help`."""
    # COLUMNS, read by each help console: typer reads TERMINAL_WIDTH once, when its help module
    # is first imported, so a test that set it froze every later help at 1,000 columns.
    result = CliRunner().invoke(target, [*path, "--help"], env={"COLUMNS": "1000"})
    assert result.exit_code == 0, result.output
    shown = "".join(result.output.replace("│", "").split())
    texts = [command.help, command.epilog, *(getattr(p, "help", None) for p in command.params)]
    words = [word for text in texts if text for word in text.split() if "[" in word]
    return [word for word in words if word.replace("\\[", "[") not in shown]


def test_every_commands_help_keeps_its_brackets() -> None:
    root = typer.main.get_command(app)
    lost = {
        " ".join(path): missing
        for path, command in _commands(root)
        if (missing := _lost_brackets(app, command, path))
    }
    assert not lost


def test_the_help_check_finds_a_bracket_lost_as_markup() -> None:
    """The check above on an app whose help reads `[local]` as a tag (rich mode) finds it."""
    probe = typer.Typer(rich_markup_mode="rich")

    @probe.command()
    def install(extra: str = typer.Option("", help="pip install 'poemetric[local]'.")) -> None:
        """Kept: 'poemetric\\[survey]'."""

    @probe.command()
    def other() -> None: ...

    command = typer.main.get_command(probe).commands["install"]  # type: ignore[attr-defined]
    assert _lost_brackets(probe, command, ("install",)) == ["'poemetric[local]'."]


# Emoji codes: Rich replaced `:name:` with an emoji in everything it printed, so an error on
# line 100 of a dataset read `poems.csv💯 form: unknown form ...` (`:100:`), in every command
# but `dataset validate`.


def _bad_at_line_100(path: Path) -> Path:
    """A dataset whose record on line 100 has an unknown form (98 valid one-line poems first)."""
    rows = [
        f'sonnet,Poem {n},Anonymous,"Line {n} of a poem",Iambic pentameter,,' for n in range(98)
    ]
    rows.append('haiku,Bad,Anonymous,"An old silent pond",,,')
    path.write_text(
        "form,title,author,content,meter_pattern,rhyme_pattern,theme\n" + "\n".join(rows) + "\n"
    )
    return path


def test_generate_names_line_100_of_a_bad_dataset(tmp_path: Path) -> None:
    data = _bad_at_line_100(tmp_path / "poems.csv")
    output = _run("generate", "--run", str(tmp_path / "run"), "--dataset", str(data), code=2)
    assert _flat(f"{data}:100: form: unknown form 'haiku'") in _flat(output), output
    assert "\N{HUNDRED POINTS SYMBOL}" not in output


def test_form_check_names_line_100_of_a_row_it_cannot_check(tmp_path: Path) -> None:
    data = _bad_at_line_100(tmp_path / "poems.csv")
    output = _run("form", "check", str(data), "--output", str(tmp_path / "out.jsonl"), code=1)
    assert _flat(f"{data}:100: id 99: unknown form 'haiku'") in _flat(output), output
    assert "\N{HUNDRED POINTS SYMBOL}" not in output


def test_form_scan_prints_an_emoji_code_in_a_poem_line_as_written(tmp_path: Path) -> None:
    poem = tmp_path / "poem.txt"
    poem.write_text("The clock struck :100: and then :smile:\nAnd so the morning came\n")
    output = _run("form", "scan", str(poem), "--form", "sonnet", "--no-extract")
    assert ":100:" in output and ":smile:" in output, output


def test_every_console_leaves_emoji_codes_alone() -> None:
    """A console made later without `emoji=False` would bring `:100:` back as an emoji."""
    sources = sorted((REPO_ROOT / "poemetric").rglob("*.py"))
    made = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in sources
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\bConsole\(", line) and "emoji=False" not in line
    ]
    assert not made
