"""Prompt templates: the generation prompt and the paper's verbatim judge prompt and survey."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from poemetric.paths import resource_path
from poemetric.prompts import (
    PromptError,
    load_template,
    render_generation_prompt,
    render_judge_prompt,
    render_survey,
    template_hash,
    template_path,
)


def _poem(**fields: object) -> SimpleNamespace:
    base: dict[str, object] = dict(
        form="sonnet", meter_pattern="Iambic pentameter", rhyme_pattern="ABAB CDCD EFEF GG",
        theme="Time and love",
    )  # fmt: skip
    base.update(fields)
    return SimpleNamespace(**base)


def test_generation_prompt_states_form_meter_rhyme_theme() -> None:
    text = render_generation_prompt(_poem()).text
    assert "sonnet" in text
    assert "Meter: Iambic pentameter." in text
    assert "Rhyme scheme: ABAB CDCD EFEF GG." in text
    assert "Theme: Time and love." in text
    assert "poem only" in text


@pytest.mark.parametrize("theme", ["Memory preserves it.", "Why stay?", "Go now!", "Rain.  "])
def test_a_field_that_ends_a_sentence_gets_no_second_full_stop(theme: str) -> None:
    text = render_generation_prompt(_poem(theme=theme)).text
    assert f"Theme: {theme.strip()}\n" in text
    assert ".." not in text and "?." not in text and "!." not in text


@pytest.mark.parametrize(
    ("theme", "line"),
    [
        (
            'About loss through the motif of "prayer."',
            'Theme: About loss through the motif of "prayer."\n',
        ),
        ("The speaker asks (why?)", "Theme: The speaker asks (why?)\n"),
        ("It is ‘over.’", "Theme: It is ‘over.’\n"),
        ('The "vulgar" and the "pure"', 'Theme: The "vulgar" and the "pure".\n'),
        ("The sailors'", "Theme: The sailors'.\n"),
    ],
)
def test_a_sentence_ending_inside_quotes_gets_no_second_full_stop(theme: str, line: str) -> None:
    """A theme whose sentence ends inside closing quotes or brackets was sent to every model as
    '...the motif of "prayer.".' (the release's row 75, 'Ghazal: With Prayer'); one that ends on
    a quoted word without a stop still gets one."""
    assert line in render_generation_prompt(_poem(theme=theme)).text


def test_every_release_prompt_reads_cleanly(poemetric_gold_csv: Path) -> None:
    from poemetric.data import load_dataset

    for poem in load_dataset(poemetric_gold_csv).poems:
        text = render_generation_prompt(poem).text
        for doubled in ("..", '.".', "?.", "!.", ".'.", ".).", ".’."):
            assert doubled not in text, text


def test_every_demo_prompt_reads_cleanly() -> None:
    from poemetric.data import load_dataset

    for poem in load_dataset("demo").poems:
        text = render_generation_prompt(poem).text
        assert ".." not in text, text


def test_generation_prompt_omits_missing_fields() -> None:
    text = render_generation_prompt(_poem(meter_pattern=None, rhyme_pattern="")).text
    assert "Meter" not in text and "Rhyme" not in text
    assert text.startswith("Write a poem in the form of a sonnet.")


@pytest.mark.parametrize("missing", ["None", "nan", "N/A", "-", "null", "unknown"])
def test_a_word_for_a_missing_meter_or_theme_is_left_out(tmp_path: Path, missing: str) -> None:
    """A CSV cell holding a word for a missing value (`str(None)`, pandas' `nan`, a spreadsheet's
    `N/A`) was sent to every model as "Meter: None." / "Theme: nan.", while the form checker
    reads such a metre as no metre."""
    from poemetric.data import load_dataset

    path = tmp_path / "poems.csv"
    path.write_text(
        "form,title,author,content,meter_pattern,rhyme_pattern,theme\n"
        f'limerick,T,A,"One line here\nAnd one line there",{missing},AABBA,{missing}\n',
        encoding="utf-8",
    )
    (poem,) = load_dataset(path).poems
    assert poem.meter_pattern == poem.theme == missing  # the annotation is kept as written
    assert render_generation_prompt(poem).text == (
        "Write a poem in the form of a limerick.\nRhyme scheme: AABBA.\n"
        "Reply with the poem only: no title, no explanation, no commentary.\n"
    )


def test_same_fields_same_prompt_and_hash() -> None:
    first, second = render_generation_prompt(_poem()), render_generation_prompt(_poem())
    assert first == second
    assert first.template_hash == template_hash(load_template("generation.jinja").text)


def test_judge_prompt_is_the_published_instrument() -> None:
    text = render_judge_prompt("PROMPT TEXT", "POEM TEXT").text
    assert text.startswith("# Role Description\nYou are a professional poetry critic and analyst.")
    for number, question in [
        (1, "The poem follows the given prompt in terms of form, including meter and rhyme"),
        (3, "The poem uses a varied vocabulary."),
        (5, "This poem shows idiosyncrasy."),
        (7, "The imagery in this poem is used well."),
        (8, "At least one of the literary devices listed below is used well in the poem."),
        (10, "This is a good poem."),
        (12, "The poem is written by a human."),
        (13, "Please give comments on why you gave the answer that you did for question 12"),
    ]:
        assert f"{number}. {question}" in text
    assert text.count("0 - N/A") == 2
    assert '{"1": <insert your score here>' in text
    assert "## The prompt\nPROMPT TEXT\n" in text and "## The poem\nPOEM TEXT\n" in text


def test_placeholders_in_poem_stay_literal() -> None:
    text = render_judge_prompt("P", "a {generation_prompt} and {the_poem}").text
    assert "a {generation_prompt} and {the_poem}" in text


def test_survey_has_required_marks() -> None:
    text = render_survey("P", "Q")
    assert text.count("(Required)") == 10
    assert "Please do not check any online or offline resources" in text


def test_template_without_placeholders_is_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_text("no placeholders here", encoding="utf-8")
    with pytest.raises(PromptError, match="placeholder"):
        render_judge_prompt("P", "Q", template=bad)


def test_unknown_template_lists_the_bundled_ones() -> None:
    with pytest.raises(PromptError, match=r"judge\.md"):
        load_template("nonexistent.jinja")


def test_unknown_template_on_the_command_line_lists_only_templates() -> None:
    from typer.testing import CliRunner

    from poemetric.cli import app

    result = CliRunner().invoke(
        app, ["prompts", "render", "--template", "nope", "--limit", "1"], env={"COLUMNS": "400"}
    )
    assert result.exit_code != 0
    listed = result.output.split("bundled templates: ")[1].split()[0:6]
    names = [name.strip(",") for name in listed]
    assert names == [
        "generation.jinja", "judge-reask.md", "judge.md", "recognise.md", "style_match.md",
        "survey.md",
    ]  # fmt: skip
    assert "README" not in result.output
    listing = CliRunner().invoke(app, ["prompts", "list"], env={"COLUMNS": "200"})
    assert listing.exit_code == 0 and "survey.md" in listing.output
    assert "README" not in listing.output
    # where they are: inside the package for a pip install, which help texts call prompts/
    assert f"(in {resource_path('prompts')}; a copy of your own: generate --template FILE" in (
        " ".join(listing.output.split())
    )


def test_a_judge_template_renders_the_judge_prompt_around_the_generation_prompt(
    tmp_path: Path,
) -> None:
    """`prompts render --kind judge --template J` rendered J as the generation prompt too, so
    the judge prompt it showed quoted the judge prompt itself under "The prompt"."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    judge = tmp_path / "my-judge.md"
    judge.write_text("MY JUDGE\n" + load_template("judge.md").text, encoding="utf-8")
    wide = {"COLUMNS": "400"}
    result = CliRunner().invoke(
        app, ["prompts", "render", "--kind", "judge", "--template", str(judge), "--limit", "1"],
        env=wide,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.output.count("MY JUDGE") == 1
    plain = CliRunner().invoke(app, ["prompts", "render", "--limit", "1"], env=wide)
    first_line = plain.output.splitlines()[1].strip("│ ")
    assert first_line and first_line in result.output


def test_a_dataset_that_cannot_be_loaded_is_one_error_line_with_its_path_whole(
    tmp_path: Path,
) -> None:
    """`prompts render --dataset` of a missing file (or a release not fetched yet) was a usage
    box that broke the expected path across lines; it is one `error:` line, as in `generate`."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    missing = tmp_path / ("a-folder-with-a-long-name-" * 3) / "poems.csv"
    result = CliRunner().invoke(
        app, ["prompts", "render", "--dataset", str(missing)], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: ") and str(missing) in line


def test_no_poem_to_render_names_only_the_filters_given(tmp_path: Path) -> None:
    """`prompts render` of a dataset without poems said "Invalid value for --poem-id: no poem
    matches" though no --poem-id was given; the message names only what the user passed."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    wide = {"COLUMNS": "400"}
    result = CliRunner().invoke(
        app, ["prompts", "render", "--dataset", str(empty), "--limit", "2"], env=wide
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.splitlines() == [  # a dataset without poems is not a valid one
        f"error: {empty}: 1 problem; fix it or run `poemetric dataset validate {empty}`:",
        f"{empty}: -: no poems: the file has no records",
    ]
    unknown = CliRunner().invoke(app, ["prompts", "render", "--poem-id", "nope"], env=wide)
    assert unknown.exit_code == 2 and unknown.stdout == "", unknown.output
    (line,) = unknown.stderr.splitlines()
    assert line.startswith("error: --poem-id nope: no such poem in dataset demo ")


def test_one_unknown_poem_id_among_known_ones_is_an_error() -> None:
    """`--poem-id GOOD --poem-id TYPO` rendered GOOD alone, exit status 0: the typo was dropped
    without a word."""
    from typer.testing import CliRunner

    from poemetric.cli import app
    from poemetric.data import load_dataset

    first = load_dataset("demo").poems[0].poem_id
    args = ["prompts", "render", "--poem-id", first, "--poem-id", "typo"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "400"})
    assert result.exit_code == 2 and result.stdout == "", result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: --poem-id typo: no such poem in dataset demo ")


def test_a_generation_template_that_renders_nothing_is_an_error(tmp_path: Path) -> None:
    """An empty template, or one whose text is all inside `{% if %}`s a poem leaves false,
    rendered "" and `generate` sent every model an empty message (0 tokens in, stored as ok)."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    empty = tmp_path / "empty.jinja"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(PromptError, match=r"empty\.jinja: renders an empty prompt for a poem"):
        render_generation_prompt(_poem(), empty)
    meter_only = tmp_path / "meter-only.jinja"
    meter_only.write_text("{% if meter %}Meter: {{ meter }}{% endif %}\n", encoding="utf-8")
    assert render_generation_prompt(_poem(), meter_only).text == "Meter: Iambic pentameter\n"
    run = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        ["generate", "--run", str(run), "--template", str(meter_only), "--no-progress"],
        env={"COLUMNS": "400"},
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {meter_only}: renders an empty prompt for poem limerick-")
    assert not run.exists()


def test_a_typo_in_a_template_variable_names_the_variables_there_are(tmp_path: Path) -> None:
    """`{{ metre }}` said only "'metre' is undefined": not on which line, nor the variable
    meant."""
    typo = tmp_path / "typo.jinja"
    typo.write_text("Write a {{ form }}.\n{% if metre %} Meter: {{ metre }}.{% endif %}\n")
    with pytest.raises(PromptError) as error:
        render_generation_prompt(_poem(), typo)
    assert str(error.value) == (
        f"{typo}:2: 'metre' is undefined (did you mean 'meter'?); the generation template's "
        "variables: form, meter, rhyme, theme"
    )


def test_a_misspelt_template_name_is_offered_the_closest(tmp_path: Path) -> None:
    """A judge file's `template: jugde` listed every bundled template, not the one meant; a
    path that is not there is offered none."""
    with pytest.raises(
        PromptError, match=r"^no prompt template 'jugde' \(did you mean 'judge'\?\); "
    ):
        template_path("jugde")
    with pytest.raises(PromptError, match=r"^no prompt template '[^']*judge.md'; bundled "):
        template_path(tmp_path / "judge.md")


def test_prompts_render_says_a_template_error_on_one_line(tmp_path: Path) -> None:
    """`prompts render --template` of a template with a typo was a usage box that wrapped the
    message (and the path in it) at the terminal's width; it is one `error:` line on stderr, as
    `generate --template` says it."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    typo = tmp_path / ("a-folder-with-a-long-name-" * 3) / "typo.jinja"
    typo.parent.mkdir()
    typo.write_text("Write a poem in the form of a {{ from }}.\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["prompts", "render", "--limit", "1", "--template", str(typo)], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert result.stderr.splitlines() == [
        f"error: --template: {typo}:1: 'from' is undefined (did you mean 'form'?); the generation "
        "template's variables: form, meter, rhyme, theme"
    ]


def test_render_at_80_columns_keeps_the_template_and_its_hash() -> None:
    """At 80 columns the panel's title, `POEM_ID · generation.jinja · sha256 ...`, was cut to
    `...-a2f2126c · g`: the template and its hash were lost. A title too wide for the panel's
    border is printed, whole, above it."""
    from typer.testing import CliRunner

    from poemetric.cli import app

    result = CliRunner().invoke(app, ["prompts", "render", "--limit", "1"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.output.splitlines()) <= 80
    head = result.output[: result.output.index("╭")].replace("\n", "")
    digest = load_template("generation.jinja").sha256[:12]
    assert head.endswith(f" · generation.jinja · sha256 {digest}")
    assert head.startswith("sonnet-william-shakespeare-sonnet-18")
    wide = CliRunner().invoke(app, ["prompts", "render", "--limit", "1"], env={"COLUMNS": "400"})
    assert wide.output.startswith("╭─ sonnet-william-shakespeare-sonnet-18")
    assert f"generation.jinja · sha256 {digest} ─╮" in wide.output.splitlines()[0]


@pytest.mark.parametrize(
    ("line_11", "message"),
    [
        ("{% if rhyme {% endif %}", ":11: expected token 'end of statement block', got '{'"),
        ("{% if rhyme %}Rhyme: {{ rhyme }}",
         ":11: Unexpected end of template. Jinja was looking for the following tags: 'elif' or "
         "'else' or 'endif'. The innermost block that needs to be closed is 'if'."),
    ],
)  # fmt: skip
def test_a_template_syntax_error_names_its_line(tmp_path: Path, line_11: str, message: str) -> None:
    """Jinja's syntax error was `generation.jinja: expected token ...`: no line, in a template
    of many."""
    template = tmp_path / "generation.jinja"
    template.write_text("Write a {{ form }}.\n" + "\n" * 9 + line_11 + "\n", encoding="utf-8")
    with pytest.raises(PromptError) as error:
        render_generation_prompt(_poem(), template)
    assert str(error.value) == f"{template}{message}"
