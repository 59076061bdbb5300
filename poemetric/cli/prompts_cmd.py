"""`poemetric prompts`: list the templates and show exactly what a model receives."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.markup import plain, plain_cells
from poemetric.cli.options import (
    DatasetOption,
    LimitOption,
    dataset_warnings,
    error_exit,
    unknown_choice,
)
from poemetric.data import DatasetError, load_dataset
from poemetric.prompts import (
    PromptError,
    bundled_templates,
    load_template,
    render_generation_prompt,
    render_judge_prompt,
)

prompts_app = typer.Typer(
    help="Prompt templates: list them and render them for a dataset.\n\n"
    "  poemetric prompts list\n\n  poemetric prompts render --limit 2",
    no_args_is_help=True,
)
app.add_typer(prompts_app, name="prompts")
console = Console(emoji=False)
#: Columns a panel's top border takes around its title: `╭─ ` and ` ─╮`.
TITLE_FRAME = 6


class PromptKind(StrEnum):
    generation = "generation"
    judge = "judge"


@prompts_app.command("list")
def list_templates() -> None:
    """List the templates in prompts/ with their SHA-256 (stored with every result), and the
    folder they are in (inside the package when POEMetric was installed with pip).

    Examples:

        poemetric prompts list
    """
    templates = bundled_templates()
    if not templates:  # an empty table, exit 0: as if POEMetric had no prompts
        from poemetric.paths import home_lacks, resource_path

        lacks = home_lacks("prompts")  # a $POEMETRIC_HOME without prompts/
        raise error_exit(f"no templates in {resource_path('prompts')}{': ' * bool(lacks)}{lacks}")
    table = Table("template", "sha256", "size")
    for path in templates:
        template = load_template(path)
        table.add_row(
            *plain_cells(path.name, template.sha256[:16] + "…", f"{len(template.text)} chars")
        )
    console.print(table)
    console.print(
        f"(in {templates[0].parent}; a copy of your own: generate --template FILE, or template: "
        "FILE in a judge file)",
        markup=False,
        highlight=False,
        overflow="fold",
    )


@prompts_app.command("render")
def render(
    dataset: str = DatasetOption,
    limit: int | None = LimitOption,
    poem_id: list[str] = typer.Option([], "--poem-id", help="Only these poems (repeatable)."),
    kind_name: str = typer.Option(
        PromptKind.generation.value,
        "--kind",
        metavar="<generation|judge>",
        help="Which prompt to show.",
    ),
    template: Path | None = typer.Option(
        None,
        help="Use this template file instead of the bundled one (with --kind judge, the judge "
        "template; the prompt it quotes stays the bundled generation prompt).",
    ),
) -> None:
    """Print exactly what a model (or the judge) receives for each poem.

    Examples:

        poemetric prompts render --limit 2

        poemetric prompts render --kind judge --limit 1

        poemetric prompts render --dataset poemetric --poem-id POEM_ID

    POEM_ID is a poem_id of the dataset (`poemetric dataset show poemetric` lists them).
    """
    try:  # as an Enum option Typer answered "Value error, 'jduge' is not one of ..." in its box
        kind = PromptKind(kind_name)
    except ValueError:
        raise unknown_choice("--kind", kind_name, [item.value for item in PromptKind]) from None
    try:
        loaded = load_dataset(dataset)
    except DatasetError as error:
        raise error_exit(error) from error
    dataset_warnings(loaded)  # why a prompt has no theme, or its meter will not be checked
    poems = loaded.poems
    if not poems:
        raise error_exit(f"dataset {dataset}: has no poems")
    if poem_id:
        known = {p.poem_id for p in poems}
        poems = [p for p in poems if p.poem_id in set(poem_id)]
        unknown = [i for i in dict.fromkeys(poem_id) if i not in known]
        if unknown:  # one typo among several ids was left out without a word
            ids = ", ".join(unknown)
            raise error_exit(
                f"--poem-id {ids}: no such poem in dataset {dataset} "
                f"(`poemetric dataset show {dataset}` lists the poem ids)"
            )
    poems = poems[:limit] if limit else poems
    try:
        for poem in poems:
            judging = kind is PromptKind.judge
            generation = render_generation_prompt(poem, None if judging else template)
            shown = generation
            if judging:
                shown = render_judge_prompt(generation.text, poem.content, template)
            heading = f"{poem.poem_id} · {shown.name} · sha256 {shown.template_hash[:12]}"
            # A panel's title is read as markup even with markup=False: a poem id is text.
            title: str | None = plain(heading)
            if cell_len(heading) + TITLE_FRAME > console.width:
                # Rich cuts a title wider than the panel's top border: at 80 columns the
                # template and its sha256 were lost (`...-a2f2126c · g─╮`). It goes above.
                console.print(heading, markup=False, overflow="fold", highlight=False)
                title = None
            console.print(Panel(shown.text, title=title, expand=False), markup=False)
    except PromptError as error:  # one `error:` line, as `generate` says it
        raise error_exit(f"--template: {error}" if template else error) from None
