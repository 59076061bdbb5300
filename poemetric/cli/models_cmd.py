"""CLI commands: `poemetric models` lists the roster, `poemetric models show NAME` one model."""

from __future__ import annotations

import typer
import yaml
from rich.console import Console
from rich.table import Table

from poemetric.cli.app import app
from poemetric.cli.command_groups import ModelsGroup
from poemetric.cli.markup import plain, plain_cells
from poemetric.cli.options import error_exit
from poemetric.providers.base import ModelSpec, sends_batches
from poemetric.providers.registry import UnknownProviderError, provider_class
from poemetric.redaction import url_without_credentials
from poemetric.roster import (
    JUDGE_ONLY_FIELDS,
    PROVIDER_ONLY_FIELDS,
    ModelRow,
    RosterError,
    RosterKind,
    display_name_hint,
    groups_with_notes,
    list_models,
    list_unusable,
    load_catalog,
    load_groups,
    roster_directories,
    searched,
)
from poemetric.suggest import did_you_mean

models_app = typer.Typer(
    cls=ModelsGroup,  # `poemetric models gpt-4o` is answered with `models show gpt-4o`
    no_args_is_help=False,
    invoke_without_command=True,
)
app.add_typer(models_app, name="models")

JudgesOption = typer.Option(False, "--judges", help="Judges (judges/) instead of generators.")
GroupOption = typer.Option(
    None, "--group", "-g", help="Only this group's models (e.g. paper30, open, thinking)."
)


def _kind(judges: bool) -> RosterKind:
    return "judges" if judges else "generators"


def _price(value: float, known: bool = True) -> str:
    """`?`: a paid model whose file gives no price; `-`: free (a local model)."""
    if not known:
        return "?"
    return "-" if value == 0 else f"{value:g}"


#: Width the groups column keeps before `models` leaves out the model id, then the provider.
GROUPS_MIN = 24
#: Widths of the open, think, in $/M and out $/M columns (their headers).
NARROW_COLUMNS = (4, 5, 6, 7)


def _wide_columns(rows: list[ModelRow], width: int) -> list[str]:
    """The provider and model id columns when they fit beside whole names, the narrow columns
    and `GROUPS_MIN` of groups (or all of them, when shorter) in `width`; a column costs its
    widest text plus 3 for ` │ `."""
    name = max((len(row.name) for row in rows), default=4)
    groups = min(GROUPS_MIN, max((len(", ".join(row.groups)) for row in rows), default=6))
    used = name + sum(NARROW_COLUMNS) + max(groups, 6) + 3 * 5
    shown = []
    for column, size in (
        ("provider", max((len(row.provider) for row in rows), default=8)),
        ("model id", max((len(row.model) for row in rows), default=8)),
    ):
        if used + size + 3 > width:
            break
        shown.append(column)
        used += size + 3
    return shown


@models_app.callback(subcommand_metavar="[COMMAND [ARGS]...]")  # `poemetric models` lists them
def models(
    ctx: typer.Context,
    group: str | None = GroupOption,
    judges: bool = JudgesOption,
) -> None:
    """The model roster: generators/ (or judges/ with --judges), one YAML file per model.

    Lists models with provider, model id, groups, thinking and price (USD per million tokens),
    then the model files that cannot be used, each with its reason.

    Examples:

        poemetric models

        poemetric models --judges

        poemetric models --group open

    Adding a model is adding one file, NAME.yaml with name: NAME, provider: and model: (copy
    one of generators/): in generators/ (judges/ for a judge), or in a folder of your own,
    export POEMETRIC_GENERATORS_DIR=DIR (POEMETRIC_JUDGES_DIR for judges). Then poemetric
    models show NAME prints it, or its problem with file, line and field; every command finds it
    by name (docs/models.md). A provider of another package: docs/providers.md.
    """
    if ctx.invoked_subcommand is not None:
        # `models --judges show NAME`: the flag was given before the subcommand.
        ctx.obj = {"judges": judges, "group": group}
        return
    _list_roster(group, judges)


