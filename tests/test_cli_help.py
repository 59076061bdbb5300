"""Every command's --help teaches with examples, and the examples only use real options."""

from __future__ import annotations

import functools
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from poemetric.cli import app


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if hasattr(group, "commands"):
        if path and group.callback is not None:
            yield path, group  # a group that does work itself (e.g. `poemetric models`)
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):  # loads lazily registered commands
            yield from _commands(group.get_command(ctx, name), (*path, name))
    else:
        yield path, group


@functools.cache
def _help(path: tuple[str, ...], columns: str) -> tuple[int, str]:
    """`poemetric PATH --help` with COLUMNS=columns: its exit status and output. Rendered once
    per module: four tests read every command's help at 80 columns."""
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": columns})
    return result.exit_code, result.output


def _options(command: Any) -> set[str]:
    names = {opt for param in command.params for opt in getattr(param, "opts", [])}
    names |= {opt for param in command.params for opt in getattr(param, "secondary_opts", [])}
    return names


def test_every_command_has_examples_that_name_only_real_options() -> None:
    root = typer.main.get_command(app)
    checked = 0
    for path, command in _commands(root):
        result = CliRunner().invoke(app, [*path, "--help"], terminal_width=200)
        assert result.exit_code == 0, path
        prefix = " ".join(("poemetric", *path))
        examples = [
            line.strip().strip("│").strip()
            for line in result.output.splitlines()
            if line.strip().strip("│").strip().startswith(prefix + " ")
            or line.strip().strip("│").strip() == prefix
        ]
        assert examples, f"`{prefix} --help` shows no example"
        known = _options(command)
        required = [
            param.opts
            for param in command.params
            if param.required and getattr(param, "param_type_name", "") == "option"
        ]
        default_run = any(
            "--run" in getattr(param, "opts", []) and str(param.default) == "runs/default"
            for param in command.params
        )
        for example in examples:
            words = shlex.split(example.replace("…", ""))
            for word in words:
                option = word.split("=", 1)[0]
                if re.fullmatch(r"--?[a-z][a-z-]*", option):
                    assert option in known, f"{example!r}: {prefix} has no option {option}"
            # `merge`'s example left out --into, which it requires: copied, it failed.
            given = {word.split("=", 1)[0] for word in words}
            for opts in required:
                assert given & set(opts), f"{example!r}: {prefix} requires {opts[0]}"
            # `style-match --judge local-openai --trials 8` read runs/default, a run nobody has
            # (`poemetric demo` makes runs/demo): copied, it failed with "no run store".
            if default_run:
                assert given & {"--run", "-r"}, f"{example!r}: {prefix} reads runs/default"
        checked += 1
    assert checked >= 18


def test_generate_and_judge_help_say_how_a_stop_ends_and_the_exit_statuses() -> None:
    """docs/running.md's cluster section, where a batch-job user looks first: the grace
    variable of Ctrl-C / SIGTERM and what each exit status means. `judge recognise` and
    `ghostwriting style-match` stop and exit alike, and their help said nothing of it."""
    for command in (
        ["generate"],
        ["judge"],
        ["judge", "recognise"],
        ["ghostwriting", "style-match"],
    ):
        result = CliRunner().invoke(app, [*command, "--help"], terminal_width=200)
        assert result.exit_code == 0
        text = " ".join(result.output.replace("│", " ").split())
        assert "POEMETRIC_STOP_GRACE seconds (default 20)" in text, command
        assert "SIGTERM" in text and "130 / 143" in text and "Exit status: 0" in text, command
        assert "141 the reader of its output went away" in text, command  # closed_output


def _every_command(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, group  # the root and every group too: their help lists the commands
    if hasattr(group, "commands"):
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):
            yield from _every_command(group.get_command(ctx, name), (*path, name))


def _help_texts(command: Any) -> list[str]:
    """The texts `command`'s --help is made of: its own, its options' and its subcommands'."""
    texts = [command.help, command.epilog, command.short_help]
    texts += [getattr(param, "help", None) for param in command.params]
    for sub in getattr(command, "commands", {}).values():
        texts += [sub.help, sub.short_help]
    return [text for text in texts if text]


