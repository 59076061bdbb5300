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
