"""Settings read from environment variables. Standard library only: the command line and the
runner's signal handling read them."""

from __future__ import annotations

import math
import os


class SettingError(ValueError):
    """An environment variable holds a value POEMetric cannot use; the message names it."""


def seconds_from_env(name: str, default: float) -> float:
    """The seconds in environment variable `name`, or `default` where it is unset or blank.

    A value that is not a number of seconds (a word, a negative number, nan, inf) is a
    `SettingError` naming the variable: it was taken for the default without a word.
    """
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise SettingError(
            f"{name}={text!r} is not a number of seconds (0 or more; unset, it is {default:g})"
        )
    return value


#: The values a yes/no environment variable accepts (any case), for on and for off: click's own
#: (`y`, `t`, `n` and `f` too, which a variable such as POEMETRIC_DEMO_LOCAL took before it was
#: checked here).
TRUE_WORDS = ("1", "true", "yes", "on", "y", "t")
FALSE_WORDS = ("0", "false", "no", "off", "n", "f")


def flag_from_text(name: str, text: str) -> bool:
    """The yes/no value `text` of environment variable `name`: one of `TRUE_WORDS` or
    `FALSE_WORDS`, any case. Anything else is a `SettingError` naming the variable and the
    accepted values (`POEMETRIC_DEMO_LOCAL=maybe` was Typer's error box)."""
    word = text.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise SettingError(
        f"{name}={text!r} is not a yes/no value (yes: {', '.join(TRUE_WORDS)}; "
        f"no: {', '.join(FALSE_WORDS)})"
    )


def flag_from_env(name: str, default: bool) -> bool:
    """The yes/no value of environment variable `name` (`flag_from_text`), or `default` where it
    is unset or blank; any other value is a `SettingError` (`POEMETRIC_GGUF_CACHE=maybe` left
    the cache on without a word)."""
    text = os.environ.get(name, "")
    return flag_from_text(name, text) if text.strip() else default


def number_from_text(name: str, text: str, kind: type[int] | type[float]) -> int | float:
    """The `kind` number `text` of environment variable `name`; anything else (a word, `2.5`
    for a whole number, nan, inf) is a `SettingError` naming the variable."""
    try:
        value = kind(text.strip())
    except ValueError:
        value = None
    if value is None or not math.isfinite(value):
        what = "a whole number (e.g. 4)" if kind is int else "a number (e.g. 2.5)"
        raise SettingError(f"{name}={text!r} is not {what}")
    return value
