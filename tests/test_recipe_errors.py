"""Figure recipes, valid YAML with a wrong field (a misspelt key, a wrong type, a missing key,
a list where a mapping goes, an unknown kind or parameter, a value out of range): each is one
`FILE:LINE: field: what is wrong` (the closest key, kind or parameter where one is close), and
`figures` draws nothing. They were pydantic's messages over four or five lines; a parameter's
wrong value was a traceback, or an error once the figures before it were drawn."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_runner_support import prepared_store
from typer.testing import CliRunner

from poemetric.analysis.recipes import RecipeError, load_recipe
from poemetric.cli.app import app


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("figures:\n  - name: a\n    kind: ranking\nfigurs: []\n",
         ":4: figurs: unknown key 'figurs' (did you mean 'figures'?)"),
        ("figures:\n  - nmae: a\n    kind: ranking\n",
         ":2: figures[0].nmae: unknown key 'nmae' (did you mean 'name'?)"),
        ("figures:\n  - name: a\n", ":2: figures[0].kind: missing (add a line 'kind: ...')"),
        ("figures:\n  - name: a\n    kind: rankng\n",
         ":3: figures[0].kind: unknown figure kind 'rankng' (did you mean 'ranking'?); kinds: "),
        ("figures:\n  - name: [a]\n    kind: ranking\n", ":2: figures[0].name: ['a'] is not text"),
        ("figures:\n  - name: my fig\n    kind: ranking\n",
         ":2: figures[0].name: 'my fig' cannot name the figure's files: use letters, digits, '_', "
         "'.' and '-'"),
        ("figures:\n  a:\n    kind: ranking\n",
         ":1: figures: should be a list: [a, b] (one item: [a]), or one '- item' line each below it"),
        ("- name: a\n  kind: ranking\n",
         ":1: the file should be a mapping: {key: value}, or 'key: value' lines indented below it "
         "(keys: description, figures)"),
        ("figures:\n  - name: a\n    kind: radar\n    max_author: 3\n",
         ":4: figures[0].max_author: unknown parameter 'max_author' of a radar figure (did you mean "
         "'max_authors', 'authors'?); accepted: max_authors"),
        ("figures:\n  - {name: x, kind: ranking, colour: red}\n",
         ":2: figures[0].colour: unknown parameter 'colour' of a ranking figure; accepted: none"),
        ("figures:\n  - name: a\n    kind: radar\n    max_authors: 0\n",
         ":4: figures[0].max_authors: 0 should be at least 1"),
        ("figures:\n  - name: a\n    kind: top_words\n    k: lots\n",
         ":4: figures[0].k: 'lots' is not a whole number"),
        ("figures:\n  - name: a\n    kind: all_models\n    layout: grid\n",
         ":4: figures[0].layout: 'grid' should be 'auto', 'bars' or 'heatmap'"),
        ("figures:\n  - name: a\n    kind: dimension_bars\n    dimensions: [form, imagry]\n",
         ":4: figures[0].dimensions: unknown dimension 'imagry' (did you mean 'imagery'?); use "
         "form, theme, "),
        # The second overwrote the first's files, and `figures` counted both as written.
        ("figures:\n  - name: rule-based\n    kind: rule_based\n  - name: rule-based\n"
         "    kind: ranking\n",
         ":4: figures[1].name: 'rule-based' is already used on line 2; each figure needs its own "
         "name (it names the output files)"),
    ],
    ids=["misspelt-top", "misspelt", "missing", "kind", "type", "pattern", "list", "mapping",
         "parameter", "no-parameters", "range", "parameter-type", "choice", "dimension",
         "duplicate-name"],
)  # fmt: skip
def test_a_wrong_field_in_a_recipe_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    """Each was pydantic's message over four or five lines, without the line (an unknown
    parameter had no line nor closest name; a parameter of the wrong type or value was a
    traceback, or an error once the figures before it were drawn)."""
    recipe = tmp_path / "mine.yaml"
    recipe.write_text(text, encoding="utf-8")
    with pytest.raises(RecipeError) as error:
        load_recipe(recipe)
    assert "\n" not in str(error.value)
    assert str(error.value).startswith(f"{recipe}{message}")


def test_a_wrong_recipe_parameter_draws_nothing(tmp_path: Path) -> None:
    """`group: bsic` in a recipe's second figure stopped `figures` with "error: unknown group
    'bsic'; ..." (no file, no line) once the first figure was drawn."""
    run = tmp_path / "run"
    prepared_store(run, poems=2).close()
    recipe = tmp_path / "mine.yaml"
    recipe.write_text(
        "figures:\n  - name: a\n    kind: form_accuracy\n"
        "  - name: b\n    kind: dimension_bars\n    group: bsic\n",
        encoding="utf-8",
    )
    out = tmp_path / "figures"
    args = ["figures", "--run", str(run), "--recipe", str(recipe), "--out", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr == (
        f"error: {recipe}:6: figures[1].group: 'bsic' should be 'basic', 'advanced', 'appraisal' "
        "or 'all' (did you mean 'basic'?)\n"
    )
    assert not out.exists() or not any(out.iterdir())


def test_a_yaml_file_may_share_settings_with_a_merge_key() -> None:
    """`<<: *shared` was refused as invalid YAML once duplicate keys were checked (the check
    constructed the merge key itself), where `yaml.safe_load` had read it; a key that is a list
    was a TypeError traceback."""
    from poemetric.data.yaml_fields import parse_yaml

    document, _ = parse_yaml("f.yaml", "base: &b\n  a: 1\nx:\n  <<: *b\n  b: 3\n  a: 2\n")
    assert document == {"base": {"a": 1}, "x": {"a": 2, "b": 3}}
    from poemetric.data.text_files import TextFileError

    with pytest.raises(TextFileError, match=r"f\.yaml:1: invalid YAML: a key cannot be a list"):
        parse_yaml("f.yaml", "? [1, 2]\n: x\n")
    with pytest.raises(TextFileError, match="duplicate key 'a'"):
        parse_yaml("f.yaml", "x:\n  <<: {a: 1}\n  a: 2\n  a: 3\n")


def test_a_recipe_may_list_its_authors_as_it_lists_its_forms(tmp_path: Path) -> None:
    """`authors: [gpt-4o, o1]` was refused ("figures[0].authors: ['gpt-4o', 'o1'] is not text")
    where `forms: [sonnet, villanelle]` is read; it now chooses those authors, as
    `--authors gpt-4o,o1` does."""
    from poemetric.analysis.selection import select_authors

    recipe = tmp_path / "mine.yaml"
    recipe.write_text(
        "figures:\n  - name: a\n    kind: ranking\n    authors: [gpt-4o, o1]\n"
        "  - name: b\n    kind: ranking\n    authors: [7]\n",
        encoding="utf-8",
    )
    with pytest.raises(RecipeError, match=r":7: figures\[1\]\.authors: \[7\] is not text"):
        load_recipe(recipe)
    recipe.write_text(recipe.read_text().split("  - name: b")[0], encoding="utf-8")
    (spec,) = load_recipe(recipe).figures
    shown, _ = select_authors(spec.authors, ["human", "o1", "gpt-4o", "qwq-32b"])
    assert shown == ["human", "gpt-4o", "o1"]