def test_no_help_cuts_a_word_at_80_columns() -> None:
    """Output that is not a terminal is 80 columns wide, and the options' help column about
    20: `generate --help` read `'gpt-4o,qwen2.5-7b-…` and `$SLURM_ARRAY_TASK_I…`. A word too
    long for its column is folded onto the next line; the only "…" left are the help's own."""
    root = typer.main.get_command(app)
    cut = {}
    for path, command in _every_command(root):
        code, output = _help(path, "80")
        assert code == 0, path
        assert max(map(len, output.splitlines())) <= 80, path
        own = sum(text.count("…") for text in _help_texts(command))
        if output.count("…") > own:
            cut[" ".join(path)] = [line for line in output.splitlines() if "…" in line]
    assert not cut
    generate = CliRunner().invoke(app, ["generate", "--help"], env={"COLUMNS": "80"})
    folded = "".join(line.strip("│ ").split("  ")[-1] for line in generate.output.splitlines())
    for word in ("'gpt-4o,qwen2.5-7b-instruct'", "$SLURM_ARRAY_TASK_ID/4", "generation.jinja"):
        assert word in folded


def _help_column_widths(output: str, width: int) -> dict[str, int]:
    """Each panel's help column width: from where its help text starts (the leftmost last
    run of text on a line that also holds a name) to the panel's right border and padding."""
    widths: dict[str, int] = {}
    title, starts = "", []
    for line in output.splitlines():
        if line.startswith("╭─"):
            title, starts = line.strip("╭─╮ "), []
        elif line.startswith("╰") and starts:
            widths[f"{title} {len(widths)}"] = width - 2 - min(starts)
        elif line.startswith("│"):
            runs = list(re.finditer(r"\S+(?: \S+)*", line[1:-1]))
            if len(runs) >= 2:
                starts.append(runs[-1].start() + 1)
    return widths


def test_option_help_is_at_least_45_columns_wide_at_80_columns() -> None:
    """Typer's options table gave the help about 20 of 80 columns (a column each for the
    required mark, name, short flag, --no- name, its short flag and metavar, mostly empty):
    `generate --help` was 137 lines of two- and three-word ribbons. At 80 columns the names and
    metavar now share one column, so every panel's help column has at least 45."""
    root = typer.main.get_command(app)
    narrow = {}
    for path, _command in _every_command(root):
        code, output = _help(path, "80")
        assert code == 0, path
        widths = _help_column_widths(output, 80)
        assert any(title.startswith("Options") for title in widths), path
        narrow.update({f"{' '.join(path)}: {t}": w for t, w in widths.items() if w < 45})
    assert not narrow
    generate = CliRunner().invoke(app, ["generate", "--help"], env={"COLUMNS": "80"}).output
    assert re.search(r"--models -m <str> +Comma-separated model names or groups from ", generate)


def test_help_rendering_is_set_up_only_when_help_is_shown() -> None:
    """Folding long words (poemetric.cli.help_render) needs typer's Rich help module, which a
    command that shows no help does not import."""
    code = "import sys, poemetric.cli.app\nprint('typer.rich_utils' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_flags_show_no_metavar_at_80_and_120_columns() -> None:
    """A flag takes no value, yet typer gave each one the metavar `<bool>` (`--progress
    --no-progress <bool>`, `--force <bool>`, `--help <bool>`), as if it took `true`. Flags now
    show none; options with a value keep theirs."""
    root = typer.main.get_command(app)
    shown = {}
    for columns in ("80", "120"):
        for path, _command in _every_command(root):
            code, output = _help(path, columns)
            assert code == 0, path
            if "<bool>" in output:
                shown[f"{' '.join(path)} at {columns}"] = output.count("<bool>")
        demo = CliRunner().invoke(app, ["demo", "--help"], env={"COLUMNS": columns}).output
        assert re.search(r"--run +-r +<path>", demo), demo  # a value's metavar stays
        assert re.search(r"│ --help +Show this message and exit\.", demo), demo
    assert not shown


