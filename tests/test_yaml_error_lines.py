"""Invalid YAML names the line where the broken construct began (an unclosed quote or bracket),
not only where PyYAML gave up, which was often past the end of the file: a model file whose
line 4 opened a quote was `invalid YAML on line 6: found unexpected end of stream` (a 5-line
file). Every YAML file the project reads goes through `parse_yaml`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import poemetric.cli.models_cmd  # noqa: F401 - registers `poemetric models` on the app
from poemetric.analysis.recipes import RecipeError, load_recipe
from poemetric.cli.app import app
from poemetric.data.errata import Errata
from poemetric.data.registry import _RegistryFile
from poemetric.data.text_files import TextFileError
from poemetric.data.yaml_fields import validate_yaml_file
from poemetric.roster import RosterError, load_groups, load_model_file

UNCLOSED_QUOTE = (
    'name: gpt-4o\nprovider: openai\nmodel: gpt-4o\ndisplay_name: "GPT-4o\nopen_weights: false\n'
)
NEVER_CLOSED = (
    "invalid YAML: a quoted value starting here is never closed (found the end of the file); "
    "end it with the same quote mark"
)


@pytest.fixture(autouse=True)
def _no_user_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POEMETRIC_GENERATORS_DIR", raising=False)
    monkeypatch.delenv("POEMETRIC_JUDGES_DIR", raising=False)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_model_file_names_the_line_its_quote_opens(tmp_path: Path) -> None:
    path = _write(tmp_path / "gpt-4o.yaml", UNCLOSED_QUOTE)
    with pytest.raises(RosterError) as error:
        load_model_file(path)
    assert f"{path}:4: {NEVER_CLOSED}" in str(error.value)


def test_models_list_and_show_name_the_opening_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "mine"
    path = _write(folder / "gpt-4o.yaml", UNCLOSED_QUOTE)
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    listed = CliRunner().invoke(app, ["models", "list"], terminal_width=200)
    assert (
        f"  gpt-4o: invalid YAML on line 4: a quoted value starting here is never closed (found "
        f"the end of the file); end it with the same quote mark  ({path}:4)"
    ) in listed.output
    shown = CliRunner().invoke(app, ["models", "show", "gpt-4o"], terminal_width=200)
    assert f"{path}:4: {NEVER_CLOSED}" in shown.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("mine: [tiny\nother: [tiny]\n",
         ":1: invalid YAML: a [ list starting here: expected ',' or ']', but got ':' (on line 2)"),
        ("mine: [tiny,\n  tiny2\n", ":1: invalid YAML: a [ list starting here is never closed "
         "(found the end of the file); end it with ']'"),
        ("mine:\n  - 'tiny\n  - tiny2\n", f":2: {NEVER_CLOSED}"),
    ],
)  # fmt: skip
def test_groups_yaml_names_the_opening_line(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path / "groups.yaml", text)
    with pytest.raises(RosterError) as error:
        load_groups(directory=tmp_path)
    assert str(error.value).startswith(f"{path}{message}"), str(error.value)


def test_errata_and_registry_name_the_opening_line(tmp_path: Path) -> None:
    errata = _write(tmp_path / "errata.yaml", "errata:\n  - poem_id: 'p1\n    row: 3\n")
    with pytest.raises(TextFileError) as error:
        validate_yaml_file(errata, Errata)
    assert str(error.value) == f"{errata}:2: {NEVER_CLOSED}"
    registry = _write(tmp_path / "registry.yaml", "datasets:\n  - {name: x, path: 'y.csv'\n")
    with pytest.raises(TextFileError) as error:
        validate_yaml_file(registry, _RegistryFile)
    assert str(error.value) == (
        f"{registry}:2: invalid YAML: a {{ mapping starting here is never closed (found the end "
        "of the file); end it with '}'"
    )


def test_a_recipe_names_the_opening_line(tmp_path: Path) -> None:
    recipe = _write(
        tmp_path / "r.yaml",
        "description: 'mine\nfigures:\n  - name: a\n    kind: ranking\n",
    )
    with pytest.raises(RecipeError, match=rf"^{recipe}:1: invalid YAML: a quoted value starting"):
        load_recipe(recipe)


def test_a_wrongly_indented_line_stays_first(tmp_path: Path) -> None:
    """A block mapping's context is where the mapping began (often line 1): the problem's line,
    the one indented wrongly, is the one to name."""
    recipe = _write(tmp_path / "r.yaml", "description: x\nfigures:\n  - name: a\n kind: ranking\n")
    with pytest.raises(RecipeError) as error:
        load_recipe(recipe)
    assert str(error.value).startswith(f"{recipe}:4: invalid YAML: expected <block end>, but ")
    assert str(error.value).endswith("(in the mapping that begins on line 1)")


def test_models_list_names_the_line_of_a_field_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`models list` printed `(FILE)` beside a reason that names no line, where `models show`
    named `FILE:LINE`."""
    folder = tmp_path / "mine"
    path = _write(
        folder / "bad.yaml",
        "name: bad\nprovider: openai\nmodel: x\nsettings:\n  max_tokens: lots\n",
    )
    monkeypatch.setenv("POEMETRIC_GENERATORS_DIR", str(folder))
    listed = CliRunner().invoke(app, ["models", "list"], terminal_width=200)
    assert f"  bad: settings.max_tokens: 'lots' is not a whole number  ({path}:5)" in listed.output


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: &x 1\nb: &x 2\n",
         ":2: invalid YAML: found duplicate anchor 'x'; first occurrence (line 1), second "
         "occurrence"),
        ("a: 1\n---\nb: 2\n",
         ":2: invalid YAML: expected a single document in the stream (line 1), but found another "
         "document"),
    ],
)  # fmt: skip
def test_a_context_that_is_no_construct_names_the_problems_line(
    tmp_path: Path, text: str, message: str
) -> None:
    """A context that is not "while scanning/parsing ..." opened nothing: it was said as one
    ("first occurrence starting here: second occurrence (on line 2)") on the wrong line."""
    recipe = _write(tmp_path / "r.yaml", text)
    with pytest.raises(RecipeError) as error:
        load_recipe(recipe)
    assert str(error.value) == f"{recipe}{message}"


@pytest.mark.parametrize(
    ("text", "line", "fix"),
    [
        ("name: a\nmodel: gpt-4o: x\n", 2, "a value holding ': ' must be quoted"),
        ("name: a\n\tmodel: b\n", 2, "indent with spaces, not tabs"),
        ("name: a\nsettings:\n  temperature: 1\n model: b\n", 4,
         "this line is indented unlike the lines of its block above it"),
    ],
    ids=["colon-in-value", "tab", "indent"],
)  # fmt: skip
def test_the_commonest_yaml_problems_say_what_to_do(
    tmp_path: Path, text: str, line: int, fix: str
) -> None:
    """`invalid YAML on line 4: mapping values are not allowed here` named the parser's state,
    not the fix (an unquoted ': ' in a value, a tab, a line indented off its block)."""
    path = _write(tmp_path / "gpt-4o.yaml", text)
    with pytest.raises(RosterError) as error:
        load_model_file(path)
    assert f"{path}:{line}: invalid YAML: " in str(error.value)
    assert f"; {fix}" in str(error.value)