# `models list`, as `dataset list` and `prompts list` are spelled: it was "No such command".
@models_app.command("list")
def list_command(
    ctx: typer.Context,
    group: str | None = GroupOption,
    judges: bool = JudgesOption,
) -> None:
    """List the models (or the judges): the same table as `poemetric models`.

    Examples:

        poemetric models list

        poemetric models list --judges --group pilot
    """
    given = ctx.obj or {}
    _list_roster(group or given.get("group"), judges or bool(given.get("judges")))


def _list_roster(group: str | None, judges: bool) -> None:
    """The table of `poemetric models` and `poemetric models list`."""
    kind = _kind(judges)
    try:  # every model file read once
        catalog = load_catalog(kind)
        rows = list_models(kind, group, catalog=catalog)
        unusable = list_unusable(kind, group, catalog=catalog)
        groups, group_notes = groups_with_notes(kind, catalog=catalog)
    except RosterError as error:
        raise error_exit(error) from error
    noun = ("judge" if judges else "model") + ("" if len(rows) == 1 else "s")
    title = f"{len(rows)} {noun}" + (f" in group {plain(group)}" if group else "")
    if unusable:
        title += f" (and {len(unusable)} unusable, below)"
    console = Console(emoji=False, highlight=False, soft_wrap=True)
    # Names stay whole and the short columns keep their width; at a narrow terminal the groups
    # wrap, and the model id (then the provider) is left out rather than squeezing the rest.
    wide = _wide_columns(rows, console.width)
    table = Table(title=title, show_edge=False, pad_edge=False)
    table.add_column("name", no_wrap=True)
    for column in wide:
        table.add_column(column, no_wrap=True)
    for header, size in zip(("open", "think", "in $/M", "out $/M"), NARROW_COLUMNS, strict=True):
        table.add_column(
            header, justify="center" if size < 6 else "right", no_wrap=True, min_width=size
        )
    table.add_column("groups", overflow="fold", ratio=1)
    for row in rows:
        extra = {"provider": row.provider, "model id": row.model}
        table.add_row(  # a model id is the provider's: `[` in it is text
            *plain_cells(
                row.name,
                *(extra[column] for column in wide),
                "yes" if row.open_weights else "",
                "yes" if row.thinking else "",
                _price(row.input_per_mtok, row.price_known),
                _price(row.output_per_mtok, row.price_known),
                ", ".join(row.groups),
            )
        )
    console.print(table)
    unpriced = [row.name for row in rows if not row.price_known]
    if unpriced:
        one = len(unpriced) == 1
        console.print(
            f"price ?: {', '.join(unpriced)} {'gives' if one else 'give'} no pricing: in "
            f"{'its file' if one else 'their files'}; cost estimates count "
            f"{'it' if one else 'them'} as $0 and --max-cost refuses "
            f"{'it' if one else 'them'} (docs/models.md)",
            markup=False,
        )
    if unusable:
        console.print(
            f"unusable (selecting one is an error until it is fixed; "
            f"`poemetric models show NAME{' --judges' if judges else ''}` says more):",
            markup=False,
        )
        for model in unusable:
            console.print(f"  {model.name}: {model.reason}  ({model.where})", markup=False)
    if len(wide) < 2:
        left_out = ", ".join(c for c in ("provider", "model id") if c not in wide)
        flag = " --judges" if judges else ""  # a judge's file is shown only with --judges
        note = f"({left_out} left out at this width; see `poemetric models show NAME{flag}`)"
        # As narrow as the table, the command whole on a line of its own.
        console.print(note if len(note) <= console.width else note.replace("; ", ";\n "))
    for note in group_notes:
        console.print(f"note: {note}", markup=False)
    names = ", ".join(name for name in groups if name != "all")
    outside = [name for name in catalog.names() if name not in groups["all"]]
    if outside:  # the demo judge: `--judge all` does not run it
        names += f"; all: every one but {', '.join(outside)} (in_all: false)"
    folders = ", ".join(map(str, roster_directories(kind)))
    console.print(f"groups: {names}; folders: {folders}", markup=False)