def test_an_options_help_does_not_repeat_the_variable_typer_shows() -> None:
    """`judge --help` read "...; env POEMETRIC_JUDGE. [env var: POEMETRIC_JUDGE]": typer already
    shows an option's environment variable after its help."""
    root = typer.main.get_command(app)
    repeated = []
    for path, command in _every_command(root):
        for param in command.params:
            envvar = getattr(param, "envvar", None)
            shown = isinstance(envvar, str) and getattr(param, "show_envvar", False)
            if shown and envvar in (getattr(param, "help", None) or ""):
                repeated.append(f"{' '.join(path)} {param.opts[0]}")
    assert not repeated
    judge = CliRunner().invoke(app, ["judge", "--help"], env={"COLUMNS": "200"}).output
    assert judge.count("POEMETRIC_JUDGE") == 1 and "[env var: POEMETRIC_JUDGE]" in judge


def _usage(output: str) -> str:
    """The usage line of a help or an error, joined where it wraps."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Usage:"))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return " ".join(" ".join(lines[start:end]).split())


def test_usage_and_metavars_read_as_conventional_help_at_80_and_200_columns() -> None:
    """Typer 0.29 wrote a required argument in braces on the usage line (`poemetric form check
    [OPTIONS] {input_path}`) and a list's metavar as its Python type (`files... <list[Path]>`,
    `--rater <list[str]>`). Arguments are now written as click writes them (`INPUT_PATH`,
    `[TABLES]...`) and a list shows its values' metavar (`<path>`)."""
    root = typer.main.get_command(app)
    braces, lists = {}, {}
    for columns in ("80", "200"):
        for path, _command in _every_command(root):
            code, output = _help(path, columns)
            assert code == 0, path
            usage = _usage(output)
            if re.search(r"[{}]", usage):
                braces[" ".join(path)] = usage
            if "<list[" in output:
                lists[" ".join(path)] = output.count("<list[")
    assert not braces
    assert not lists
    shown = {
        ("form", "check"): "Usage: poemetric form check [OPTIONS] INPUT_PATH",
        ("ghostwriting", "score"): "Usage: poemetric ghostwriting score [OPTIONS] FILES...",
        ("export",): "Usage: poemetric export [OPTIONS] [TABLES]...",
        ("dataset", "validate"): "Usage: poemetric dataset validate [OPTIONS] PATH",
    }
    for path, usage in shown.items():
        result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "80"})
        assert _usage(result.output) == usage
    score = CliRunner().invoke(app, ["ghostwriting", "score", "--help"], env={"COLUMNS": "80"})
    assert re.search(r"\* +files\.\.\. +<path> +Text files", score.output)
    sheets = CliRunner().invoke(app, ["survey", "sheets", "--help"], env={"COLUMNS": "80"})
    assert re.search(r"--rater <str> +Only this rater \(repeatable\)", sheets.output)


def test_an_errors_usage_line_names_arguments_as_help_does() -> None:
    """The usage line above a missing argument's error said `{input_path}` too; the error names
    the argument as the Arguments panel lists it."""
    result = CliRunner().invoke(app, ["form", "check"], env={"COLUMNS": "80"})
    assert result.exit_code == 2
    assert result.output.splitlines()[0] == "Usage: poemetric form check [OPTIONS] INPUT_PATH"
    assert "Missing argument 'input_path'." in result.output


