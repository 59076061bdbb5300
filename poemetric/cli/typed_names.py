"""An option as the command line named it: `export --out -` was answered "--to -: ...", the
option's primary name, which the user had not typed (`output_paths.OUTPUT_NAMES` are aliases)."""

from __future__ import annotations

#: `ctx.meta` key: each option given on the command line, by every name of it, as typed
#: (`repeated_options.refuse_repeated_options` fills it before the command's options are parsed).
TYPED_NAMES = "poemetric.typed_names"


def as_typed(option: str) -> str:
    """`option` (an output option's primary name, `--to`) as the command line gave it (`--out`,
    `-o`); `option` itself where it was not given, or outside a command line."""
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    return str(ctx.meta.get(TYPED_NAMES, {}).get(option, option)) if ctx else option
