"""The bundled prompts are read from `prompts/`, never from a file of the same name in the folder
the commands run in. An installed user works in a project folder of their own; a
`generation.jinja` or `judge.md` kept there (a draft, a copy being edited) replaced the paper's
generation prompt or judge prompt for every model and judge without a word, and the run stored
it as the run's template."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from poemetric.cli import app
from poemetric.judge.stage import judge_template, reask_prompt
from poemetric.paths import resource_path
from poemetric.prompts import (
    GENERATION_TEMPLATE,
    JUDGE_REASK_TEMPLATE,
    JUDGE_TEMPLATE,
    SURVEY_TEMPLATE,
    load_template,
    render_generation_prompt,
    render_judge_prompt,
    render_survey,
    template_hash,
)
from poemetric.providers.base import ModelSpec

#: A stand-in for each bundled template, with the placeholders the real one has.
DRAFTS = {
    GENERATION_TEMPLATE: "DRAFT: write a {{ form }} about cats.\n",
    JUDGE_TEMPLATE: "DRAFT JUDGE {generation_prompt} {the_poem}\n",
    SURVEY_TEMPLATE: "DRAFT SURVEY {generation_prompt} {the_poem}\n",
    JUDGE_REASK_TEMPLATE: "DRAFT REASK {error}\n",
}


def _bundled_hash(name: str) -> str:
    return template_hash(resource_path("prompts", name).read_text(encoding="utf-8"))


@pytest.fixture
def drafts_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The working folder holds a file named like each bundled template."""
    for name, text in DRAFTS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    load_template.cache_clear()  # looked up by name once per process
    yield tmp_path
    load_template.cache_clear()


def _poem() -> SimpleNamespace:
    return SimpleNamespace(
        form="sonnet", meter_pattern="Iambic pentameter", rhyme_pattern="ABAB CDCD EFEF GG",
        theme="Time and love",
    )  # fmt: skip


@pytest.mark.usefixtures("drafts_here")
def test_the_default_templates_are_the_bundled_ones() -> None:
    generation = render_generation_prompt(_poem())
    assert "DRAFT" not in generation.text
    assert generation.template_hash == _bundled_hash(GENERATION_TEMPLATE)
    judged = render_judge_prompt(generation.text, "A poem.")
    assert "DRAFT" not in judged.text
    assert judged.template_hash == _bundled_hash(JUDGE_TEMPLATE)
    assert "DRAFT" not in render_survey(generation.text, "A poem.")
    assert "DRAFT" not in reask_prompt("item 3 is missing")
    judge = ModelSpec(name="my-judge", provider="markov", model="m")
    assert judge_template(judge).sha256 == _bundled_hash(JUDGE_TEMPLATE)


def test_a_new_run_stores_the_bundled_generation_prompt(drafts_here: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["generate", "--run", "runs/x", "--dataset", "demo", "--models", "markov", "--limit",
         "1", "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with sqlite3.connect(drafts_here / "runs/x/poemetric.sqlite") as db:
        stored = db.execute("SELECT template_hash, text FROM templates").fetchall()
        prompts = [text for (text,) in db.execute("SELECT text FROM prompts")]
    assert [hash_ for hash_, _ in stored] == [_bundled_hash(GENERATION_TEMPLATE)]
    assert prompts and not any("DRAFT" in text for text in prompts)


@pytest.mark.usefixtures("drafts_here")
def test_prompts_render_shows_the_bundled_prompts() -> None:
    for kind in ("generation", "judge"):
        result = CliRunner().invoke(
            app, ["prompts", "render", "--limit", "1", "--kind", kind], env={"COLUMNS": "200"}
        )
        assert result.exit_code == 0, result.output
        assert "DRAFT" not in result.output


@pytest.mark.usefixtures("drafts_here")
def test_a_template_named_on_the_command_line_is_still_read_from_the_working_folder() -> None:
    """`--template FILE` takes a file as given (a relative path from the working folder)."""
    result = CliRunner().invoke(
        app,
        ["prompts", "render", "--limit", "1", "--template", GENERATION_TEMPLATE],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.output
    assert "DRAFT: write a sonnet about cats." in result.output


def test_a_judge_files_template_is_found_beside_it_before_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/models.md: `template: judge-v2` finds `judge-v2.md` beside the judge file or in
    `prompts/`; a `judge-v2.md` in the working folder was taken first."""
    judges, here = tmp_path / "my-judges", tmp_path / "project"
    judges.mkdir()
    here.mkdir()
    (judges / "judge-v2.md").write_text("BESIDE {generation_prompt} {the_poem}\n", encoding="utf-8")
    (here / "judge-v2.md").write_text("HERE {generation_prompt} {the_poem}\n", encoding="utf-8")
    (judges / "my-judge.yaml").write_text(
        "name: my-judge\nprovider: markov\nmodel: m\ntemplate: judge-v2\n", encoding="utf-8"
    )
    monkeypatch.chdir(here)
    result = CliRunner().invoke(
        app,
        ["models", "show", "my-judge", "--judges"],
        env={"POEMETRIC_JUDGES_DIR": str(judges), "COLUMNS": "400"},
    )
    assert result.exit_code == 0, result.output
    assert f"template: {judges / 'judge-v2.md'}" in result.output


def test_a_judge_template_not_found_says_where_one_of_ones_own_goes(tmp_path: Path) -> None:
    """`template: my-promt` (a misspelt `my-prompt.md` beside the judge file) was refused with
    the bundled templates alone, as though one's own had to be added to POEMetric's prompts/."""
    judges = tmp_path / "my-judges"
    judges.mkdir()
    (judges / "my-prompt.md").write_text("{generation_prompt} {the_poem}\n", encoding="utf-8")
    (judges / "my-judge.yaml").write_text(
        "name: my-judge\nprovider: markov\nmodel: m\ntemplate: my-promt\n", encoding="utf-8"
    )
    result = CliRunner().invoke(
        app,
        ["models", "show", "my-judge", "--judges"],
        env={"POEMETRIC_JUDGES_DIR": str(judges), "COLUMNS": "400"},
    )
    assert result.exit_code == 2, result.output
    assert (
        "my-judge.yaml:4: template: no prompt template 'my-promt'; bundled templates: "
        in result.output
    )
    assert (
        f"; a template of your own goes beside the judge file: {judges / 'my-promt.md'} "
        "(did you mean 'my-prompt'?)" in result.output
    )