@models_app.command("show")
def show(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Model name, e.g. gpt-4o."),
    judges: bool = JudgesOption,
) -> None:
    """Print one model's resolved settings (defaults filled in, ${VAR} replaced).

    Examples:

        poemetric models show gpt-4o

        poemetric models show gemini-2.5-pro --judges
    """
    judges = judges or bool((ctx.obj or {}).get("judges"))
    kind = _kind(judges)
    try:
        catalog = load_catalog(kind).providers_checked()
    except RosterError as error:
        raise error_exit(error) from error
    if name in catalog.unusable:
        model = catalog.unusable[name]
        # The whole error (file, line, field, the allowed keys), under the one-line reason.
        lines = [line.strip() for line in model.detail.splitlines()]
        detail = "\n".join(f"  {line}" for line in lines if line != "invalid model file:")
        raise error_exit(f"{model.error(kind, hint=False)}\n{detail}")
    entries = catalog.entries
    if name not in entries:
        hint = display_name_hint(name, catalog) or _show_hint(name, catalog.names(), judges)
        raise error_exit(f"unknown {kind[:-1]} {name!r}{hint}")
    entry = entries[name]
    typer.echo(f"# {entry.path}")
    # Only the fields a file of this roster and provider may set: a generator file that wrote
    # the judge settings (template, structured, reask), or a markov file a `vllm:` block, would
    # be refused.
    spec = entry.spec
    hidden = {f for f, provider in PROVIDER_ONLY_FIELDS.items() if spec.provider != provider}
    if kind == "generators":
        hidden |= set(JUDGE_ONLY_FIELDS)
    data = spec.model_dump(mode="json", exclude=hidden)
    data["display_name"] = spec.label  # its default, the name: `null` read as "no label"
    if spec.base_url:  # a login in it (http://user:pass@proxy/v1) is never printed
        data["base_url"] = url_without_credentials(spec.base_url)
    note = _batch_note(spec)
    if note is not None and note.startswith(NO_BATCH_API):
        del data["pricing"]["batch_discount"]  # a discount no call of this model gets
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100).rstrip()
    typer.echo(_after_pricing(text, note) if note else text)


#: How `models show` begins the line that stands for `batch_discount` where there is no batch API.
NO_BATCH_API = "# no batch_discount"


def _batch_note(spec: ModelSpec) -> str | None:
    """The comment `models show` prints at the end of `pricing:`: none where `--batch` sends the
    calls through the provider's batch API at `batch_discount`; where it cannot (a local engine,
    a plugin without a batch API), one in place of the number, which was the default 0.5 for
    every model; for `openai-compatible`, that the discount takes a server with a batch API."""
    try:
        cls = provider_class(spec.provider)
    except (UnknownProviderError, ImportError):  # said by the model file's own checks
        return None
    if not sends_batches(cls):
        return (
            f"{NO_BATCH_API}: provider {spec.provider!r} has no batch API (--batch does not "
            "change its price)"
        )
    if cls.needs_base_url:  # openai-compatible: a batch API only where the server has one
        return "# batch_discount: only where the server has an OpenAI batch API (/batches)"
    return None


def _after_pricing(text: str, note: str) -> str:
    """`text` (the YAML of `models show`) with the line `note` at the end of its `pricing:`."""
    lines = text.splitlines()
    end = lines.index("pricing:") + 1
    while end < len(lines) and lines[end].startswith("  "):
        end += 1
    return "\n".join([*lines[:end], f"  {note}", *lines[end:]])


def _show_hint(name: str, names: list[str], judges: bool) -> str:
    """Close names, or the command that lists a group's models (`models show paper30`), or the
    other roster when the name is there (a judge asked for as a generator: `models show
    local-openai`)."""
    other = _kind(not judges)
    try:
        group = name in load_groups(_kind(judges))
    except RosterError:
        group = False
    if group:  # `models show paper30`: a group, not a model
        flag = " --judges" if judges else ""
        return f"; it is a group: `poemetric models{flag} --group {name}` lists its models"
    try:
        elsewhere = name in load_catalog(other).names()
    except RosterError:
        elsewhere = False
    if elsewhere:
        flag = "" if judges else " --judges"
        return f"; it is a {other[:-1]}: `poemetric models show {name}{flag}`"
    return did_you_mean(name, names) + searched(_kind(judges), name=name)
