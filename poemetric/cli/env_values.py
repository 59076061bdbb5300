"""An option's value from its environment variable, checked as `poemetric.env_settings` checks
every setting: `POEMETRIC_DEMO_LOCAL=maybe poemetric demo` was Typer's error box ("Input should
be a valid boolean, unable to interpret input"); a yes/no or number option's variable with a
value it cannot take is now one `error:` line naming the variable and the values it takes, exit
status 2, as a bad `POEMETRIC_STOP_GRACE` is.

`install` wraps Typer's `TyperOption.value_from_envvar` (once, when the app is built).
"""

from __future__ import annotations

import os
from typing import Any

from typer.core import TyperOption

from poemetric.env_settings import SettingError, flag_from_text, number_from_text

_installed = False


def _variable(option: TyperOption) -> str | None:
    """The variable the option's value came from: its first one set (Typer's own rule)."""
    names = [option.envvar] if isinstance(option.envvar, str) else list(option.envvar or ())
    return next((name for name in names if os.environ.get(name)), None)


def checked(option: TyperOption, value: Any) -> Any:
    """`value`, read from the environment for `option`: a yes/no option's as "true"/"false",
    a number option's as it is; None (the default) for a blank one. An unusable value raises
    `SettingError`."""
    kind = option.type_descriptor.annotation
    name = _variable(option)
    if not isinstance(value, str) or name is None or kind not in (bool, int, float):
        return value
    if not value.strip():
        return None
    if kind is bool:
        return "true" if flag_from_text(name, value) else "false"
    number_from_text(name, value, kind)
    return value.strip()


def install() -> None:
    """Check yes/no and number options' environment values (once; later calls do nothing)."""
    global _installed
    if _installed:
        return
    read = TyperOption.value_from_envvar

    def value_from_envvar(self: TyperOption, ctx: Any) -> Any:
        from poemetric.cli.options import error_exit

        try:
            return checked(self, read(self, ctx))
        except SettingError as error:
            raise error_exit(error) from None

    TyperOption.value_from_envvar = value_from_envvar  # type: ignore[method-assign,assignment]
    _installed = True