def test_models_help_teaches_how_to_add_a_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`models --help` listed the roster but never said how to add a model (which folder, the
    variable for a folder of one's own, how to check the file): a new researcher had to find
    docs/models.md first. Following what it says now adds a model that every command finds."""
    result = CliRunner().invoke(app, ["models", "--help"], terminal_width=200)
    assert result.exit_code == 0
    text = " ".join(result.output.replace("│", " ").split())
    for needed in ("NAME.yaml", "generators/", "export POEMETRIC_GENERATORS_DIR=DIR",
                   "POEMETRIC_JUDGES_DIR", "Then poemetric models show NAME prints it",
                   "docs/models.md", "docs/providers.md"):  # fmt: skip
        assert needed in text, needed
    folder = tmp_path / "my-models"
    folder.mkdir()
    (folder / "markov3.yaml").write_text(
        "name: markov3\nprovider: markov\nmodel: markov-ngram\noptions: {order: 3}\n"
    )
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    shown = CliRunner().invoke(app, ["models", "show", "markov3"])
    assert shown.exit_code == 0 and f"# {folder / 'markov3.yaml'}" in shown.output
    listed = CliRunner().invoke(app, ["models"], terminal_width=200)
    assert any(line.startswith("markov3 ") for line in listed.output.splitlines())


def test_judge_help_says_which_poems_are_not_sent_to_the_judge() -> None:
    """After the paragraph on unparsable answers, `judge --help` said "Empty answers and
    refusals are not sent": read as the judge's answers, which are parsed and re-asked; it is
    the generations that are no poem that are not sent."""
    said = " ".join(
        CliRunner().invoke(app, ["judge", "--help"], env={"COLUMNS": "200"}).output.split()
    )
    assert "Empty answers and refusals are not sent" not in said
    assert (
        "A generation that is no poem (empty, a refusal, one line, not in Latin script) is not sent to the judge"
        in said
    )


def test_every_group_shows_examples_of_its_commands_with_their_real_options() -> None:
    """`poemetric form --help` (and batches, dataset, ghostwriting, prompts, survey) listed its
    commands with no example, while the README says every command's help has examples."""
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    groups = [
        name for name in root.list_commands(ctx) if hasattr(root.get_command(ctx, name), "commands")
    ]
    assert {"batches", "dataset", "form", "ghostwriting", "prompts", "survey"} <= set(groups)
    for name in groups:
        group = root.get_command(ctx, name)
        result = CliRunner().invoke(app, [name, "--help"], terminal_width=200)
        assert result.exit_code == 0, name
        prefix = f"poemetric {name} "
        examples = [
            line.strip().strip("│").strip()
            for line in result.output.splitlines()
            if line.strip().strip("│").strip().startswith(prefix)
        ]
        assert examples, f"`poemetric {name} --help` shows no example"
        for example in examples:
            words = shlex.split(example.split("#")[0].replace("…", ""))
            command = group.get_command(typer.Context(group), words[2])
            if command is None:  # a group that does work itself: `poemetric judge --run …`
                assert group.callback is not None, f"{example!r}: no command {words[2]!r}"
                command = group
            known = _options(command)
            for word in words:
                option = word.split("=", 1)[0]
                if re.fullmatch(r"--?[a-z][a-z-]*", option):
                    assert option in known, f"{example!r}: no option {option}"


def _groups(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if hasattr(group, "commands"):
        if path:
            yield path, group
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):
            yield from _groups(group.get_command(ctx, name), (*path, name))


def test_a_group_that_runs_without_a_command_says_the_command_is_optional() -> None:
    """`poemetric judge` runs the judge stage and `poemetric models` lists the models without a
    command, but their usage lines read `judge [OPTIONS] COMMAND [ARGS]...`, as if one were
    needed; a group that needs one keeps saying so."""
    root = typer.main.get_command(app)
    runner = CliRunner()
    optional = []
    for path, group in _groups(root):
        usage = runner.invoke(app, [*path, "--help"], terminal_width=200).output
        line = next(line for line in usage.splitlines() if "Usage:" in line)
        if group.invoke_without_command:
            optional.append(path)
            assert line.rstrip().endswith("[OPTIONS] [COMMAND [ARGS]...]"), (path, line)
        else:
            assert line.rstrip().endswith("[OPTIONS] COMMAND [ARGS]..."), (path, line)
    assert {("judge",), ("models",)} <= set(optional), optional
